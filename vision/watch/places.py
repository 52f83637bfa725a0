"""Where a train goes on: the open end of its last tile as it lies, and the new tile that touches it.

The watcher knows where each train's tiles lie. A new tile is one seen where no known tile lies, with
its outline at a train's open end; so a train is not followed again from the hub on every reading,
and a reading that breaks it elsewhere (at a crosswise double, a gap, a tile it missed) does not hide
the tile just laid.

>>> last = np.array([[100, 0], [100, 20], [140, 20], [140, 0]], np.float32)  # end on, going right
>>> end = open_end(last, np.array([60.0, 10.0]))
>>> end.tolist()
[140.0, 10.0]
>>> new = np.array([[182, 0], [182, 20], [142, 20], [142, 0]], np.float32)  # corners[0:2] at the far end
>>> round(gap(new, end), 1), inner_half(new, end)
(2.0, 1)
>>> crosswise = np.array([[142, -10], [162, -10], [162, 30], [142, 30]], np.float32)  # a double across
>>> open_end(crosswise, centre(last)).tolist()
[162.0, 10.0]
"""

from __future__ import annotations

import cv2
import numpy as np

JOIN_TILES = 0.45
"""A new tile whose outline comes this many tile lengths or nearer to a train's open end joins it
(tiles on a real table lie with gaps, and a reading's box is a few pixels off)."""
SAME_PLACE_TILES = 0.35
"""A tile seen with its middle this many tile lengths or nearer a known tile's is that tile."""
ODDS_FLOOR = 0.02
"""Added to each count's odds before two readings are combined: one sure misreading cannot veto."""


def centre(corners: np.ndarray) -> np.ndarray:
    middle: np.ndarray = np.asarray(corners, np.float64).mean(axis=0)
    return middle


def open_end(last: np.ndarray, before: np.ndarray) -> np.ndarray:
    """The point of the last tile's outline farthest along the train's way (from ``before``, the tile
    before it or the hub, through the last tile's middle): the middle of its outer short side when laid
    end on, of its far long side when laid across."""
    middle = centre(last)
    way = middle - np.asarray(before, np.float64)
    way /= max(float(np.hypot(*way)), 1e-6)
    reach = max(float(np.dot(corner - middle, way)) for corner in np.asarray(last, np.float64))
    end: np.ndarray = middle + way * reach
    return end


def gap(corners: np.ndarray, point: np.ndarray) -> float:
    """Pixels from ``point`` to the tile's outline (0 inside it)."""
    inside = cv2.pointPolygonTest(np.asarray(corners, np.float32).reshape(-1, 1, 2), tuple(map(float, point)), True)
    return max(0.0, -float(inside))


def inner_half(corners: np.ndarray, point: np.ndarray) -> int:
    """The half (0: the one at ``corners[0:2]``) whose end lies nearer ``point``."""
    corners = np.asarray(corners, np.float64)
    ends = (corners[0] + corners[1]) / 2, (corners[2] + corners[3]) / 2
    return int(np.hypot(*(ends[1] - point)) < np.hypot(*(ends[0] - point)))


def same_place(a: np.ndarray, b: np.ndarray, length: float) -> bool:
    return bool(np.hypot(*(centre(a) - centre(b))) <= SAME_PLACE_TILES * length)


def inner_first(corners: np.ndarray, inner: int) -> np.ndarray:
    """The corners turned so that ``corners[0:2]`` is the end of the inner half."""
    turned: np.ndarray = np.roll(np.asarray(corners), -2 * inner, axis=0)
    return turned


def oriented(odds: np.ndarray | None, inner: int) -> np.ndarray | None:
    """A sighting's ``(2, counts)`` odds as (inner half, outer half)."""
    return None if odds is None else (odds if inner == 0 else odds[::-1])


def fused(before: np.ndarray | None, seen: np.ndarray | None) -> np.ndarray | None:
    """The odds of the same halves (or of one number) from two readings, taken as independent evidence."""
    if before is None or seen is None or before.shape != seen.shape:
        return seen if before is None else before
    product = (before + ODDS_FLOOR) * (seen + ODDS_FLOOR)
    combined: np.ndarray = product / product.sum(axis=-1, keepdims=True)
    return combined
