"""Small geometry shared by the vision stages: rotated rectangles and their corners."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np


def short_edge_first(corners: np.ndarray) -> np.ndarray:
    """Reorder a rectangle's ``(4, 2)`` corners, or each of ``(n, 4, 2)``, so that
    corners[0]->corners[1] is a short edge."""
    corners = np.asarray(corners, dtype=np.float32)
    many = corners.reshape(-1, 4, 2)
    first = np.linalg.norm(many[:, 1] - many[:, 0], axis=1)
    second = np.linalg.norm(many[:, 2] - many[:, 1], axis=1)
    turned = np.where((first > second)[:, None, None], np.roll(many, -1, axis=1), many)
    return turned.reshape(corners.shape)


def xywhr_to_corners(boxes: np.ndarray) -> np.ndarray:
    """``(n, 5)`` centre x, centre y, width, height, angle (radians) to ``(n, 4, 2)`` corners
    (the same convention as Ultralytics: width runs along the angle)."""
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 5)
    centre, width, height, angle = boxes[:, None, :2], boxes[:, 2:3], boxes[:, 3:4], boxes[:, 4:5]
    cos, sin = np.cos(angle), np.sin(angle)
    along = np.concatenate([width / 2 * cos, width / 2 * sin], axis=1)[:, None, :]
    across = np.concatenate([-height / 2 * sin, height / 2 * cos], axis=1)[:, None, :]
    signs = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]], np.float32)[None, :, :, None]
    return (centre + signs[:, :, 0] * along + signs[:, :, 1] * across).astype(np.float32)


def tile_length(corners: np.ndarray) -> float:
    """A tile's length in pixels: its box's longer side."""
    sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    return float(sides.max())


def square_within(low: np.ndarray, high: np.ndarray, side: float, frame: tuple[int, int]) -> tuple[int, int, int, int]:
    """The box ``(x0, y0, x1, y1)`` of a square ``side`` pixels wide round the middle of ``low`` and
    ``high`` (x, y), moved inside a ``frame`` (width, height), and cut to it where larger than it.

    >>> square_within(np.array([10.0, 10.0]), np.array([30.0, 30.0]), 100, (640, 480))  # moved in
    (0, 0, 100, 100)
    """
    size = np.array(frame, np.float64)
    half = np.minimum(side / 2, size / 2)
    centre = np.clip((np.asarray(low) + np.asarray(high)) / 2, half, size - half)
    x0, y0 = np.maximum(centre - half, 0).astype(int)
    x1, y1 = np.minimum(centre + half, size).astype(int)
    return int(x0), int(y0), int(x1), int(y1)


def upright_box(corners: np.ndarray) -> np.ndarray:
    """The upright box round a quadrilateral, as four corners."""
    x0, y0 = np.asarray(corners).min(axis=0)
    x1, y1 = np.asarray(corners).max(axis=0)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def points_in_quads(quads: Sequence[np.ndarray], points: np.ndarray) -> np.ndarray:
    """``(n, m)`` bool: whether each of ``(m, 2)`` points lies inside (or on) each of ``n`` convex
    ``(4, 2)`` quads, whichever way round their corners go."""
    corners = np.asarray(quads, np.float64).reshape(-1, 1, 4, 2)
    edges = np.roll(corners, -1, axis=2) - corners
    offsets = np.asarray(points, np.float64).reshape(1, -1, 1, 2) - corners
    turns = edges[..., 0] * offsets[..., 1] - edges[..., 1] * offsets[..., 0]  # which side of each edge
    inside: np.ndarray = (turns >= 0).all(axis=-1) | (turns <= 0).all(axis=-1)
    return inside


def is_cut(corners: np.ndarray, width: int, height: int, margin_px: float = 2.0) -> bool:
    """Whether a tile reaches the frame's edge (part of it may be outside the photo)."""
    return bool(
        (corners[:, 0] < margin_px).any()
        or (corners[:, 1] < margin_px).any()
        or (corners[:, 0] > width - 1 - margin_px).any()
        or (corners[:, 1] > height - 1 - margin_px).any()
    )


HALF_IN_FRAME = 0.85
"""A half is read only when this share of it lies inside the photo: pips sit inset, so a half cut by
less still shows them all (real photos hold readable tiles 6 % beyond the edge)."""


def halves_of(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two halves of a tile's ``(4, 2)`` corners: the corners[0..1] end's half first."""
    corners = np.asarray(corners, dtype=np.float32)
    middle_right, middle_left = (corners[1] + corners[2]) / 2, (corners[3] + corners[0]) / 2
    return (
        np.array([corners[0], corners[1], middle_right, middle_left]),
        np.array([middle_left, middle_right, corners[2], corners[3]]),
    )


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quadrilaterals (``(4, 2)``, either winding)."""
    a, b = (cv2.convexHull(np.asarray(quad, np.float32).reshape(-1, 2)) for quad in (a, b))
    shared, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - shared
    return float(shared / union) if union > 0 else 0.0


def share_in_frame(quad: np.ndarray, width: int, height: int) -> float:
    """The share of a convex quadrilateral's area that lies inside a ``width`` x ``height`` photo."""
    quad = np.asarray(quad, dtype=np.float32)
    area = abs(cv2.contourArea(quad))
    if area <= 0:
        return 0.0
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    inside, _ = cv2.intersectConvexConvex(cv2.convexHull(quad), frame)
    return float(inside / area)


def halves_in_frame(corners: np.ndarray, width: int, height: int, share: float = HALF_IN_FRAME) -> bool:
    """Whether both halves of a tile lie (all but a sliver: ``share`` of each) inside the photo."""
    corners = np.asarray(corners, dtype=np.float32)
    if corners.min() >= 0 and (corners[:, 0] <= width).all() and (corners[:, 1] <= height).all():
        return True  # wholly inside (most tiles): no areas to measure
    return all(share_in_frame(half, width, height) >= share for half in halves_of(corners))


def wholly_in_frame(corners: Sequence[np.ndarray] | np.ndarray, width: int, height: int) -> np.ndarray:
    """``(n,)`` bool: which quads have every corner inside a ``width`` x ``height`` photo."""
    quads = np.asarray(corners, dtype=np.float32).reshape(-1, 4, 2)
    x, y = quads[..., 0], quads[..., 1]
    inside: np.ndarray = (quads.min(axis=(1, 2)) >= 0) & (x <= width).all(axis=1) & (y <= height).all(axis=1)
    return inside


def halves_in_frame_each(
    corners: Sequence[np.ndarray], width: int, height: int, share: float = HALF_IN_FRAME
) -> np.ndarray:
    """``(n,)`` bool: ``halves_in_frame`` for each tile, those wholly inside (most) told in one go."""
    quads = np.asarray(corners, dtype=np.float32).reshape(-1, 4, 2)
    inside = wholly_in_frame(quads, width, height)
    for tile in np.flatnonzero(~inside):
        inside[tile] = halves_in_frame(quads[tile], width, height, share)
    return inside
