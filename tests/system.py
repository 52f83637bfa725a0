"""What some tests need from the system (Debian's chromium, a PostgreSQL server), and what happens
without it: the test fails saying what to install, unless its opt-out variable is set to 1, when it
is skipped. A missing package never passes quietly (`make test` installs them, as root)."""

from __future__ import annotations

import os

import pytest

SKIP_BROWSER = "HUBCAM_SKIP_BROWSER_TESTS"
"""Set to 1 to skip the page tests where chromium is not installed."""
SKIP_POSTGRES = "HUBCAM_SKIP_POSTGRES_TESTS"
"""Set to 1 to skip the PostgreSQL storage tests where postgresql is not installed."""


def missing(what: str, package: str, opt_out: str) -> None:
    """Skip (under ``opt_out=1``) or fail the test that needs ``what``, naming the package to install."""
    how = f"apt-get install {package} (or, as root, make system-deps; make test does)"
    if os.environ.get(opt_out) == "1":
        pytest.skip(f"{what} is not installed and {opt_out}=1: skipped ({how})")
    pytest.fail(f"{what} is not installed: {how}; or set {opt_out}=1 to skip these tests", pytrace=False)
