"""The service's tables (SQLAlchemy 2). A game is its rules and seats; each round keeps its deal and
its events in order, and each seat's leftover hand; every correction and undo goes to the audit trail.
State is never stored: it is the engine's replay of the events, so the two cannot disagree."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Game(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(12), primary_key=True)
    """A short code people can read out to rejoin the game."""
    token_sha256: Mapped[str] = mapped_column(String(64))
    """The write token's hash: the token itself is shown once, at creation, and never stored."""
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    names: Mapped[list[Any]] = mapped_column(JSON)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    rounds: Mapped[list[Round]] = relationship(back_populates="game", order_by="Round.number")


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    deal: Mapped[dict[str, Any]] = mapped_column(JSON)
    """engine, starter, and where known hands and boneyard, as in a RULES.md 7 log."""
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    game: Mapped[Game] = relationship(back_populates="rounds")


class Event(Base):
    __tablename__ = "events"
    # Two writers racing for the same place: one insert fails, nothing is stored twice.
    __table_args__ = (UniqueConstraint("round_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    event: Mapped[dict[str, Any]] = mapped_column(JSON)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    undone: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class Hand(Base):
    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("round_id", "seat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    tiles: Mapped[list[Any]] = mapped_column(JSON)
    """The tiles counted, as "a-b" texts: what the photo read, then what a person corrected."""
    reading: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    """The photo's ``hubcam score`` JSON, kept as read."""
    reviewed: Mapped[bool] = mapped_column(default=False)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Audit(Base):
    __tablename__ = "audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    action: Mapped[str] = mapped_column(String(32))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
