"""A photo as if taken again otherwise: the camera tipped back (for tests and the real-photo
variants of benchmarks/real_variants.py)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from calibration.table_plane import border_colour

Variant = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""A photo in, the changed photo and the 3x3 matrix taking its pixels to the changed photo's out."""


def onto_canvas(image: np.ndarray, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Warp the whole photo by ``matrix`` onto a canvas just large enough, scaled back to the
    photo's own number of pixels (a slanted photo is not a larger one)."""
    height, width = image.shape[:2]
    frame = np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float64)
    warped = cv2.perspectiveTransform(frame, matrix)[0]
    low, high = warped.min(axis=0), warped.max(axis=0)
    scale = np.sqrt(width * height / np.prod(high - low))
    fit = np.array([[scale, 0, -low[0] * scale], [0, scale, -low[1] * scale], [0, 0, 1]])
    whole = fit @ matrix
    size = tuple(int(np.ceil(side)) for side in (high - low) * scale)
    out = cv2.warpPerspective(image, whole, size, flags=cv2.INTER_AREA, borderValue=border_colour(image))
    return out, whole


def slanted(degrees: float) -> Variant:
    """As if the camera had been tipped ``degrees`` further back about the photo's horizontal axis
    (focal length the photo's longer side, about a phone's main camera): the far side shrinks."""

    def variant(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        height, width = image.shape[:2]
        focal = max(height, width)
        camera = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])
        angle = np.radians(degrees)
        turn = np.array([[1, 0, 0], [0, np.cos(angle), -np.sin(angle)], [0, np.sin(angle), np.cos(angle)]])
        return onto_canvas(image, camera @ turn @ np.linalg.inv(camera))

    return variant
