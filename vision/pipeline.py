"""A hand photo in, its tiles and total out: the detector, then the pip reader.

Only face-up tiles count (the detector also knows face-down and standing ones); a
tile partly outside the frame is flagged ``cut``; a tile the reader is unsure of is
listed as uncertain and left out of the total rather than guessed.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from vision.data.labels import LabelledImage
from vision.detect.onnx_obb import OBBDetector
from vision.eval.metrics import PredictedTile, Prediction
from vision.read.pip_reader import PipReader

MODELS = Path(__file__).resolve().parents[1] / "models"
DETECTOR = MODELS / "tile-detector" / "model.onnx"
COUNTER = MODELS / "pip-counter" / "model.onnx"
FACE_UP_CLASS = 0
DETECT_CONFIDENCE, DETECT_NMS_IOU = 0.35, 0.3
"""Chosen on synthetic hands by benchmarks/detector_thresholds.py (tiles in a hand never lie on
one another, so boxes that overlap at all are suppressed)."""


class HandScorer:
    """Load the models once; call with a BGR image."""

    def __init__(self, detector: Path = DETECTOR, counter: Path = COUNTER, highest: int | None = None) -> None:
        self.detector = OBBDetector(detector, conf=DETECT_CONFIDENCE, iou=DETECT_NMS_IOU)
        self.reader = PipReader(counter)
        self.highest = highest

    def __call__(self, image_bgr: np.ndarray, label: LabelledImage | None = None) -> Prediction:
        """Score a photo (``label`` is accepted for the evaluation harness and ignored)."""
        start = time.perf_counter()
        found = self.detector(image_bgr)
        face_up = found.classes == FACE_UP_CLASS
        corners = list(found.corners[face_up])
        scores = found.scores[face_up]
        detected = time.perf_counter()
        readings = self.reader.read(image_bgr, corners, self.highest)
        done = time.perf_counter()
        tiles = tuple(
            PredictedTile(quad, reading.pips, float(min(score, *reading.confidence)), reading.uncertain)
            for quad, score, reading in zip(corners, scores, readings, strict=True)
        )
        total = sum(sum(tile.pips) for tile in tiles if tile.pips and not tile.uncertain)
        timings = {
            "detect": (detected - start) * 1000,
            "pips": (done - detected) * 1000,
            "total": (done - start) * 1000,
        }
        return Prediction(tiles, total=total, timings_ms=timings)


class PipsOnTrueCorners:
    """The pip reader alone, given the labelled corners of the face-up tiles: isolates the pip stage."""

    def __init__(self, counter: Path = COUNTER, highest: int | None = None) -> None:
        self.reader = PipReader(counter)
        self.highest = highest

    def __call__(self, image_bgr: np.ndarray, label: LabelledImage) -> Prediction:
        start = time.perf_counter()
        corners = [tile.corners for tile in label.tiles]
        readings = self.reader.read(image_bgr, corners, self.highest)
        tiles = tuple(
            PredictedTile(quad, reading.pips, min(reading.confidence), reading.uncertain)
            for quad, reading in zip(corners, readings, strict=True)
        )
        total = sum(sum(tile.pips) for tile in tiles if tile.pips and not tile.uncertain)
        elapsed_ms = (time.perf_counter() - start) * 1000
        return Prediction(tiles, total=total, timings_ms={"pips": elapsed_ms, "total": elapsed_ms})
