"""Where the pips sit on a tile's half, for 0 to 18 pips, as real sets lay them out.

Up to 9 the classic 3x3 grid; 10 to 12 (double-12 sets) three columns of four,
the middle one holding two pips at its ends for 10 and three (ends and centre) for
11, as in the real double-12 photos of ../shared/real; 13 to 15 (double-15) three
columns of five; 16 to 18 (double-18) three columns of six. Coordinates are
``(u, v)`` in ``[0, 1]`` across and along the half, with v running from the tile's
end toward the divider.

>>> len(layout(12)), len(layout(18))
(12, 18)
>>> layout(1)
((0.5, 0.5),)
"""

from __future__ import annotations

from functools import cache

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


@cache
def layout(count: int, edge: float = EDGE) -> tuple[tuple[float, float], ...]:
    """The ``(u, v)`` centres of ``count`` pips on one half."""
    if not 0 <= count <= MAX_PIPS:
        raise ValueError(f"invalid pip count: {count} (expected 0 to {MAX_PIPS})")
    lines = (edge, 0.5, 1 - edge)
    if count in _SMALL:
        return tuple((lines[_GRID_PLACES[name[1]]], lines[_GRID_PLACES[name[0]]]) for name in _SMALL[count])
    rows, middle = _LARGE[count]
    return tuple(_column(lines[0], rows, edge) + _column(0.5, rows, edge, middle) + _column(lines[2], rows, edge))


def pip_radius(count: int, scale: float = 1.0, edge: float = EDGE) -> float:
    """Pip radius as a share of the half's width: smaller when the half is crowded; ``scale``
    makes a maker's larger or smaller pips, never so large that pips touch or leave the half."""
    rows = 3 if count <= 9 else _LARGE[count][0]
    usual = 0.085 if count <= 9 else {4: 0.068, 5: 0.052, 6: 0.043}[rows]
    spacing = (1 - 2 * edge) / (rows - 1)
    return min(usual * scale, 0.4 * spacing, 0.85 * edge)
