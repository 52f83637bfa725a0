"""A hand photo in, its tiles and total out: the detector, the tile verifier, then the pip reader.

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
from vision.detect.verify import TileVerifier, Weighing, choose_verified
from vision.eval.metrics import PredictedTile, Prediction
from vision.read.pip_reader import PipReader

MODELS = Path(__file__).resolve().parents[1] / "models"
DETECTOR = MODELS / "tile-detector" / "model.onnx"
COUNTER = MODELS / "pip-counter" / "model.onnx"
VERIFIER = MODELS / "tile-verifier" / "model.onnx"
FACE_UP_CLASS = 0
DETECTOR_SIZE = 448
"""The detector's input (pixels, square) at run time, chosen on synthetic hands by
benchmarks/detector_size.py among the sizes that keep the run-time budget: it learnt at 320
and then 416, and finds small and crowded tiles more surely seen larger."""
DETECT_CONFIDENCE, DETECT_NMS_IOU = 0.25, 0.3
"""The detector alone (no verifier): chosen on synthetic hands by benchmarks/detector_thresholds.py."""
WEIGHING = Weighing(weight=0.5, keep=0.2, iou=0.3, trusted=0.7)
"""With the verifier: the detector proposes more, and looser, boxes than it would keep alone;
each box's score becomes ``detector ** (1 - weight) * verifier ** weight`` (real tiles the
detector doubted, at 0.04-0.2, were often plain to the verifier; boxes the detector is
``trusted`` or surer of keep at least their own score), overlapping boxes are suppressed by that
score and those scoring ``keep`` or more are kept (chosen on synthetic hands by
benchmarks/verifier_thresholds.py; tiles in a hand never lie on one another, so ``iou``
suppresses boxes that overlap at all)."""
PROPOSAL_NMS_IOU = 0.7
PROPOSAL_CONFIDENCE = WEIGHING.least_keepable()
"""0.04: a box the detector is less sure of scores below the keep score whatever the verifier says,
so it is never kept and can only suppress boxes scoring lower still; proposing it would only
cost a verifier crop (the benchmark's lower proposal confidences choose the same tiles)."""


class HandScorer:
    """Load the models once; call with a BGR image."""

    def __init__(
        self,
        detector: Path = DETECTOR,
        counter: Path = COUNTER,
        highest: int | None = None,
        verifier: Path | None = VERIFIER,
        detector_size: int = DETECTOR_SIZE,
    ) -> None:
        """``verifier=None``: the detector's boxes as it keeps them alone."""
        if verifier is None:
            self.detector = OBBDetector(detector, detector_size, conf=DETECT_CONFIDENCE, iou=DETECT_NMS_IOU)
            self.verifier = None
        else:
            self.detector = OBBDetector(detector, detector_size, conf=PROPOSAL_CONFIDENCE, iou=PROPOSAL_NMS_IOU)
            self.verifier = TileVerifier(verifier)
        self.reader = PipReader(counter)
        self.highest = highest

    def find_tiles(self, image_bgr: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
        """The face-up tiles' corners and scores, best first."""
        found = self.detector(image_bgr)
        face_up = found.classes == FACE_UP_CLASS
        corners, scores = found.corners[face_up], found.scores[face_up]
        if self.verifier is not None:

            def verify(boxes: np.ndarray) -> np.ndarray:
                return self.verifier(image_bgr, list(corners[boxes]))

            kept, scores = choose_verified(corners, scores, verify, WEIGHING)
            corners = corners[kept]
        return list(corners), scores

    def __call__(self, image_bgr: np.ndarray, label: LabelledImage | None = None) -> Prediction:
        """Score a photo (``label`` is accepted for the evaluation harness and ignored)."""
        start = time.perf_counter()
        corners, scores = self.find_tiles(image_bgr)
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
