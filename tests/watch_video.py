"""A short rendered round for the live watcher's tests (the service's WebSocket and the page): two tiles
laid by two players, one hand passing over the table first, rendered once per test run by the video
renderer (``datasets.synth.video``, the lab's: tests are not run time) and kept as the JPEG frames a
page streaming at 5 frames a second would send."""

from __future__ import annotations

import functools
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

SEED = 3
"""Two players, engine 11, seat 1 starts: 11-6 on seat 1's train, then 11-9 on the Mexican train (both
legal), after a hand passing over the empty table; 165 frames at 15 frames a second."""
STEP = 3
"""Every third frame: the 15 frames a second of the video as a page sending 5 a second sees them."""
SIZE = (1280, 720)


@dataclass(frozen=True)
class RenderedRound:
    manifest: dict[str, Any]
    truth: list[dict[str, Any]]
    seats: dict[str, Any]
    frames: list[bytes]
    """JPEG frames, every ``STEP``-th of the video."""

    @property
    def plays(self) -> list[dict[str, Any]]:
        return [line for line in self.truth if line["event"] == "play"]

    def game(self) -> dict[str, Any]:
        """``POST /games``'s body for the round rendered."""
        players = self.manifest["players"]
        return {"rules": {"players": players, "set": self.manifest["set"]},
                "names": ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"][:players],
                "engine": self.manifest["engine"], "starter": self.manifest["starter"]}  # fmt: skip

    def images(self) -> list[np.ndarray]:
        return [cv2.imdecode(np.frombuffer(frame, np.uint8), cv2.IMREAD_COLOR) for frame in self.frames]


@functools.cache
def rendered_round() -> RenderedRound:
    from datasets.synth.video import VideoOptions, make_video

    with tempfile.TemporaryDirectory(prefix="hubcam-watch-") as folder:
        path = Path(folder) / "round.mp4"
        made = make_video(SEED, SIZE, VideoOptions(players=2, plays=2), path)
        capture = cv2.VideoCapture(str(path))
        frames: list[bytes] = []
        index = 0
        while True:
            ok, image = capture.read()
            if not ok:
                break
            if index % STEP == 0:
                frames.append(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes())
            index += 1
        capture.release()
    made = json.loads(json.dumps(made))  # plain JSON, as the files hold it
    return RenderedRound(made["manifest"], made["truth"], made["seats"], frames)
