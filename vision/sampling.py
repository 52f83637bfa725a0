"""Drawing part of a photo much smaller without aliasing.

``cv2.warpPerspective`` samples bilinearly whatever interpolation flag it is given (INTER_AREA
falls back to INTER_LINEAR: opencv/opencv#21060). Drawn a sixth of its size, a phone photo's tile
is then seen through every sixth pixel, and grain, glare flecks or shrink wrap's dimples decide
what it shows; synthetic scenes, rendered small, never taught that. So where a warp would shrink
by more than SHRINK_ABOVE, the part of the photo it draws from is first averaged down a whole
number of times (each pixel the mean of a square of them) until the warp no longer shrinks.
"""

from __future__ import annotations

import cv2
import numpy as np

SHRINK_ABOVE = 1.5
"""A warp that draws more than this many photo pixels to one (across) is averaged down first: at
2-3 to one, bilinear sampling already skips pixels (measured on the real photos' halves:
benchmarks/reader_confidence.py)."""


def warp_shrunk(
    image_bgr: np.ndarray,
    matrix: np.ndarray,
    size: tuple[int, int],
    shrink_above: float | None = SHRINK_ABOVE,
    **warp_options: int | tuple[int, ...],
) -> np.ndarray:
    """``cv2.warpPerspective(image_bgr, matrix, size, **warp_options)`` (bilinear), but from the part
    of the photo it draws averaged down first where the warp shrinks by more than ``shrink_above``
    (None: never). The photo's edges stay where they are: what lies beyond them is drawn by the
    warp's border options, as without the shrinking."""
    times = shrinking(matrix, size, shrink_above)
    if times > 1:
        part, to_part = averaged_part(image_bgr, matrix, size, times)
        if part is not None:
            image_bgr, matrix = part, matrix @ np.linalg.inv(to_part)
    return cv2.warpPerspective(image_bgr, matrix, size, flags=cv2.INTER_LINEAR, **warp_options)


def source_of(matrix: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The ``(4, 2)`` quad in the photo that a warp by ``matrix`` draws into ``size`` (width, height)."""
    width, height = size
    frame = np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float64)
    return cv2.perspectiveTransform(frame, np.linalg.inv(np.asarray(matrix, np.float64)))[0]


def shrinking(matrix: np.ndarray, size: tuple[int, int], shrink_above: float | None) -> int:
    """How many times to average the photo down before the warp: the warp's shrinking across (the
    square root of its areas' ratio) rounded up, once that is above ``shrink_above``; else 1."""
    if shrink_above is None:
        return 1
    try:
        drawn_from = abs(cv2.contourArea(source_of(matrix, size).astype(np.float32)))
    except np.linalg.LinAlgError:
        return 1  # a degenerate box (no area): nothing worth averaging
    across = float(np.sqrt(drawn_from / max(size[0] * size[1], 1)))
    return int(np.ceil(across)) if across > shrink_above else 1


def averaged_part(
    image_bgr: np.ndarray, matrix: np.ndarray, size: tuple[int, int], times: int
) -> tuple[np.ndarray | None, np.ndarray]:
    """The part of the photo a warp draws from, averaged down ``times`` times, and the matrix from
    the photo's pixels to the part's; None when the warp draws nothing from inside the photo. The
    part's width and height are whole multiples of ``times``, taken off the sides inside the photo."""
    height, width = image_bgr.shape[:2]
    source = source_of(matrix, size)
    left, top = np.maximum(np.floor(source.min(axis=0)).astype(int) - 1, 0)
    right, bottom = np.minimum(np.ceil(source.max(axis=0)).astype(int) + 2, [width, height])
    if right - left < times or bottom - top < times:
        return None, np.eye(3)
    spare_x, spare_y = (right - left) % times, (bottom - top) % times
    left, right = (left, right - spare_x) if right < width else (left + spare_x, right)
    top, bottom = (top, bottom - spare_y) if bottom < height else (top + spare_y, bottom)
    part = cv2.resize(
        image_bgr[top:bottom, left:right], ((right - left) // times, (bottom - top) // times),
        interpolation=cv2.INTER_AREA,
    )  # fmt: skip
    # pixel centres: x in the photo is (x - left + 0.5) / times - 0.5 in the part
    shift_x, shift_y = (0.5 - left) / times - 0.5, (0.5 - top) / times - 0.5
    to_part = np.array([[1 / times, 0, shift_x], [0, 1 / times, shift_y], [0, 0, 1]])
    return part, to_part
