"""Fixtures shared by the service's tests: a database of each kind the service supports."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import postgres
from tests.system import SKIP_POSTGRES, missing

_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """One PostgreSQL server for the whole run (each test gets a database of its own on it)."""
    if not postgres.available():
        missing("PostgreSQL", "postgresql", SKIP_POSTGRES)
    with postgres.postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: an SQLite file, or a new database on the PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'hubcam.sqlite3'}"
    server: str = request.getfixturevalue("postgres_server_url")
    return postgres.new_database(server, f"hubcam_test_{next(_databases)}")
