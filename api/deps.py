"""What routes are handed: a database session per request, the readers, the settings, the token."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session

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


DbSession = Annotated[Session, Depends(get_session)]
ReadersDep = Annotated[Readers, Depends(get_readers)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Token = Annotated[str | None, Depends(get_token)]
