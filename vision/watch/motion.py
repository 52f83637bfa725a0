"""The stability gate: a change on the table counts only once the picture has been steady for a
while, and only against the last stable picture, so a hand or a sleeve passing over the table and
leaving nothing behind is no change at all (the karayaman chess reader's recipe: motion from frame
differences, then a few quiet frames, then a diff against the last stable frame).

Frames are compared small and grey, each scaled to the same mean brightness, so that the cost per
frame stays tiny and lights that flicker or drift as a whole do not count as motion.

>>> gate = MotionGate(MotionConfig(quiet_frames=2))
>>> table = np.full((120, 160, 3), 90, np.uint8)
>>> [gate.feed(table) is not None for _ in range(4)]  # the first stable picture is a change
[False, False, True, False]
>>> hand = table.copy(); hand[30:90, 40:100] = (120, 160, 220)
>>> [gate.feed(frame) is not None for frame in (hand, hand, table, table, table)]  # passes, leaves nothing
[False, False, False, False, False]
>>> laid = table.copy(); laid[50:60, 60:80] = 250
>>> changes = [gate.feed(frame) for frame in (hand, laid, laid, laid, laid)]
>>> [change is not None for change in changes], changes[3].regions
([False, False, False, True, False], ((60, 50, 22, 12),))
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np


class Phase(StrEnum):
    """Where the gate stands: nothing new (idle), something moving, quiet but not long enough
    (settling), or a new stable picture accepted (stable, until the next motion)."""

    IDLE = "idle"
    MOVING = "moving"
    SETTLING = "settling"
    STABLE = "stable"


@dataclass(frozen=True)
class MotionConfig:
    width: int = 160
    """Frames are compared at this width (the height keeps the aspect)."""
    pixel_change: float = 18.0
    """Grey levels (of 255, after the blur) that a small pixel must change by to count."""
    moving_share: float = 0.002
    """Share of the small frame changed since the previous frame that means something moves."""
    quiet_frames: int = 3
    """Frames in a row without motion before a picture counts as stable."""
    min_region_px: int = 4
    """Small pixels a changed region must cover to count (specks of noise do not)."""
    most_gain: float = 2.0
    """Each small frame is scaled to mid-grey, but by at most this much: a dark table scaled all the way
    lifts its camera noise above ``pixel_change`` and never looks still (3 of the 20 benchmark rounds, at
    mean grey 10-14, were never read before this cap)."""
    recheck_frames: int = 30
    """While idle, every this many frames the picture is compared with the stable one anyway: what
    changed without motion being seen (a slow nudge, a light switched) is still caught."""


MOTION_CONFIG = MotionConfig()


@dataclass(frozen=True)
class Change:
    """A new stable picture that differs from the last: where, as ``(x, y, width, height)`` boxes in
    the full frame's pixels, and how much of the frame changed."""

    regions: tuple[tuple[int, int, int, int], ...]
    share: float


class MotionGate:
    """Feed frames in order; ``feed`` answers a ``Change`` on the frame where a new stable picture,
    different from the last accepted one, is first known (the first stable picture is one)."""

    def __init__(self, config: MotionConfig = MOTION_CONFIG) -> None:
        self.config = config
        self.phase = Phase.MOVING
        self.previous: np.ndarray | None = None
        self.reference: np.ndarray | None = None
        self.quiet = 0
        self.scale = 1.0

    def feed(self, frame_bgr: np.ndarray) -> Change | None:
        small = self._small(frame_bgr)
        moved = self.previous is None or _share(_changed(small, self.previous, self.config.pixel_change)) > (
            self.config.moving_share
        )
        self.previous = small
        if moved:
            self.phase, self.quiet = Phase.MOVING, 0
            return None
        self.quiet += 1
        if self.phase in (Phase.IDLE, Phase.STABLE):
            self.phase = Phase.IDLE
            if self.quiet % self.config.recheck_frames:
                return None
        elif self.quiet < self.config.quiet_frames:
            self.phase = Phase.SETTLING
            return None
        change = self._against_reference(small)
        self.phase = Phase.IDLE if change is None else Phase.STABLE
        if change is not None:
            self.reference = small
        return change

    def reset(self) -> None:
        """Forget the stable picture: the next one is a change over the whole frame."""
        self.reference = None

    def _small(self, frame_bgr: np.ndarray) -> np.ndarray:
        height, width = frame_bgr.shape[:2]
        self.scale = width / self.config.width
        size = (self.config.width, max(1, round(height / self.scale)))
        grey = cv2.cvtColor(cv2.resize(frame_bgr, size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        grey = cv2.GaussianBlur(grey, (5, 5), 0).astype(np.float32)
        scaled: np.ndarray = grey * min(128.0 / max(float(grey.mean()), 1.0), self.config.most_gain)
        return scaled

    def _against_reference(self, small: np.ndarray) -> Change | None:
        if self.reference is None or self.reference.shape != small.shape:
            height, width = small.shape
            return Change(((0, 0, round(width * self.scale), round(height * self.scale)),), 1.0)
        mask = _changed(small, self.reference, self.config.pixel_change)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        regions = tuple(
            tuple(round(value * self.scale) for value in stats[label, :4])
            for label in range(1, count)
            if stats[label, cv2.CC_STAT_AREA] >= self.config.min_region_px
        )
        if not regions:
            return None
        return Change(regions, _share(mask))  # type: ignore[arg-type, unused-ignore]


def _changed(a: np.ndarray, b: np.ndarray, threshold: float) -> np.ndarray:
    mask: np.ndarray = (np.abs(a - b) > threshold).astype(np.uint8)
    return mask


def _share(mask: np.ndarray) -> float:
    return float(mask.mean())
