"""A closer look at each kept box: where exactly are the tile's four corners?

The detector sees the photo shrunk to 448 px, and some of its boxes are off by more than the
pip counter forgives: run on past the tile's end over a neighbour laid end to end (1 % of the
boxes on the synthetic evaluation hands are a quarter too long or more, behind 6 of the 14
tiles misread there: benchmarks/box_errors.py@d88286a), or taking in a tile's side when the camera is
tilted. Halves cut from such a box hold the wrong pips. The refiner sees each kept box
rectified at full resolution with a wide margin of its surroundings and says where the tile's
top-face corners lie; the reader then cuts its halves from those. A tile cut by the frame gets
corners beyond the frame's edge (the crop shows the photo's edge as flat grey), so the reader
leaves it out (``vision.geometry.halves_in_frame``) rather than reading what shows as a
whole tile.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_session import as_input, cpu_session, probabilities_of

LONG_PX = 40
"""The box's long side in the crop (its short side in proportion)."""
MARGIN_ALONG, MARGIN_ACROSS = 12, 10
"""Surroundings kept beyond the box's ends and sides: a box a quarter too short still has the
tile's end in view."""
CROP_SHAPE = (2 * MARGIN_ACROSS + LONG_PX // 2, 2 * MARGIN_ALONG + LONG_PX)
"""(height, width) of a crop: 40 x 64."""
OUTSIDE_GREY = 114
"""What the crop shows beyond the photo's edge (the detector's letterbox grey)."""


def box_in_crop(corners: np.ndarray) -> np.ndarray:
    """Where a box's ``(4, 2)`` corners land in its crop: corners[0..1] on the left, the long
    side LONG_PX and the short side in proportion (a box over one half stays square)."""
    corners = np.asarray(corners, np.float32)
    short = float(np.linalg.norm(corners[1] - corners[0]))
    long = max(float(np.linalg.norm(corners[2] - corners[1])), 1e-6)
    height, _ = CROP_SHAPE
    side = min(LONG_PX * short / long, height)
    left, right = MARGIN_ALONG, MARGIN_ALONG + LONG_PX
    top, bottom = (height - side) / 2, (height + side) / 2
    return np.array([[left, bottom], [left, top], [right, top], [right, bottom]], np.float32)


def framing(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a box's corners land in its crop (``box_in_crop``) and the homography from the photo
    there: what cutting the crop and reading the answer back both need, worked out once."""
    placed = box_in_crop(corners)
    return placed, cv2.getPerspectiveTransform(np.asarray(corners, np.float32), placed)


def crop_framed(image_bgr: np.ndarray, to_crop: np.ndarray) -> np.ndarray:
    """The crop a box's homography ``to_crop`` makes, sampled bilinearly, the photo's outside grey
    (crops averaged down where they shrink the photo taught a worse refiner: benchmarks/HISTORY.md)."""
    height, width = CROP_SHAPE
    return cv2.warpPerspective(
        image_bgr, to_crop, (width, height), flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT, borderValue=(OUTSIDE_GREY,) * 3,
    )  # fmt: skip


def crop_box(image_bgr: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The box rectified (``box_in_crop``) with its surroundings, the photo's outside grey."""
    return crop_framed(image_bgr, framing(corners)[1])


def crop_boxes(image_bgr: np.ndarray, corners: Sequence[np.ndarray]) -> np.ndarray:
    """``(n, 40, 64, 3)`` uint8 crops of every box."""
    crops = [crop_box(image_bgr, quad) for quad in corners]
    return np.stack(crops) if crops else np.zeros((0, *CROP_SHAPE, 3), np.uint8)


def framed_to_corners(placed: np.ndarray, to_crop: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``offsets_to_corners`` for a box already framed (``framing``)."""
    in_crop = placed + np.asarray(offsets, np.float32).reshape(4, 2) * LONG_PX
    return cv2.perspectiveTransform(in_crop[None].astype(np.float64), np.linalg.inv(to_crop))[0].astype(np.float32)


def offsets_to_corners(box: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The tile's corners in the photo from what the refiner says: each of the box's corners moved
    by ``offsets`` ``(4, 2)`` in its crop, in units of LONG_PX (the box's own corners, order kept)."""
    return framed_to_corners(*framing(box), offsets)


def corners_to_offsets(box: np.ndarray, tile: np.ndarray) -> np.ndarray:
    """What the refiner learns for ``box`` over a tile with ``tile`` corners (in any order): the
    tile's corners in the box's crop, taken in the order that lies nearest the box's corners,
    less the box's own, in units of LONG_PX (``(8,)``)."""
    own, to_crop = framing(box)
    in_crop = cv2.perspectiveTransform(np.asarray(tile, np.float64)[None], to_crop)[0]
    orders = [np.roll(np.arange(4), turn) for turn in range(4)]
    orders += [order[::-1] for order in orders]
    best = min(orders, key=lambda order: float(((in_crop[order] - own) ** 2).sum()))
    return ((in_crop[best] - own) / LONG_PX).astype(np.float32).reshape(-1)


Placed = dict[bytes, np.ndarray]
"""Boxes refined already in one image: each box's corners (their bytes) to the tile's (``BoxRefiner.judge``)."""


class BoxRefiner:
    """Load once; ``(image, boxes)`` in, each box's tile corners out (in the box's corner order).

    A refiner may also say whether each box is one face-up tile (``judges``: its export has a second
    output, ``tile``, a logit worked out from the same features: ``models.train.verdict``). The
    pipeline then asks it in the tile verifier's place (``judge``), and each box is cropped and run
    through one network once, for both answers."""

    def __init__(self, model_path: Path) -> None:
        self.session = cpu_session(model_path, "box refiner")
        self.judges = VERDICT in {output.name for output in self.session.get_outputs()}

    def offsets(self, crops: np.ndarray) -> np.ndarray:
        """``(n, 8)`` corner offsets for ``(n, 40, 64, 3)`` uint8 BGR crops."""
        if len(crops) == 0:
            return np.zeros((0, 8), np.float32)
        (said,) = self.session.run([OFFSETS], {"crops": as_input(crops)})
        return said.reshape(len(crops), 8)

    def __call__(
        self, image_bgr: np.ndarray, corners: Sequence[np.ndarray], placed: Placed | None = None
    ) -> list[np.ndarray]:
        """The tiles' corners; ``placed``: boxes this image's ``judge`` refined already (not run again)."""
        known = placed or {}
        unknown = [box for box in corners if box.tobytes() not in known]
        if unknown:
            frames, crops = self.framed_crops(image_bgr, unknown)
            known = {**known, **placed_by(unknown, frames, self.offsets(crops))}
        return [known[box.tobytes()] for box in corners]

    def judge(self, image_bgr: np.ndarray, corners: Sequence[np.ndarray], placed: Placed) -> np.ndarray:
        """``(n,)`` the probability that each box is one face-up tile; each box's tile corners are added
        to ``placed`` (for ``__call__`` on the same image). Only for a refiner that ``judges``."""
        if not self.judges:
            raise ValueError(NO_VERDICT)
        if len(corners) == 0:
            return np.zeros(0, np.float32)
        frames, crops = self.framed_crops(image_bgr, corners)
        said, logits = self.session.run([OFFSETS, VERDICT], {"crops": as_input(crops)})
        placed.update(placed_by(corners, frames, said.reshape(len(crops), 8)))
        return probabilities_of(logits)

    def framed_crops(
        self, image_bgr: np.ndarray, corners: Sequence[np.ndarray]
    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
        """Each box's ``framing`` (worked out once: to cut its crop and to read the answer back) and the
        ``(n, 40, 64, 3)`` crops it cuts."""
        frames = [framing(box) for box in corners]
        return frames, np.stack([crop_framed(image_bgr, to_crop) for _, to_crop in frames])


NO_VERDICT = "this box refiner has no verdict of its own (its export has no 'tile' output)"
"""What asking a refiner that does not ``judge`` for its verdict says."""
OFFSETS, VERDICT = "logits", "tile"
"""A refiner export's outputs: the ``(n, 8)`` corner offsets and (where it ``judges``) the ``(n, 1)`` logit that
the box is one face-up tile."""


def placed_by(
    corners: Sequence[np.ndarray], frames: Sequence[tuple[np.ndarray, np.ndarray]], said: np.ndarray
) -> Placed:
    """Each box's tile corners in the photo, from its ``framing`` and the offsets the network ``said``."""
    placed = np.stack([place for place, _ in frames])
    to_photo = np.linalg.inv(np.stack([to_crop for _, to_crop in frames]))  # every box's at once
    moved = through_each(to_photo, placed + said.reshape(-1, 4, 2) * LONG_PX)
    return {box.tobytes(): tile for box, tile in zip(corners, moved, strict=True)}


def through_each(matrices: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(n, k, 2)`` float32: each of ``(n, k, 2)`` points through its own of ``(n, 3, 3)`` matrices
    (what ``cv2.perspectiveTransform`` does for one, for all in one go)."""
    points = np.asarray(points, np.float64)
    mapped = points @ matrices[:, :2, :2].transpose(0, 2, 1) + matrices[:, None, :2, 2]
    depth = points @ matrices[:, 2, :2, None] + matrices[:, None, 2, 2:]
    result: np.ndarray = (mapped / depth).astype(np.float32)
    return result
