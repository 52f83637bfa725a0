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

from dataclasses import dataclass, replace
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
    """Frames are compared at this width (the height keeps the aspect)..."""
    tile_small_px: float = 8.0
    """...or wider, up to ``most_width``, so that a tile is this many small pixels long once the watcher
    has told the tiles' size: a tile of a far table, and its marker, must not vanish in the blur."""
    most_width: int = 480
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
    again_frames: int = 6
    """Frames between readings the watcher asks for again (a reading costs a few hundred ms)."""
    edge_patience: int = 45
    """Quiet frames a change touching the picture's edge waits before it counts: an arm reaching in
    crosses the edge and often rests still while a tile is set down; a tile does not reach the edge.
    A change still at the edge this long after (a cup put down there, a train run off the picture)
    counts all the same. An arm inside the picture is waited for as long. Both are counted since the
    last stable picture (``MotionGate.held``)."""
    arm_tiles: float = 8.0
    """A change covering this many tiles' faces or more that reaches the picture's edge is an arm, waited
    for; a smaller one is a tile laid at the edge."""
    arm_long_tiles: float = 4.0
    """A change as large that ends inside the picture is an arm too where it is this many tile lengths
    long (a sleeve that blends into the table, a camera far above a wide table); a tile laid, blurred
    with its shadow, is not."""
    camera_moved_px: float = 1.5
    """Small pixels the whole picture shifted by that mean the camera moved (the shake of a clamped camera
    is under one)."""


MOTION_CONFIG = MotionConfig()


@dataclass(frozen=True)
class Change:
    """A new stable picture that differs from the last: where, as ``(x, y, width, height)`` boxes in
    the full frame's pixels, and how much of the frame changed."""

    regions: tuple[tuple[int, int, int, int], ...]
    share: float
    arm: Arm | None = None
    """The arm seen reaching farthest in on the way to this picture: the player who changed it."""


@dataclass(frozen=True)
class Arm:
    """An arm reaching into the picture, in full-frame pixels: where it crosses the picture's edge
    (the side of the table its player sits on) and the point of it farthest in (the hand)."""

    crossing: tuple[float, float]
    hand: tuple[float, float]
    at_edge: bool = True
    """Whether it reaches the picture's edge (else it is an arm by its length alone)."""

    @property
    def reach(self) -> float:
        return float(np.hypot(self.hand[0] - self.crossing[0], self.hand[1] - self.crossing[1]))


