"""What routes are handed: a database session per request, the readers, the settings, the token; and
the route class of the writes, which checks the game's token before anything else."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator
from typing import Annotated, Any

from fastapi import Depends, Header, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer
from sqlalchemy.orm import Session

from api import games
from api.readers import Readers
from api.settings import Settings


def get_session(request: Request) -> Iterator[Session]:
    with Session(request.app.state.engine, expire_on_commit=False) as session:
        yield session


def get_readers(request: Request) -> Readers:
    readers: Readers = request.app.state.readers
    return readers


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The game's write token from ``Authorization: Bearer TOKEN``."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


bearer = HTTPBearer(auto_error=False, description="the game's write token, shown once when the game was started")
"""Only for the OpenAPI page (its "Authorize" button): ``TokenFirst`` does the checking."""


class TokenFirst(APIRoute):
    """A route that changes the game ``{game_id}``: its token is checked before the body is read or
    validated, so a caller without it gets 401 or 403 (not 422, nor a wait while a photo uploads)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def checked(request: Request) -> Response:
            await run_in_threadpool(_check_write_token, request)
            return await handler(request)

        return checked


def _check_write_token(request: Request) -> None:
    token = get_token(request.headers.get("authorization"))
    with Session(request.app.state.engine) as session:
        games.check_token(games.load(session, request.path_params["game_id"]), token)


DbSession = Annotated[Session, Depends(get_session)]
ReadersDep = Annotated[Readers, Depends(get_readers)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Token = Annotated[str | None, Depends(get_token)]
