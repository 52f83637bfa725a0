"""A second look at each box the detector finds: is it exactly one tile's face?

On real photos most wrong totals came from boxes that are not one tile: a box over the
near halves of two touching tiles, a box over one half, a box turned across a tile. The
detector sees the whole photo shrunk (448 px across); the verifier sees each box rectified at full
resolution with a margin of its surroundings, where a divider across the middle and a
tile's edges just inside the box tell a tile from a straddle. Its answer is weighed with
the detector's (``Weighing``) before boxes that overlap are suppressed, so a straddling
box gives way to the true tiles beneath it when the detector also proposed them, and a
tile the detector doubted is kept when the verifier is sure of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.detect.refine import Placed
from vision.onnx_session import as_input, cpu_session, probabilities_of

TILE_PX = 24
"""The tile's short side in the crop (its long side is twice that)."""
MARGIN_PX = 8
"""Surroundings kept on every side: whether the box's edges are the tile's edges shows there."""
CROP_SHAPE = (TILE_PX + 2 * MARGIN_PX, 2 * TILE_PX + 2 * MARGIN_PX)
"""(height, width) of a crop: 40 x 64."""


def crop_box(image_bgr: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The box rectified with corners[0..1] on the left and MARGIN_PX of its surroundings, its
    long side 2 * TILE_PX and its short side in proportion: a box as wide as it is long (over one
    half) stays square, so the verifier sees its shape as well as what it holds."""
    corners = np.asarray(corners, np.float32)
    short = float(np.linalg.norm(corners[1] - corners[0]))
    long = max(float(np.linalg.norm(corners[2] - corners[1])), 1e-6)
    height, width = CROP_SHAPE
    side = 2 * TILE_PX * short / long  # TILE_PX for a tile seen square on
    left, right = MARGIN_PX, MARGIN_PX + 2 * TILE_PX
    top, bottom = (height - side) / 2, (height + side) / 2
    target = np.array([[left, bottom], [left, top], [right, top], [right, bottom]], np.float32)
    H = cv2.getPerspectiveTransform(corners, target)
    return cv2.warpPerspective(image_bgr, H, (width, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def crop_boxes(image_bgr: np.ndarray, corners: Sequence[np.ndarray]) -> np.ndarray:
    """``(n, 40, 64, 3)`` uint8 crops of every box."""
    crops = [crop_box(image_bgr, quad) for quad in corners]
    return np.stack(crops) if crops else np.zeros((0, *CROP_SHAPE, 3), np.uint8)


class TileVerifier:
    """Load once; ``(image, boxes)`` in, the probability that each box is one face-up tile out."""

    def __init__(self, model_path: Path) -> None:
        self.session = cpu_session(model_path, "tile verifier")

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """``(n,)`` probability of "one tile" for ``(n, 40, 64, 3)`` uint8 BGR crops."""
        if len(crops) == 0:
            return np.zeros(0, np.float32)
        (logits,) = self.session.run(None, {"crops": as_input(crops)})
        return probabilities_of(logits)

    def __call__(self, image_bgr: np.ndarray, corners: Sequence[np.ndarray]) -> np.ndarray:
        return self.probabilities(crop_boxes(image_bgr, corners))

    def judge(self, image_bgr: np.ndarray, corners: Sequence[np.ndarray], placed: Placed) -> np.ndarray:
        """``__call__``, as the box refiner's verdict is asked (``vision.detect.refine.BoxRefiner.judge``):
        the verifier places no tile, so ``placed`` is left as it is."""
        return self(image_bgr, corners)


def suppress(corners: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of the boxes kept by rotated non-maximum suppression, best score first."""
    return _suppress(_rects(corners), scores, iou, 0.0)


def _rects(corners: np.ndarray) -> list[Any]:
    return [cv2.minAreaRect(np.asarray(quad, np.float32)) for quad in corners]


def _suppress(rects: list[Any], scores: np.ndarray, iou: float, floor: float) -> np.ndarray:
    """``suppress`` on rotated rectangles; boxes scoring below ``floor`` are left out (they could
    only have suppressed boxes scoring lower still)."""
    if len(scores) == 0:
        return np.zeros(0, int)
    kept = np.array(cv2.dnn.NMSBoxesRotated(rects, [float(s) for s in scores], floor, iou), dtype=int).reshape(-1)
    return kept[np.argsort(-scores[kept])]


@dataclass(frozen=True)
class Weighing:
    """How the detector's score and the verifier's answer make a box's score, and which boxes stay."""

    weight: float
    """The verifier's share: a box scores ``detector ** (1 - weight) * verifier ** weight`` ..."""
    keep: float
    """... and is kept when it scores this or more ..."""
    iou: float
    """... and no better box overlaps it by this IoU."""
    trusted: float = 1.0
    """A box the detector is at least this sure of scores no less than the detector says: the
    verifier only arbitrates boxes the detector doubts. In packed rows of dark tiles the verifier
    turned away boxes the detector was sure of and right about (neighbours pressed against a tile
    look like the straddling boxes it learns to reject). 1.0: the verifier always weighs in."""
    trusted_shape: float = 0.0
    """... and only a box whose long sides are at least this many times its short ones. A box over
    one half of a tile is near square, and the detector can be sure of one: in a real photo turned
    round (benchmarks/real_variants.py) a half-box it scored 0.75, which the verifier rejected,
    outscored the whole tile's box (0.53, the verifier sure of it) and suppressed it. 0.0: any shape."""

    def trusts(self, scores: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """``(n,)`` bool: the boxes that keep at least the detector's score (``trusted``, ``trusted_shape``)."""
        sure = scores >= self.trusted
        if self.trusted_shape > 0 and sure.any():
            sure &= side_ratios(corners) >= self.trusted_shape
        return sure

    def combine(self, scores: np.ndarray, said: np.ndarray, trusted: np.ndarray) -> np.ndarray:
        """Each box's score from the detector's ``scores`` and what the verifier ``said`` (``trusted``:
        the boxes that keep at least the detector's score, as ``trusts`` tells them)."""
        combined = scores ** (1 - self.weight) * said**self.weight
        return np.where(trusted, np.maximum(combined, scores), combined)

    def bound(self, scores: np.ndarray) -> np.ndarray:
        """The most a box can score whatever the verifier says (it saying 1)."""
        return scores ** (1 - self.weight)

    def least_keepable(self) -> float:
        """The detector score below which a box scores under ``keep`` whatever the verifier says
        (where ``bound`` reaches ``keep``)."""
        return float(self.keep ** (1 / (1 - self.weight)))


def choose_tiles(
    corners: np.ndarray, scores: np.ndarray, said: np.ndarray, weighing: Weighing
) -> tuple[np.ndarray, np.ndarray]:
    """The boxes kept, best first, and every box's score (``Weighing``)."""
    combined = weighing.combine(scores, said, weighing.trusts(scores, corners))
    kept = suppress(corners, combined, weighing.iou)
    return kept[combined[kept] >= weighing.keep], combined


def choose_verified(
    corners: np.ndarray, scores: np.ndarray, verify: Callable[[np.ndarray], np.ndarray], weighing: Weighing
) -> tuple[np.ndarray, np.ndarray]:
    """What ``choose_tiles`` keeps, best first, and the kept boxes' scores, asking ``verify`` (box
    indices in, probabilities out) about as few boxes as it can.

    Each round suppresses on the scores known so far and on ``Weighing.bound`` for boxes not yet
    verified, then asks the verifier, in one batch, about the unverified boxes the round kept. A
    round that keeps only verified boxes is the answer: every other box was suppressed by a kept
    one that outscores it even at its bound. So the near duplicates of a tile the verifier
    confirmed are never cropped (7 of the 23 boxes the eighth detector proposes at 448 px on the
    score benchmark's 1600x1200 hand).

    Nor is a box the detector is ``trusted`` about asked when nothing that may overlap it could
    outscore it: it scores at least the detector's score whatever the verifier says, so it is kept
    and suppresses what overlaps it either way. Its score is then the detector's (the least it
    can be).
    """
    bound = weighing.bound(scores)
    trusted = weighing.trusts(scores, corners)
    least = np.where(trusted, scores, 0.0)
    near = may_overlap(corners, weighing.iou)
    said = np.full(len(scores), -1.0)  # -1: not asked yet
    rects = _rects(corners)
    while True:
        asked = said >= 0
        score = np.where(asked, weighing.combine(scores, np.clip(said, 0, None), trusted), bound)
        rival = np.where(near, score[None, :], 0.0).max(axis=1, initial=0.0)
        settled = asked | (least > rival)
        kept = _suppress(rects, score, weighing.iou, weighing.keep)
        ask = kept[~settled[kept]]
        if len(ask) == 0:
            final = np.where(asked, score, least)[kept]
            order = np.argsort(-final, kind="stable")
            return kept[order], final[order]
        said[ask] = verify(ask)


def side_ratios(corners: np.ndarray) -> np.ndarray:
    """``(n,)``: each quad's longer pair of opposite sides over its shorter pair (2 for a tile's face
    seen square-on, 1 for a half's)."""
    quads = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    sides = np.linalg.norm(np.roll(quads, -1, axis=1) - quads, axis=2)
    across, along = sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]
    ratios: np.ndarray = np.maximum(across, along) / np.maximum(np.minimum(across, along), 1e-9)
    return ratios


def may_overlap(corners: np.ndarray, iou: float) -> np.ndarray:
    """``(n, n)`` bool: whether two rectangles may overlap by more than ``iou`` (never a box and itself).

    Cheap and never too small: their intersection is at most ``overlap_bounds``, so their IoU is at
    most that over their areas' sum less it."""
    common, areas = overlap_bounds(corners)
    near = common / np.maximum(areas[:, None] + areas[None] - common, 1e-9) > iou
    np.fill_diagonal(near, False)
    return near


def overlap_bounds(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(n, n)`` upper bounds on the areas two rectangles share, and ``(n,)`` their areas.

    Their intersection lies within either one intersected with the other's bounding box drawn
    along its own sides (exact for boxes side by side, as tiles in a row and a tile's near
    duplicates are)."""
    corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    centres = corners.mean(axis=1)
    along, across = corners[:, 2] - corners[:, 1], corners[:, 1] - corners[:, 0]
    lengths, widths = np.linalg.norm(along, axis=1), np.linalg.norm(across, axis=1)
    axes = np.stack([along / np.maximum(lengths, 1e-9)[:, None], across / np.maximum(widths, 1e-9)[:, None]], axis=1)
    offsets = corners[None] - centres[:, None, None]  # [i, j, corner]: box j's corners from box i's centre
    # ... along box i's two sides (as einsum "ijkc,iac->ijka", which took ten times as long)
    spans = offsets[..., None, 0] * axes[:, None, None, :, 0] + offsets[..., None, 1] * axes[:, None, None, :, 1]
    # the four corners' extremes pairwise: numpy reduces a short middle axis (and clips) slowly
    high = np.maximum(np.maximum(spans[:, :, 0], spans[:, :, 1]), np.maximum(spans[:, :, 2], spans[:, :, 3]))
    low = np.minimum(np.minimum(spans[:, :, 0], spans[:, :, 1]), np.minimum(spans[:, :, 2], spans[:, :, 3]))
    halves = np.stack([lengths, widths], axis=1)[:, None] / 2
    sides = np.maximum(np.minimum(high, halves) - np.maximum(low, -halves), 0)
    inside = sides[..., 0] * sides[..., 1]
    return np.minimum(inside, inside.T), lengths * widths


def covered_by_better(corners: np.ndarray, share: float, iou: float | None = None) -> np.ndarray:
    """``(n,)`` bool: which of these boxes (best first) lie more than ``share`` of their own area
    inside a better box, or (given ``iou``) overlap one by more than that IoU. Tiles never lie on
    one another, so such a box is part of a tile already kept (a box over one half of it and
    beyond, which overlaps it too little for suppression by IoU to take it), or the same tile
    again, not a tile; ``overlap_bounds`` leaves only the few pairs worth measuring."""
    corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    covered = np.zeros(len(corners), bool)
    if len(corners) < 2:
        return covered
    common, areas = overlap_bounds(corners)
    maybe = common > share * areas[:, None]
    if iou is not None:
        maybe |= common > iou * (areas[:, None] + areas[None] - common)
    for worse, better in zip(*np.nonzero(np.tril(maybe, k=-1)), strict=True):
        shared, _ = cv2.intersectConvexConvex(corners[worse], corners[better])
        covered[worse] |= shared > share * areas[worse]
        if iou is not None:
            covered[worse] |= shared > iou * (areas[worse] + areas[better] - shared)
    return covered