class MotionGate:
    """Feed frames in order; ``feed`` answers a ``Change`` on the frame where a new stable picture,
    different from the last accepted one, is first known (the first stable picture is one)."""

    def __init__(self, config: MotionConfig = MOTION_CONFIG) -> None:
        self.config = config
        self.phase = Phase.MOVING
        self.previous: np.ndarray | None = None
        self.reference: np.ndarray | None = None
        self.quiet = 0
        self.held = 0
        """Quiet frames an arm was waited for since the last stable picture, motion between too: where
        that picture caught a hand at rest, its place looks like an arm against every later picture, and
        players who lay a tile every 3 s would otherwise never let it count."""
        self.again: int | None = None
        """The frame from which a quiet picture is a change anyway (``read_again``)."""
        self.frames = 0
        self.scale = 1.0
        self.content: tuple[int, int, int, int] | None = None
        """The picture's part inside black bars (a letterboxed video), as (x0, y0, x1, y1) small pixels."""
        self.tile_px = 0.0
        """The tiles' length in full-frame pixels, told by the watcher once it has read them (0 until
        then, ``tell_tile``): an arm is told from a tile by it, and the frames' width is chosen by it."""
        self.width = config.width
        self.stable_frame: np.ndarray | None = None
        """The last stable picture at full size: made small again when the width changes (not the next
        picture, which may hold an arm)."""
        self.arm: Arm | None = None
        """The arm seen reaching farthest in since the stable picture."""

    def feed(self, frame_bgr: np.ndarray) -> Change | None:
        self.frames += 1
        small = self._small(frame_bgr)
        moved = self.previous is None or _share(_changed(small, self.previous, self.config.pixel_change)) > (
            self.config.moving_share
        )
        self.previous = small
        if moved:
            self.phase, self.quiet = Phase.MOVING, 0
            if self.reference is not None:
                self._reaching(self._arm(small))
            return None
        self.quiet += 1
        if self.phase in (Phase.IDLE, Phase.STABLE):
            self.phase = Phase.IDLE
            again = self.again is not None and self.frames >= self.again
            if self.quiet % self.config.recheck_frames and not again:
                return None
        elif self.quiet < self.config.quiet_frames:
            self.phase = Phase.SETTLING
            return None
        change = self._against_reference(small)
        arm = None if change is None or self.reference is None else self._arm(small)
        if arm is not None and self.held < self.config.edge_patience:
            self._reaching(arm)
            self.held += 1  # an arm still in the picture: wait for it to leave
            self.phase = Phase.SETTLING
            return None
        if change is None and self.again is not None and self.frames >= self.again:
            height, width = small.shape
            change = Change(((0, 0, round(width * self.scale), round(height * self.scale)),), 0.0)
        self.phase = Phase.IDLE if change is None else Phase.STABLE
        self.held, self.again = 0, None
        if change is not None:
            self.reference, self.stable_frame = small, frame_bgr
            change = replace(change, arm=self.arm)
        self.arm = None
        return change

    def _reaching(self, arm: Arm | None) -> None:
        if arm is not None and (self.arm is None or arm.reach > self.arm.reach):
            self.arm = arm

    def tell_tile(self, length_px: float, frame_width: int) -> None:
        """The tiles are ``length_px`` long in frames ``frame_width`` wide. Where the small frames would
        change width by more than a quarter, they are made at the new width from here on, the stable
        picture too."""
        self.tile_px = length_px
        wanted = self.config.tile_small_px * frame_width / max(length_px, 1.0)
        width = int(np.clip(wanted, self.config.width, min(self.config.most_width, frame_width)))
        if abs(width - self.width) > self.width / 4:
            self.width, self.previous, self.content = width, None, None
            if self.stable_frame is not None:
                self.reference = self._small(self.stable_frame)

    def read_again(self) -> None:
        """Answer a quiet picture ``again_frames`` from now as a change even if nothing changed (the
        reader wants another look); the stable picture is kept, so an arm still in view is waited for
        as ever."""
        self.again = self.frames + self.config.again_frames

    def _camera_moved(self, now: np.ndarray, before: np.ndarray, changed: int) -> bool:
        """Whether the whole picture shifted: by phase correlation, and the shift explains the change
        (``changed`` small pixels; on a cloth of dots or stripes the correlation finds shifts that do not)."""
        (dx, dy), _ = cv2.phaseCorrelate(before, now)
        if np.hypot(dx, dy) < self.config.camera_moved_px:
            return False
        height, width = now.shape
        moved = cv2.warpAffine(
            before, np.float32([[1, 0, dx], [0, 1, dy]]), (width, height), borderMode=cv2.BORDER_REPLICATE
        )
        return int(_changed(now, moved, self.config.pixel_change).sum()) < changed / 2

    def _small(self, frame_bgr: np.ndarray) -> np.ndarray:
        height, width = frame_bgr.shape[:2]
        self.scale = width / self.width
        size = (self.width, max(1, round(height / self.scale)))
        grey = cv2.cvtColor(cv2.resize(frame_bgr, size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        if self.content is None:
            self.content = _inside_bars(grey)
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

    def _arm(self, small: np.ndarray) -> Arm | None:
        """A changed region as large as an arm that reaches the picture's edge (inside any black bars),
        or as long as one; None where none is, or the picture itself shifted (the camera moved: that
        counts at once).
        A tile laid at the edge is smaller than an arm once the watcher has told the tiles' size."""
        assert self.reference is not None and self.content is not None
        left, top, right, bottom = self.content
        changed = _changed(small, self.reference, self.config.pixel_change)[top:bottom, left:right]
        mask = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))  # an arm in pieces is one arm
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        edge = np.zeros(labels.shape, bool)
        edge[:2], edge[-2:], edge[:, :2], edge[:, -2:] = True, True, True, True
        tile = self.tile_px / self.scale
        least = max(self.config.min_region_px, self.config.arm_tiles * tile * tile / 2)
        at_edge = set(labels[edge].tolist())
        arms = [
            label
            for label in range(1, count)
            if stats[label, cv2.CC_STAT_AREA] >= least
            and (label in at_edge or (tile > 0 and _length(labels == label) >= self.config.arm_long_tiles * tile))
        ]
        if not arms:
            return None
        if self._camera_moved(
            small[top:bottom, left:right], self.reference[top:bottom, left:right], int(changed.sum())
        ):
            return None
        largest = max(arms, key=lambda label: stats[label, cv2.CC_STAT_AREA])
        rows, columns = np.nonzero(labels == largest)
        points = np.stack([columns + left, rows + top], axis=1).astype(np.float64)
        if largest in at_edge:
            rows, columns = np.nonzero(edge & (labels == largest))
            crossing = np.array([columns.mean() + left, rows.mean() + top])
        else:  # the arm's end nearest the picture's edge is where it comes from
            to_edge = np.minimum.reduce(
                [points[:, 0] - left, right - 1 - points[:, 0], points[:, 1] - top, bottom - 1 - points[:, 1]]
            )
            crossing = points[int(np.argmin(to_edge))]
        hand = points[int(np.argmax(np.linalg.norm(points - crossing, axis=1)))]
        return Arm(tuple(crossing * self.scale), tuple(hand * self.scale), largest in at_edge)  # type: ignore[arg-type]


def _length(region: np.ndarray) -> float:
    """The long side of the rotated box round a region's pixels."""
    rows, columns = np.nonzero(region)
    (_, _), (width, height), _ = cv2.minAreaRect(np.stack([columns, rows], axis=1).astype(np.float32))
    return float(max(width, height))


def _inside_bars(grey: np.ndarray) -> tuple[int, int, int, int]:
    """The box inside rows and columns that are black all along (a letterbox's bars)."""
    lit_rows, lit_columns = np.flatnonzero(grey.max(axis=1) > 6), np.flatnonzero(grey.max(axis=0) > 6)
    if not len(lit_rows) or not len(lit_columns):
        return 0, 0, grey.shape[1], grey.shape[0]
    return int(lit_columns[0]), int(lit_rows[0]), int(lit_columns[-1]) + 1, int(lit_rows[-1]) + 1


def _changed(a: np.ndarray, b: np.ndarray, threshold: float) -> np.ndarray:
    mask: np.ndarray = (np.abs(a - b) > threshold).astype(np.uint8)
    return mask


def _share(mask: np.ndarray) -> float:
    return float(mask.mean())
