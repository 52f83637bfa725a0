"""What the repository tells a newcomer stays true: the rules copied into docs/ match the contract,
and the README's quick start prints what the README shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from api.cli import main

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT.parent / "shared" / "RULES.md"


@pytest.mark.skipif(not CONTRACT.exists(), reason="../shared/RULES.md is absent")
def test_the_rules_in_docs_are_the_contract():
    assert (ROOT / "docs" / "RULES.md").read_text() == CONTRACT.read_text(), "copy ../shared/RULES.md to docs/"


def test_the_readme_quick_start_prints_what_the_readme_shows(capsys, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    shown = re.search(r"\$ \.venv/bin/hubcam score docs/sample-hand\.jpg\n(.*?)\n\$", readme, re.S)
    assert shown, "the README's quick start scores docs/sample-hand.jpg"
    monkeypatch.chdir(ROOT)
    assert main(["score", "docs/sample-hand.jpg"]) == 0
    printed = capsys.readouterr().out.splitlines()
    for line in shown.group(1).splitlines():
        if line.strip() != "...":
            assert line in printed
