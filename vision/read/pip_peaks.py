"""Counting a half's pips as the peaks of a pip-centre heatmap (issue 67's counter; not yet in the pipeline).

The network (``models/pip-heatmap``, trained by ``models.train.pip_heatmap``) maps a ``(px, px)`` half to a
``(px / STEP, px / STEP)`` heatmap of how likely each place is a pip's centre. A peak is a place at least
as high as its eight neighbours (a 3x3 max filter, as CenterNet suppresses neighbours); the count is the
number of peaks at THRESHOLD or above. A peak within UNSURE_BAND of the threshold could go either way, so
the half is unsure: it is reported so, never guessed. No layout is learnt: the count is found pips.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_session import as_input, cpu_session

STEP = 2
"""Half pixels per heatmap place: place j's centre is pixel ``STEP * j + (STEP - 1) / 2``."""
THRESHOLD = 0.45
"""A peak this high (sigmoid) or higher is a pip: chosen with UNSURE_BAND on the cache's val halves by
``benchmarks.pip_heatmap_band`` (the most halves right among settings right when sure at least 0.97)."""
UNSURE_BAND = (0.3, 0.6)
"""A peak whose height lies inside this band makes its half unsure (``benchmarks.pip_heatmap_band``)."""


@dataclass(frozen=True)
class PeakCount:
    """One half's reading: its count, whether a peak lay near the threshold, and the peaks themselves."""

    count: int
    unsure: bool
    peaks: np.ndarray
    """``(k, 3)`` float32: x, y (half pixels) and height of every peak above the band's low end."""


def peak_mask(heatmaps: np.ndarray) -> np.ndarray:
    """``(n, h, w)`` bool: the places at least as high as each of their eight neighbours (``heatmaps`` is
    ``(n, h, w)`` float). Equal neighbours are both peaks: a float heatmap has no plateaus to speak of."""
    maps = np.asarray(heatmaps, np.float32)
    if maps.ndim != 3:
        raise ValueError(f"heatmaps must be (n, h, w), got shape {maps.shape}")
    kernel = np.ones((3, 3), np.uint8)
    highest = np.stack([cv2.dilate(one, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0.0) for one in maps])
    return (maps >= highest) & (maps > 0)


def count_peaks(
    heatmaps: np.ndarray, threshold: float = THRESHOLD, band: tuple[float, float] = UNSURE_BAND
) -> tuple[np.ndarray, np.ndarray]:
    """``(n,)`` counts (peaks at ``threshold`` or higher) and ``(n,)`` whether any peak lies inside ``band``."""
    low, high = band
    if not low <= threshold <= high:
        raise ValueError(f"the unsure band {band} must hold the threshold {threshold}")
    maps = np.asarray(heatmaps, np.float32)
    peaks = peak_mask(maps)
    counts = (peaks & (maps >= threshold)).sum(axis=(1, 2))
    unsure = (peaks & (maps > low) & (maps < high)).any(axis=(1, 2))
    return counts.astype(np.int64), unsure


def peaks_of(heatmap: np.ndarray, low: float = UNSURE_BAND[0]) -> np.ndarray:
    """``(k, 3)`` x, y (half pixels) and height of one ``(h, w)`` heatmap's peaks above ``low``, highest first."""
    peaks = peak_mask(heatmap[None])[0] & (heatmap > low)
    ys, xs = np.nonzero(peaks)
    found = np.stack([xs * STEP + (STEP - 1) / 2, ys * STEP + (STEP - 1) / 2, heatmap[ys, xs]], axis=1)
    return found[np.argsort(-found[:, 2])].astype(np.float32)


class PipPeakReader:
    """The heatmap network at ``model_path`` (ONNX: input ``halves`` ``(n, 3, px, px)`` float 0-1 BGR, output
    ``heatmap`` ``(n, 1, px / STEP, px / STEP)`` probabilities), run by onnxruntime."""

    def __init__(self, model_path: Path, threshold: float = THRESHOLD, band: tuple[float, float] = UNSURE_BAND) -> None:
        self.session = cpu_session(model_path, "pip heatmap")
        self.threshold, self.band = threshold, band
        self.half_px = int(self.session.get_inputs()[0].shape[2])

    def heatmaps(self, halves: np.ndarray, chunk: int = 512) -> np.ndarray:
        """``(n, h, w)`` float32 heatmaps of ``(n, px, px, 3)`` uint8 BGR halves."""
        if len(halves) and halves.shape[1:3] != (self.half_px, self.half_px):
            raise ValueError(f"the pip heatmap reads {self.half_px} px halves, got {halves.shape[1:3]}")
        side = self.half_px // STEP
        parts = [np.zeros((0, side, side), np.float32)]
        for start in range(0, len(halves), chunk):
            (maps,) = self.session.run(None, {"halves": as_input(halves[start : start + chunk])})
            parts.append(maps[:, 0].astype(np.float32))
        return np.concatenate(parts)

    def count(self, halves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(n,)`` counts and ``(n,)`` unsure flags (``count_peaks``)."""
        return count_peaks(self.heatmaps(halves), self.threshold, self.band)

    def read(self, halves: np.ndarray) -> list[PeakCount]:
        maps = self.heatmaps(halves)
        counts, unsure = count_peaks(maps, self.threshold, self.band)
        return [
            PeakCount(int(count), bool(doubt), peaks_of(one, self.band[0]))
            for count, doubt, one in zip(counts, unsure, maps, strict=True)
        ]
