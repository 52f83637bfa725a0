"""Running the service under uvicorn (``hubcam serve``). Workers are separate processes, so the
settings travel to each through the environment and each builds its own app."""

from __future__ import annotations

import os

from fastapi import FastAPI

from api.settings import Settings

DB_VARIABLE = "HUBCAM_DB"
PUBLIC_URL_VARIABLE = "HUBCAM_PUBLIC_URL"


def app_from_environment() -> FastAPI:
    """The app for one uvicorn worker (``uvicorn --factory api.serve:app_from_environment``)."""
    from api.app import create_app

    if DB_VARIABLE not in os.environ:
        raise RuntimeError(f"{DB_VARIABLE} is not set (hubcam serve sets it from --db)")
    return create_app(Settings(db_url=os.environ[DB_VARIABLE], public_url=os.environ.get(PUBLIC_URL_VARIABLE)))


def serve(host: str, port: int, db_url: str, workers: int = 1, public_url: str | None = None) -> None:
    import uvicorn

    from api.db import open_database

    open_database(db_url).dispose()  # migrate once, here, before the workers race to, and fail early
    os.environ[DB_VARIABLE] = db_url
    if public_url:
        os.environ[PUBLIC_URL_VARIABLE] = public_url
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    print(f"hubcam: the referee page is at http://{shown}:{port}/ (API docs at /docs); Ctrl-C stops it", flush=True)
    uvicorn.run(
        "api.serve:app_from_environment", factory=True, host=host, port=port, workers=workers,
        log_level="info", server_header=False,
    )  # fmt: skip
