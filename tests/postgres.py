"""A throwaway PostgreSQL server for the storage tests: Debian's postgresql package, a fresh cluster
in a temporary folder, listening on a free local port, stopped and deleted afterwards."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BIN_FOLDERS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def available() -> bool:
    return any((folder / "initdb").exists() for folder in BIN_FOLDERS)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A server's URL (``postgresql://postgres@127.0.0.1:PORT/postgres``) while the block runs."""
    bin_folder = next(folder for folder in BIN_FOLDERS if (folder / "initdb").exists())
    folder = Path(tempfile.mkdtemp(prefix="hubcam-pg-"))
    as_owner: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run it as its own user
        shutil.chown(folder, "postgres")
        as_owner = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    data = folder / "data"
    run = [*as_owner, str(bin_folder / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w"]
    subprocess.run([*as_owner, str(bin_folder / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"],
                   check=True, capture_output=True)  # fmt: skip
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=on"
    subprocess.run([*run, "-o", options, "start"], check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*run, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def new_database(server_url: str, name: str) -> str:
    """Create database ``name`` on the server; its URL."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + f"/{name}"
