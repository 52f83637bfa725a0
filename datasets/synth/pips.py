"""Where the pips sit on a tile's half, for 0 to 18 pips, as makers lay them out.

Up to 6 every maker uses the 3x3 grid. Above 6 makers differ, so a layout comes from a family
(``LAYOUTS``):

- ``classic``: 7-9 on the 3x3 grid; 10 to 12 three columns of four, the middle one holding two pips
  at its ends for 10 and three (ends and centre) for 11, as in the real double-12 photos of
  ../shared/real; 13 to 15 three columns of five; 16 to 18 three columns of six;
- ``centred``: the same columns, the middle column's pips packed round the half's centre
  (a 10 as two full columns of four with the middle pair at the centre);
- ``spread``: the same columns, the middle column's pips spread evenly along the whole column;
- ``rows``: rows across the half, each centred, alternately wide and narrow (a hexagonal lattice:
  a 7 as a hexagon with its centre, 13 as rows of 3, 2, 3, 2, 3), held out of all training
  (``HELD_OUT``) to measure a reader on a layout it has never seen;
- ``scattered``: no maker's; every count (0-18) with its pips anywhere in the half, kept apart, a new
  scatter for every set (``seed``), so that a counter taught on it cannot learn layouts and must
  count.

Coordinates are ``(u, v)`` in ``[0, 1]`` across and along the half, with v running from the tile's
end toward the divider. Every maker's layout is symmetric under a half turn, so a half reads the same
from either end.

>>> len(layout(12)), len(layout(18)), len(layout(13, family="rows"))
(12, 18, 13)
>>> layout(1)
((0.5, 0.5),)
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

MAX_PIPS = 18
EDGE = 0.22
"""Where the outer pips' centres sit, as a share of the half's side from its edges (makers differ:
the shrink-wrapped double-6 set in ../shared/real puts them at about 0.15)."""


def _column(u: float, rows: int, edge: float, at: tuple[float, ...] | None = None) -> list[tuple[float, float]]:
    """Pips of one column on a grid of ``rows`` rows: every row, or at the (fractional) rows ``at``."""
    step = (1 - 2 * edge) / (rows - 1)
    positions = range(rows) if at is None else at
    return [(u, edge + step * row) for row in positions]


# 0-9: the 3x3 grid, by position names (t/m/b along the half, l/m/r across it).
_GRID_PLACES = {"t": 0, "m": 1, "b": 2, "l": 0, "r": 2}
_SMALL = {
    0: (),
    1: ("mm",),
    2: ("tl", "br"),
    3: ("tl", "mm", "br"),
    4: ("tl", "tr", "bl", "br"),
    5: ("tl", "tr", "mm", "bl", "br"),
    6: ("tl", "tr", "ml", "mr", "bl", "br"),
    7: ("tl", "tr", "ml", "mm", "mr", "bl", "br"),
    8: ("tl", "tm", "tr", "ml", "mr", "bl", "bm", "br"),
    9: ("tl", "tm", "tr", "ml", "mm", "mr", "bl", "bm", "br"),
}
# Above 9: (rows, where the middle column's pips sit in rows, None for every row); the side
# columns are full. Odd middles sit in the gaps between rows, so every layout stays symmetric.
_LARGE: dict[int, tuple[int, tuple[float, ...] | None]] = {
    10: (4, (0, 3)),
    11: (4, (0, 1.5, 3)),
    12: (4, None),
    13: (5, (1, 2, 3)),
    14: (5, (0.5, 1.5, 2.5, 3.5)),
    15: (5, None),
    16: (6, (1, 2, 3, 4)),
    17: (6, (0.5, 1.5, 2.5, 3.5, 4.5)),
    18: (6, None),
}


_ROWS: dict[int, tuple[int, ...]] = {
    7: (2, 3, 2),
    8: (3, 2, 3),
    9: (1, 2, 3, 2, 1),
    10: (3, 2, 2, 3),
    11: (3, 2, 1, 2, 3),
    12: (2, 3, 2, 3, 2),
    13: (3, 2, 3, 2, 3),
    14: (2, 3, 2, 2, 3, 2),
    15: (4, 3, 1, 3, 4),
    16: (3, 2, 3, 3, 2, 3),
    17: (4, 3, 3, 3, 4),
    18: (4, 3, 4, 3, 4),
}
"""The ``rows`` family: pips per row across the half, from the end to the divider (palindromes, so
each layout is the same turned round)."""

LAYOUTS = ("classic", "centred", "spread", "rows", "scattered")
"""The layout families (see the module's docstring); ``classic`` is the renderer's default."""
HELD_OUT = ("rows",)
"""Families never drawn for training (``datasets.synth.scene.TRAINING_LAYOUTS``), kept to measure a
reader on layouts it has never seen."""


def _middle(family: str, rows: int, classic: tuple[float, ...] | None) -> tuple[float, ...] | None:
    """Where the middle column's pips sit (fractional rows), as ``family`` places them."""
    if classic is None or family == "classic":
        return classic
    count, centre = len(classic), (rows - 1) / 2
    if family == "centred":
        return tuple(centre + offset - (count - 1) / 2 for offset in range(count))
    return tuple(index * (rows - 1) / (count - 1) for index in range(count))  # spread


def _in_rows(sizes: tuple[int, ...], edge: float) -> list[tuple[float, float]]:
    """Rows of ``sizes`` pips across the half, each centred, at the pitch of the widest row."""
    pitch = (1 - 2 * edge) / max(max(sizes) - 1, 1)
    step = (1 - 2 * edge) / (len(sizes) - 1)
    return [
        (0.5 + (index - (size - 1) / 2) * pitch, edge + row * step)
        for row, size in enumerate(sizes)
        for index in range(size)
    ]


def _grid_rows(count: int) -> int:
    """The rows of the classic grid that ``count`` pips are laid on: 3 up to 9, else 4 to 6."""
    return 3 if count <= 9 else _LARGE[count][0]


def _scattered(count: int, edge: float, seed: int) -> list[tuple[float, float]]:
    """``count`` centres drawn at random within ``edge`` of the half's sides, none nearer another than
    ``scatter_gap``, the same for the same arguments."""
    if count == 0:
        return []
    nearest, draw = scatter_gap(count, edge), random.Random(f"scatter-{count}-{edge}-{seed}")
    for _ in range(1000):  # a fresh start whenever the pips placed first leave no room for the rest
        placed: list[tuple[float, float]] = []
        for _ in range(300 * count):
            u, v = draw.uniform(edge, 1 - edge), draw.uniform(edge, 1 - edge)
            if all((u - a) ** 2 + (v - b) ** 2 >= nearest**2 for a, b in placed):
                placed.append((u, v))
                if len(placed) == count:
                    return placed
    raise RuntimeError(f"no room for {count} scattered pips at edge {edge}")


SCATTER_COVER = 0.3
"""How much of the half scattered pips' keep-apart discs cover at most: random placement jams
at about 0.55, so a scatter is always found quickly."""


def scatter_gap(count: int, edge: float) -> float:
    """The nearest two scattered pips' centres may be: 0.9 of the classic grid's pitch, or less where so
    many pips would cover more than SCATTER_COVER of the half."""
    rows = _grid_rows(count)
    side = 1 - 2 * edge
    pitch = side / (rows - 1)
    cover = SCATTER_COVER**0.5
    packed = cover * side / max((count * math.pi / 4) ** 0.5 - cover, 1e-6)
    return min(0.9 * pitch, packed)


@lru_cache(maxsize=8192)  # scattered sets each add their own
def layout(count: int, edge: float = EDGE, family: str = "classic", seed: int = 0) -> tuple[tuple[float, float], ...]:
    """The ``(u, v)`` centres of ``count`` pips on one half, as ``family`` (``LAYOUTS``) lays them;
    ``seed`` picks the scatter of the ``scattered`` family (the others have one layout a count)."""
    if not 0 <= count <= MAX_PIPS:
        raise ValueError(f"invalid pip count: {count} (expected 0 to {MAX_PIPS})")
    if family not in LAYOUTS:
        raise ValueError(f"unknown layout family: {family!r} (expected one of {', '.join(LAYOUTS)})")
    if family == "scattered":
        return tuple(_scattered(count, edge, seed))
    if family == "rows" and count in _ROWS:
        return tuple(_in_rows(_ROWS[count], edge))
    lines = (edge, 0.5, 1 - edge)
    if count in _SMALL:
        return tuple((lines[_GRID_PLACES[name[1]]], lines[_GRID_PLACES[name[0]]]) for name in _SMALL[count])
    rows, middle = _LARGE[count]
    middle = _middle(family, rows, middle)
    return tuple(_column(lines[0], rows, edge) + _column(0.5, rows, edge, middle) + _column(lines[2], rows, edge))


def pip_radius(count: int, scale: float = 1.0, edge: float = EDGE, family: str = "classic") -> float:
    """Pip radius as a share of the half's width: smaller when the half is crowded; ``scale``
    makes a maker's larger or smaller pips, never so large that pips touch or leave the half."""
    if family == "scattered":
        return min(0.085 * scale, 0.4 * scatter_gap(count, edge), 0.85 * edge)
    if family == "rows" and count in _ROWS:
        sizes = _ROWS[count]
        rows, across = len(sizes), max(sizes)
    else:
        rows, across = _grid_rows(count), 3
    usual = {3: 0.085, 4: 0.068, 5: 0.052, 6: 0.043}[rows]
    spacing = (1 - 2 * edge) / (max(rows, across) - 1)
    return min(usual * scale, 0.4 * spacing, 0.85 * edge)
