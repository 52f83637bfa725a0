"""Request bodies, as the OpenAPI page shows them. Values are checked by the engine, which says what
was wrong in RULES.md's words, so the types here stay loose (a seat given as "1" is refused by the
referee, not quietly turned into 1)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class GameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: Any = Field(description="RULES.md 7's rules: the variants of RULES.md 6 and players",
                       examples=[{"players": 4, "set": 12}])  # fmt: skip
    names: Any = Field(None, description="one name per seat (default 'seat 0', 'seat 1', ...)")
    engine: Any = Field(None, description="the engine double's number (default: the set's highest)")
    starter: Any = Field(None, description="the seat that plays first (default 0)")
    hands: Any = Field(None, description="every seat's hand, as tiles like '12-5'; without them the referee "
                       "judges only what the table shows")  # fmt: skip
    boneyard: Any = Field(None, description="the boneyard (default: the rest of the set)")


class RoundIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    engine: Any = Field(None, description="default: the next double down")
    starter: Any = Field(None, description="default: the next seat round")
    hands: Any = None
    boneyard: Any = None


class EventIn(BaseModel):
    """One event of RULES.md 7."""

    model_config = ConfigDict(extra="forbid")

    player: Any = Field(examples=[0])
    action: Any = Field(description="play, draw, pass or end_turn", examples=["play"])
    tile: Any = Field(None, examples=["12-5"])
    train: Any = Field(None, description="a seat number or 'mexican'", examples=[0])


class HandIn(BaseModel):
    """The review step: the tiles that really are in the hand."""

    model_config = ConfigDict(extra="forbid")

    tiles: Any = Field(examples=[["12-5", "3-3"]])
