"""A plain classical pipeline: threshold, split, count blobs. The floor hubcam must beat.

It finds bright tile faces as contours, fits a rotated rectangle to each, splits it
at the middle of its long side and counts dark or coloured blobs in each half. It
exists so that the evaluation harness runs end to end before the detector does,
and to measure the classical floor on the real photos. Its thresholds live in
``BaselineConfig``, not in the code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import short_edge_first
from vision.observation import Observation, Sighting
from vision.read.halves import rectify


@dataclass(frozen=True)
class BaselineConfig:
    work_side_px: int = 1024
    """Images are shrunk to this longest side before searching (speed; tiles stay large enough)."""
    min_tile_area: float = 0.002
    """Smallest tile face, as a share of the image area."""
    max_tile_area: float = 0.25
    aspect_range: tuple[float, float] = (1.5, 2.7)
    """Long side over short side of a tile face."""
    half_px: int = 64
    """Each half is resampled to a square this wide before counting pips."""
    border: float = 0.1
    """Share of each half's width ignored at the tile's edges and divider."""
    pip_area: tuple[float, float] = (0.004, 0.09)
    """A pip's area as a share of the half's area."""


def read_tiles(image_bgr: np.ndarray, label: object = None, config: BaselineConfig = BaselineConfig()) -> Observation:
    """Find tiles and count their pips; timings in milliseconds per stage (``label`` is ignored)."""
    start = time.perf_counter()
    scale = min(1.0, config.work_side_px / max(image_bgr.shape[:2]))
    small = cv2.resize(image_bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image_bgr
    boxes = find_tile_boxes(small, config)
    detected = time.perf_counter()
    tiles = []
    for corners in boxes:
        pips = count_pips(small, corners, config)
        tiles.append(Sighting(corners / scale, pips, confidence=0.5))
    done = time.perf_counter()
    timings = {"detect": (detected - start) * 1000, "pips": (done - detected) * 1000, "total": (done - start) * 1000}
    height, width = image_bgr.shape[:2]
    return Observation(tuple(tiles), width, height, timings_ms=timings)


def find_tile_boxes(image_bgr: np.ndarray, config: BaselineConfig) -> list[np.ndarray]:
    """Bright, tile-shaped regions as ``(4, 2)`` corners, corners[0]->corners[1] a short edge."""
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (5, 5), 0)
    _, bright = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # Close the pips and the divider so each face is one blob; open to cut thin joins between faces.
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, kernel, iterations=2)
    bright = cv2.morphologyEx(bright, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_image = gray.shape[0] * gray.shape[1]
    boxes = []
    for contour in contours:
        (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
        area = w * h
        if not config.min_tile_area * area_image <= area <= config.max_tile_area * area_image:
            continue
        aspect = max(w, h) / max(1e-6, min(w, h))
        if not config.aspect_range[0] <= aspect <= config.aspect_range[1]:
            continue
        if cv2.contourArea(contour) < 0.8 * area:  # not a filled rectangle: a heap of touching tiles
            continue
        boxes.append(short_edge_first(cv2.boxPoints(((cx, cy), (w, h), angle))))
    return boxes


def count_pips(image_bgr: np.ndarray, corners: np.ndarray, config: BaselineConfig) -> tuple[int, int]:
    """Pips in the half at corners[0..1], then in the other half."""
    side = config.half_px
    face = rectify(image_bgr, corners, side, shrink_above=None)
    return _count_blobs(face[:, :side], config), _count_blobs(face[:, side:], config)


def _count_blobs(half_bgr: np.ndarray, config: BaselineConfig) -> int:
    hsv = cv2.cvtColor(half_bgr, cv2.COLOR_BGR2HSV)
    # A pip is darker than the face, or more coloured: either makes it stand out.
    ink = np.maximum(255 - hsv[:, :, 2], hsv[:, :, 1]).astype(np.uint8)
    margin = int(config.border * half_bgr.shape[1])
    ink = ink[margin:-margin, margin:-margin]
    _, marks = cv2.threshold(ink, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if ink.max() - ink.min() < 40:  # no contrast at all: a blank half
        return 0
    count, _, stats, _ = cv2.connectedComponentsWithStats(marks)
    area = ink.shape[0] * ink.shape[1]
    low, high = config.pip_area[0] * area, config.pip_area[1] * area
    return sum(1 for label in range(1, count) if low <= stats[label, cv2.CC_STAT_AREA] <= high)
