"""Opening the database and bringing its schema up to date (Alembic migrations, run at start).

SQLite (WAL, synchronous FULL) by default, PostgreSQL by URL. Every write is committed before the
service answers, so an acknowledged event survives the process being killed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError

MIGRATIONS = Path(__file__).parent / "migrations"


class DatabaseURLError(ValueError):
    """A --db that names no database this service can use."""


class DatabaseUnreachable(DatabaseURLError):
    """A database URL that is well formed but cannot be connected to (no server there, a wrong password)."""


def sqlite_url(folder: Path) -> str:
    return f"sqlite:///{(folder / 'hubcam.sqlite3').resolve()}"


def open_database(url: str) -> Engine:
    """An engine for ``url`` (sqlite:///FILE or postgresql://...), its schema migrated to the newest."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseURLError(f"invalid database URL: {url!r} (expected sqlite:///FILE or postgresql://...)") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")  # psycopg 3, not the default psycopg2
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            raise DatabaseURLError("an SQLite database must be a file: sqlite:///FILE")
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
    elif parsed.get_backend_name() == "postgresql":
        engine = create_engine(parsed, pool_pre_ping=True)
    else:
        raise DatabaseURLError(f"unsupported database {parsed.get_backend_name()!r} (expected sqlite or postgresql)")
    try:
        migrate(engine)
    except OperationalError as error:
        engine.dispose()
        raise DatabaseUnreachable(f"cannot reach {shown_url(url)}: {_first_line(error.orig or error)}") from None
    return engine


def shown_url(url: str) -> str:
    """The database URL as it may be printed: its password, if any, hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def _first_line(error: BaseException) -> str:
    """A driver's message, often several lines with hints, as one."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def migrate(engine: Engine) -> None:
    """Run every Alembic migration not yet applied (none when the schema is current)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
    cursor.execute("PRAGMA synchronous=FULL")  # a commit is on disk before it returns
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
