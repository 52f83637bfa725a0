"""Running the service under uvicorn (``hubcam serve``). Workers are separate processes, so the
settings travel to each through the environment and each builds its own app.

The listening socket is bound here, before anything is printed, and handed to uvicorn by its file
descriptor: a port in use is one clear line, and the page's address is shown only once it can be opened.
"""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

from fastapi import FastAPI

from api.settings import Settings

DB_VARIABLE = "HUBCAM_DB"
PUBLIC_URL_VARIABLE = "HUBCAM_PUBLIC_URL"
PROFILE_VARIABLE = "HUBCAM_PROFILE"
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")
ALL_HOSTS = ("0.0.0.0", "::", "")


class ServeError(Exception):
    """The service cannot start (the port is taken, the address is not this machine's); one line for people."""


def app_from_environment() -> FastAPI:
    """The app for one uvicorn worker (``uvicorn --factory api.serve:app_from_environment``)."""
    from api.app import create_app

    if DB_VARIABLE not in os.environ:
        raise RuntimeError(f"{DB_VARIABLE} is not set (hubcam serve sets it from --db)")
    profile = os.environ.get(PROFILE_VARIABLE)
    return create_app(
        Settings(
            db_url=os.environ[DB_VARIABLE],
            public_url=os.environ.get(PUBLIC_URL_VARIABLE),
            profile=None if profile is None else Path(profile),
        )
    )


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host``:``port`` (IPv4 or IPv6, as the host is written)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise ServeError(f"--host {host!r}: not an address of this machine ({error.strerror})") from None
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait for TIME_WAIT
    try:
        listener.bind(address)
        listener.listen(2048)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise ServeError(
                f"port {port} on {host} is in use (another hubcam serve?): choose another --port"
            ) from None
        raise ServeError(f"cannot listen on {host} port {port}: {error.strerror}") from None
    listener.set_inheritable(True)  # the workers, separate processes, accept on it too
    return listener


def page_address(host: str, port: int) -> str:
    shown = "localhost" if host in (*ALL_HOSTS, *LOOPBACK_HOSTS) else host
    return f"http://{shown}:{port}/"


def serve(
    host: str, port: int, db_url: str, workers: int = 1, public_url: str | None = None, profile: Path | None = None
) -> None:
    import uvicorn

    from api.db import open_database, shown_url

    listener = bind(host, port)
    try:
        open_database(db_url).dispose()  # migrate once, here, before the workers race to, and fail early
        os.environ[DB_VARIABLE] = db_url
        if public_url:
            os.environ[PUBLIC_URL_VARIABLE] = public_url
        if profile is not None:
            os.environ[PROFILE_VARIABLE] = str(profile.resolve())
            print(f"hubcam: tables are read through the calibration profile {profile}", flush=True)
        print(f"hubcam: games are kept in {shown_url(db_url)}", flush=True)
        print(f"hubcam: the referee page is at {page_address(host, port)} (API docs at /docs); Ctrl-C stops it",
              flush=True)  # fmt: skip
        if host in LOOPBACK_HOSTS and not public_url:
            print(f"hubcam: only this computer can open it; for phones: --host 0.0.0.0 --public-url "
                  f"http://THIS-COMPUTER:{port}", flush=True)  # fmt: skip
        uvicorn.run(
            "api.serve:app_from_environment", factory=True, fd=listener.fileno(), workers=workers,
            log_level="info", server_header=False,
        )  # fmt: skip
    finally:
        listener.close()
