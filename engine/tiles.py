"""Tiles and domino sets.

>>> Tile.parse("5-12")
Tile(12, 5)
>>> str(Tile(12, 5)), Tile(12, 5).pips
('12-5', 17)
>>> len(domino_set(12))
91
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from engine.errors import ParseError

SET_SIZES = (6, 9, 12, 15, 18)
"""The highest doubles of the sets hubcam knows (RULES.md 1)."""

_TILE_TEXT = re.compile(r"\s*(\d{1,3})\s*-\s*(\d{1,3})\s*")


@dataclass(frozen=True, order=True)
class Tile:
    """One domino, unordered: ``Tile(12, 5)`` and ``Tile(5, 12)`` are the same tile.

    Stored high end first so that equal tiles compare and hash equal.
    """

    high: int
    low: int

    def __init__(self, a: int, b: int) -> None:
        if not (isinstance(a, int) and isinstance(b, int)) or a < 0 or b < 0:
            raise ParseError(f"invalid tile: ({a!r}, {b!r}) (expected two whole numbers >= 0)")
        object.__setattr__(self, "high", max(a, b))
        object.__setattr__(self, "low", min(a, b))

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read ``"a-b"``; raises ParseError quoting the text if it names no tile."""
        match = _TILE_TEXT.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ParseError(f"invalid tile: {text!r} (expected a-b, e.g. '12-5')")
        return cls(int(match[1]), int(match[2]))

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    @property
    def pips(self) -> int:
        return self.high + self.low

    def has(self, number: int) -> bool:
        return number in (self.high, self.low)

    def other_end(self, number: int) -> int:
        """The end left open when this tile is laid with ``number`` inward."""
        if number == self.high:
            return self.low
        if number == self.low:
            return self.high
        raise ValueError(f"tile {self} has no end {number}")

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def __repr__(self) -> str:
        return f"Tile({self.high}, {self.low})"


@cache
def domino_set(highest: int) -> frozenset[Tile]:
    """Every tile a-b with 0 <= a <= b <= highest."""
    if highest not in SET_SIZES:
        raise ParseError(f"invalid set: {highest!r} (expected one of {', '.join(map(str, SET_SIZES))})")
    return frozenset(Tile(a, b) for a in range(highest + 1) for b in range(a, highest + 1))


@cache
def tiles_with(number: int, highest: int) -> tuple[Tile, ...]:
    """The tiles of a double-``highest`` set that carry ``number`` on one end."""
    return tuple(Tile(number, other) for other in range(highest + 1))


def parse_in_set(text: str, highest: int) -> Tile:
    """Parse a tile and check it belongs to the double-``highest`` set."""
    tile = Tile.parse(text)
    if tile.high > highest:
        raise ParseError(f"invalid tile: {text!r} (expected a-b with 0 <= a, b <= {highest})")
    return tile
