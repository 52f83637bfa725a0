"""The referee service (``hubcam serve``): a thin FastAPI shell over engine/ and vision/.

Errors are always JSON ``{"detail": "..."}`` with a message a person can act on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from api.games import GameError
from api.limits import UploadLimit
from api.readers import Readers
from api.routes import games, pages, photos, rules, watch
from api.routes.pages import STATIC
from api.settings import Settings


def create_app(settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from api.db import open_database

        app.state.settings = settings
        app.state.engine = open_database(settings.db_url)
        app.state.readers = Readers(settings.profile)
        app.state.watched_games = set()  # the codes of the games a page watches live now (one watcher each)
        yield
        app.state.engine.dispose()

    app = FastAPI(
        title="hubcam",
        summary="Mexican Train referee: judge events, read tables and hands from photos, keep the scoresheet.",
        lifespan=lifespan,
    )
    app.add_middleware(UploadLimit, max_bytes=settings.max_upload_bytes)
    app.include_router(photos.router)
    app.include_router(games.router)
    app.include_router(games.writes)
    app.include_router(rules.router)
    app.include_router(watch.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/health", tags=["service"], summary="Is the service up, and can it reach its database?")
    def health(request: Request) -> dict[str, Any]:
        from sqlalchemy import text

        with request.app.state.engine.connect() as connection:
            connection.execute(text("select 1"))
        return {"status": "ok", "database": request.app.state.engine.dialect.name}

    app.add_exception_handler(GameError, _game_error)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(ValueError, _bad_value)
    app.add_exception_handler(HTTPException, _http_error)
    return app


async def _game_error(_request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, GameError)
    return JSONResponse({"detail": str(error), **error.extra}, status_code=error.status)


async def _bad_value(_request: Request, error: Exception) -> JSONResponse:
    """A photo that cannot be read (vision.photo.PhotoError) and other bad values."""
    return JSONResponse({"detail": str(error)}, status_code=422)


async def _http_error(_request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=error.headers)


async def _invalid_request(_request: Request, error: Exception) -> JSONResponse:
    """FastAPI's list of problems as one sentence: what was wrong, and where."""
    assert isinstance(error, RequestValidationError)
    problems = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem.get("loc", ()) if part != "body")
        if problem.get("type") == "json_invalid":
            return JSONResponse({"detail": f"malformed JSON: {problem.get('ctx', {}).get('error', 'cannot parse')}"},
                                status_code=400)  # fmt: skip
        if problem.get("type") == "missing" and where.startswith("photo"):
            problems.append("photo: missing (send the photo as the multipart form field 'photo')")
            continue
        problems.append(f"{where or 'body'}: {problem.get('msg', 'invalid')}")
    return JSONResponse({"detail": "; ".join(problems)}, status_code=422)
