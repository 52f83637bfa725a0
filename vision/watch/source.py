"""Where frames come from: a video file or a camera, opened with OpenCV. One that cannot be opened
is a ``SourceError`` naming it; one that stops giving frames ends the stream (a clean stop: the
watcher still says the state so far)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

DEFAULT_FPS = 15.0
"""Frames per second where the source does not say (a camera that reports 0, a bare stream)."""


class SourceError(Exception):
    """A video or camera that cannot be read at all."""


@dataclass
class FrameSource:
    """Frames in order, each with its index and time in seconds (from the index and ``fps``)."""

    capture: cv2.VideoCapture
    name: str
    fps: float
    live: bool

    def frames(self) -> Iterator[tuple[int, float, np.ndarray]]:
        index = 0
        try:
            while True:
                ok, frame = self.capture.read()
                if not ok or frame is None or frame.ndim != 3:
                    return
                yield index, index / self.fps, frame
                index += 1
        finally:
            self.capture.release()


def open_video(path: Path) -> FrameSource:
    """A video file; ``SourceError`` where it is missing or no frame of it can be decoded."""
    if not path.is_file():
        raise SourceError(f"{path}: no such video file")
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise SourceError(f"{path}: not a video OpenCV can open (expected e.g. an MP4 or AVI file)")
    return FrameSource(capture, str(path), _fps(capture), live=False)


def open_camera(number: int) -> FrameSource:
    """Camera ``number`` (0: the first); ``SourceError`` where it cannot be opened."""
    capture = cv2.VideoCapture(number)
    if not capture.isOpened():
        capture.release()
        raise SourceError(f"camera {number} cannot be opened (is it connected, and not in use by another program?)")
    return FrameSource(capture, f"camera {number}", _fps(capture), live=True)


def _fps(capture: cv2.VideoCapture) -> float:
    fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
    return fps if 1.0 <= fps <= 240.0 else DEFAULT_FPS
