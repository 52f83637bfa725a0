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
from functools import cache, lru_cache

from engine.errors import ParseError

SET_SIZES = (6, 9, 12, 15, 18)
"""The highest doubles of the sets hubcam knows (RULES.md 1)."""

_TILE_TEXT = re.compile(r"\s*(\d{1,3})\s*-\s*(\d{1,3})\s*")


class Tile(tuple[int, int]):
    """One domino, unordered: ``Tile(12, 5)`` and ``Tile(5, 12)`` are the same tile.

    Stored high end first, as an immutable pair: tiles are hashed and compared on
    every move, and a tuple does both in C.
    """

    __slots__ = ()

    def __new__(cls, a: int, b: int) -> Tile:
        if type(a) is not int or type(b) is not int or a < 0 or b < 0:
            raise ParseError(f"invalid tile: ({a!r}, {b!r}) (expected two whole numbers >= 0)")
        return tuple.__new__(cls, (a, b) if a >= b else (b, a))

    @property
    def high(self) -> int:
        return self[0]

    @property
    def low(self) -> int:
        return self[1]

    def __getnewargs__(self) -> tuple[int, int]:
        return (self[0], self[1])

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read ``"a-b"``; raises ParseError quoting the text if it names no tile."""
        if not isinstance(text, str):
            raise ParseError(f"invalid tile: {text!r} (expected a-b, e.g. '12-5')")
        return _parse_tile(text)

    @property
    def is_double(self) -> bool:
        return self[0] == self[1]

    @property
    def pips(self) -> int:
        return self[0] + self[1]

    def has(self, number: int) -> bool:
        return number == self[0] or number == self[1]

    def other_end(self, number: int) -> int:
        """The end left open when this tile is laid with ``number`` inward."""
        if number == self[0]:
            return self[1]
        if number == self[1]:
            return self[0]
        raise ValueError(f"tile {self} has no end {number}")

    def __str__(self) -> str:
        return f"{self[0]}-{self[1]}"

    def __repr__(self) -> str:
        return f"Tile({self[0]}, {self[1]})"


@lru_cache(maxsize=4096)
def _parse_tile(text: str) -> Tile:
    """Tile.parse's work, cached: logs and notation name the same few hundred tiles again and again."""
    match = _TILE_TEXT.fullmatch(text)
    if match is None:
        raise ParseError(f"invalid tile: {text!r} (expected a-b, e.g. '12-5')")
    return Tile(int(match[1]), int(match[2]))


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
