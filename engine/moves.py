"""Moves (the events of RULES.md 7) as small values that round-trip through text.

>>> move = Move.parse("1 play 12-7 mexican")
>>> move
Move.parse('1 play 12-7 mexican')
>>> move.to_event()
{'player': 1, 'action': 'play', 'tile': '12-7', 'train': 'mexican'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import ParseError
from engine.tiles import Tile

MEXICAN = "mexican"
ACTIONS = ("play", "draw", "pass", "end_turn")

TrainRef = int | str
"""A seat number, ``"mexican"``, or (as read from a log) any other text, judged ``unknown_train``."""

TileRef = Tile | str
"""A tile, or (as read from a log) text that names no tile, judged ``unknown_tile``."""


@dataclass(frozen=True)
class Move:
    """One event: ``player`` plays ``tile`` on ``train``, draws, passes or ends a chain turn."""

    player: int
    action: str
    tile: TileRef | None = None
    train: TrainRef | None = None

    def __post_init__(self) -> None:
        if type(self.player) is not int:
            raise ParseError(f"invalid player: {self.player!r} (expected a seat number)")
        if self.action not in ACTIONS:
            raise ParseError(f"invalid action: {self.action!r} (expected one of {', '.join(ACTIONS)})")
        if self.action == "play" and (self.tile is None or self.train is None):
            raise ParseError("a play needs a tile and a train")
        if self.action in ("pass", "end_turn") and (self.tile is not None or self.train is not None):
            raise ParseError(f"{self.action} takes no tile or train")
        if self.action == "draw" and self.train is not None:
            raise ParseError("a draw takes no train")

    @classmethod
    def play(cls, player: int, tile: Tile, train: TrainRef) -> Move:
        return cls(player, "play", tile, train)

    @classmethod
    def draw(cls, player: int, tile: Tile | None = None) -> Move:
        return cls(player, "draw", tile)

    @classmethod
    def pass_turn(cls, player: int) -> Move:
        return cls(player, "pass")

    @classmethod
    def end_turn(cls, player: int) -> Move:
        return cls(player, "end_turn")

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``"SEAT ACTION [TILE] [TRAIN]"``, e.g. ``"0 play 12-5 0"`` or ``"2 draw 3-4"``."""
        words = text.split()
        try:
            player = int(words[0])
            action = words[1]
        except (IndexError, ValueError):
            raise ParseError(f"invalid move: {text!r} (expected 'SEAT ACTION [TILE] [TRAIN]')") from None
        tile = Tile.parse(words[2]) if len(words) > 2 else None
        train: TrainRef | None = None
        if len(words) > 3:
            train = int(words[3]) if words[3].isdigit() else words[3]
        if len(words) > 4:
            raise ParseError(f"invalid move: {text!r} (too many words)")
        return cls(player, action, tile, train)

    def to_event(self) -> dict[str, Any]:
        """The move as a referee log event (RULES.md 7)."""
        event: dict[str, Any] = {"player": self.player, "action": self.action}
        if self.tile is not None:
            event["tile"] = str(self.tile)
        if self.train is not None:
            event["train"] = self.train
        return event

    def __str__(self) -> str:
        words = [str(self.player), self.action]
        words += [str(part) for part in (self.tile, self.train) if part is not None]
        return " ".join(words)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"
