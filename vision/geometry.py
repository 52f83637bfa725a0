"""Small geometry shared by the vision stages: rotated rectangles and their corners."""

from __future__ import annotations

import numpy as np


def short_edge_first(corners: np.ndarray) -> np.ndarray:
    """Reorder a rectangle's ``(4, 2)`` corners so that corners[0]->corners[1] is a short edge."""
    corners = np.asarray(corners, dtype=np.float32)
    if np.linalg.norm(corners[1] - corners[0]) > np.linalg.norm(corners[2] - corners[1]):
        corners = np.roll(corners, -1, axis=0)
    return corners


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
