"""Cutting tiles into halves: the one preprocessing that training and reading share.

A tile is rectified to ``(half_px, 2 * half_px)`` with the half at corners[0..1] on the
left; each half is then a square with the tile's end on its left (the second half is
turned round), so both halves of every tile look alike to the counter.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.sampling import SHRINK_ABOVE, warp_shrunk

HALF_PX = 48
"""The side of a half the counter is trained at: 6 rows of pips (double-18) still get 8 px each."""


def rectify(
    image_bgr: np.ndarray, corners: np.ndarray, half_px: int = HALF_PX, shrink_above: float | None = SHRINK_ABOVE
) -> np.ndarray:
    """The tile's face as ``(half_px, 2 * half_px, 3)``, the corners[0..1] end on the left; a tile
    much larger in the photo is averaged down first (``vision.sampling``; None: sampled as it is,
    as the classical baseline does)."""
    corners = np.asarray(corners, np.float32)
    H = cv2.getPerspectiveTransform(corners, rectified_corners(half_px))
    return warp_shrunk(image_bgr, H, (2 * half_px, half_px), shrink_above, source=corners)  # it draws the tile


def rectified_corners(half_px: int = HALF_PX) -> np.ndarray:
    """Where a tile's four corners go in its rectified face (pixel centres at whole numbers)."""
    return np.array([[0, half_px], [0, 0], [2 * half_px, 0], [2 * half_px, half_px]], np.float32)


def in_half(points: np.ndarray, half: int, half_px: int = HALF_PX) -> np.ndarray:
    """``(k, 2)`` points of a rectified face as ``split`` gives them in ``half`` (0 or 1): half 1 is
    turned round."""
    points = np.asarray(points, np.float32).reshape(-1, 2)
    return points if half == 0 else np.array([2 * half_px - 1, half_px - 1], np.float32) - points


def split(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A rectified face's two halves, each with the tile's end on the left."""
    half_px = face.shape[0]
    return face[:, :half_px], cv2.rotate(face[:, half_px:], cv2.ROTATE_180)


def cut_halves(image_bgr: np.ndarray, corners: Sequence[np.ndarray], half_px: int = HALF_PX) -> np.ndarray:
    """``(2n, half_px, half_px, 3)`` uint8: half 0 then half 1 of each tile in turn."""
    halves = [half for quad in corners for half in split(rectify(image_bgr, quad, half_px))]
    return np.stack(halves) if halves else np.zeros((0, half_px, half_px, 3), np.uint8)
