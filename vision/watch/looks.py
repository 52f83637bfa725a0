"""How a tile's place looked when the watcher accepted the tile, to tell later whether it is still there.

A table reading sometimes misses a train's last tile (a poor frame, a shadow, a sleeve at the edge of
it); taking the tile back on such a reading is a false event. A tile taken back leaves its place
looking as the table did before: most of the patch changes. A tile still there keeps its patch, up
to the camera's shake and the light's drift, which the comparison allows for.

>>> grey = np.full((100, 200), 90, np.uint8); grey[40:60, 80:120] = 230
>>> look = TileLook.of(grey, np.array([[80, 40], [120, 40], [120, 60], [80, 60]]))
>>> look.still_there(np.roll(grey, 1, axis=1)), look.still_there(np.full((100, 200), 90, np.uint8))
(True, False)
>>> dark = grey // 9  # a dark table: its camera noise is many times a share of its mean brightness
>>> noisy = dark + np.random.default_rng(0).integers(0, 8, dark.shape).astype(np.uint8)
>>> TileLook.of(dark, np.array([[80, 40], [120, 40], [120, 60], [80, 60]])).still_there(noisy)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

GREY_CHANGE = 0.18
"""A pixel differs when it moved this share of the frame's mean brightness (after a blur that forgives
the shake of a clamped camera)..."""
LEAST_GREY_CHANGE = 12.0
"""...and at least this many grey levels: on a dark table a share of the mean is within the camera's noise."""
GONE_SHARE = 0.4
"""Share of the tile's patch that must differ for the tile to be gone."""


def table_grey(frame_bgr: np.ndarray) -> np.ndarray:
    """The frame in grey, blurred a little: what ``TileLook`` compares."""
    grey = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    blurred: np.ndarray = cv2.GaussianBlur(grey, (5, 5), 0)
    return blurred


@dataclass(frozen=True)
class TileLook:
    box: tuple[int, int, int, int]
    """(x0, y0, x1, y1) in the frame's pixels: the tile's corners' bounds."""
    patch: np.ndarray
    """The grey patch in ``box``, divided by the frame's mean brightness."""

    @staticmethod
    def of(grey: np.ndarray, corners: np.ndarray) -> TileLook:
        height, width = grey.shape
        x0, y0 = np.floor(corners.min(axis=0)).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
        box = (max(0, int(x0)), max(0, int(y0)), min(width, int(x1)), min(height, int(y1)))
        return TileLook(box, _patch(grey, box))

    def still_there(self, grey: np.ndarray) -> bool:
        now = _patch(grey, self.box)
        if now.size == 0 or now.shape != self.patch.shape:
            return False
        change = max(GREY_CHANGE, LEAST_GREY_CHANGE / max(float(grey.mean()), 1.0))
        return float((np.abs(now - self.patch) > change).mean()) < GONE_SHARE


def _patch(grey: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = box
    mean = max(float(grey.mean()), 1.0)
    patch: np.ndarray = grey[y0:y1, x0:x1].astype(np.float32) / mean
    return patch
