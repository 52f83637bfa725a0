"""Oracle stages for evaluation: one stage of the pipeline given the label's answer for the stages
before it, so that its own errors are measured alone."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from datasets.labels import FACE_UP, LabelledImage
from models import COUNTER, PIP_PEAKS
from vision.exposure import brightened
from vision.geometry import HALF_IN_FRAME, is_cut
from vision.observation import Observation, Sighting
from vision.read.pip_reader import PipReader


class PipsOnTrueCorners:
    """The pip reader alone, given the labelled corners of the face-up tiles: isolates the pip stage.
    Its tiles are the label's face-up ones, in the label's order. The face-down and standing tiles of
    a synthetic label are not read: read, a plain back counted as a blank double and a standing tile's
    face as whatever it showed, and their halves swayed the set judged from the photo (the seed-10
    hands totalled 372 of 400 so, 388 on the face-up tiles alone)."""

    def __init__(self, counter: Path = COUNTER, highest: int | None = None, peaks: Path | None = PIP_PEAKS) -> None:
        self.reader = PipReader(counter, in_frame=HALF_IN_FRAME, peaks=peaks)  # corners known exactly: the label's
        self.highest = highest

    def __call__(self, image_bgr: np.ndarray, label: LabelledImage) -> Observation:
        start = time.perf_counter()
        image_bgr = brightened(image_bgr)  # as the whole pipeline reads it
        corners = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
        readings = self.reader.read(image_bgr, corners, self.highest)
        height, width = image_bgr.shape[:2]
        tiles = tuple(
            Sighting(quad, reading.pips, min(reading.confidence), reading.why, is_cut(quad, width, height))
            for quad, reading in zip(corners, readings, strict=True)
        )
        elapsed_ms = (time.perf_counter() - start) * 1000
        return Observation(tiles, width, height, timings_ms={"pips": elapsed_ms, "total": elapsed_ms})
