"""Drawing part of a photo much smaller without aliasing.

``cv2.warpPerspective`` samples bilinearly whatever interpolation flag it is given (INTER_AREA
falls back to INTER_LINEAR: opencv/opencv#21060). Drawn a sixth of its size, a phone photo's tile
is then seen through every sixth pixel, and grain, glare flecks or shrink wrap's dimples decide
what it shows; synthetic scenes, rendered small, never taught that. So where a warp would shrink
by more than SHRINK_ABOVE, the part of the photo it draws from is first averaged down by a power
of two (each pixel the mean of a square of them) until the warp no longer shrinks.
"""

from __future__ import annotations

import cv2
import numpy as np

SHRINK_ABOVE = 1.5
"""A warp drawing more than this many photo pixels to one is averaged down first, by powers of two,
to at most one to one (benchmarks/results/reader_confidence.md measures the result)."""


def warp_shrunk(
    image_bgr: np.ndarray,
    matrix: np.ndarray,
    size: tuple[int, int],
    shrink_above: float | None = SHRINK_ABOVE,
    source: np.ndarray | None = None,
    **warp_options: int | tuple[int, ...],
) -> np.ndarray:
    """``cv2.warpPerspective(image_bgr, matrix, size, **warp_options)`` (bilinear), but from the part
    of the photo it draws averaged down first where the warp shrinks by more than ``shrink_above``
    (None: never). The photo's edges stay where they are: what lies beyond them is drawn by the
    warp's border options, as without the shrinking. ``source``: the ``(4, 2)`` quad the warp draws
    from where the caller knows it (``source_of`` otherwise works it out)."""
    if shrink_above is not None:
        if source is None:
            try:
                source = source_of(matrix, size)
            except np.linalg.LinAlgError:
                pass  # a degenerate box (no area): nothing worth averaging
        times = 1 if source is None else shrinking(source, size, shrink_above)
        part = averaged_part(image_bgr, source, times) if source is not None and times > 1 else None
        if part is not None:
            image_bgr, matrix = part[0], matrix @ np.linalg.inv(part[1])
    return cv2.warpPerspective(image_bgr, matrix, size, flags=cv2.INTER_LINEAR, **warp_options)


def source_of(matrix: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The ``(4, 2)`` quad in the photo that a warp by ``matrix`` draws into ``size`` (width, height)."""
    width, height = size
    frame = np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float64)
    return cv2.perspectiveTransform(frame, np.linalg.inv(np.asarray(matrix, np.float64)))[0]


def shrinking(source: np.ndarray, size: tuple[int, int], shrink_above: float) -> int:
    """How many times to average the photo down before a warp from the ``source`` quad into ``size``:
    its shrinking across (the square root of the areas' ratio) rounded up to a power of two, once
    that is above ``shrink_above``; else 1."""
    drawn_from = abs(cv2.contourArea(np.asarray(source, np.float32)))
    across = float(np.sqrt(drawn_from / max(size[0] * size[1], 1)))
    return 2 ** int(np.ceil(np.log2(across))) if across > shrink_above else 1


def averaged_part(image_bgr: np.ndarray, source: np.ndarray, times: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The part of the photo round the ``source`` quad, averaged down ``times`` times (a power of two:
    halved again and again), and the matrix from the photo's pixels to the part's; None when the
    quad lies beyond the photo. The part's width and height are whole multiples of ``times``, taken
    off the sides inside the photo."""
    height, width = image_bgr.shape[:2]
    left, top = np.maximum(np.floor(source.min(axis=0)).astype(int) - 1, 0)
    right, bottom = np.minimum(np.ceil(source.max(axis=0)).astype(int) + 2, [width, height])
    if right - left < times or bottom - top < times:
        return None
    spare_x, spare_y = (right - left) % times, (bottom - top) % times
    left, right = (left, right - spare_x) if right < width else (left + spare_x, right)
    top, bottom = (top, bottom - spare_y) if bottom < height else (top + spare_y, bottom)
    part = halved_again(image_bgr[top:bottom, left:right], times)
    # pixel centres: x in the photo is (x - left + 0.5) / times - 0.5 in the part
    shift_x, shift_y = (0.5 - left) / times - 0.5, (0.5 - top) / times - 0.5
    return part, np.array([[1 / times, 0, shift_x], [0, 1 / times, shift_y], [0, 0, 1]])


def halved_towards(image_bgr: np.ndarray, longest: int) -> tuple[np.ndarray, int]:
    """The photo averaged down by exact halves (each pixel the mean of a 2 x 2 square) while its
    longer side is at least twice ``longest``, so that shrinking it the rest of the way bilinearly
    samples every pixel: a phone photo shrunk bilinearly to the detector's input in one step is
    seen through every ninth pixel. The photo is first trimmed at its right and bottom to a whole
    multiple of the halvings' factor (at most 2**k - 1 pixels), so each halving is OpenCV's fast
    path and its pixels keep the photo's coordinates (x in the photo is (x + 0.5) * 2**k - 0.5).
    Returns the image and that factor, 2**k (1: the photo itself, untouched)."""
    height, width = image_bgr.shape[:2]
    times = 1
    while max(height, width) >= 2 * longest * times and min(height, width) >= 2 * times:
        times *= 2
    if times == 1:
        return image_bgr, 1
    return halved_again(image_bgr[: height - height % times, : width - width % times], times), times


def halved_again(image_bgr: np.ndarray, times: int) -> np.ndarray:
    """An image whose sides are whole multiples of ``times`` (a power of two) made ``times`` smaller
    each way by averaging, halved again and again: OpenCV's fast path, by exactly two."""
    target_height = image_bgr.shape[0] // times
    while image_bgr.shape[0] > target_height:
        image_bgr = cv2.resize(
            image_bgr, (image_bgr.shape[1] // 2, image_bgr.shape[0] // 2), interpolation=cv2.INTER_AREA
        )
    return image_bgr
