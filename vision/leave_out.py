"""Which of the tiles found are left out of the total as uncertain, and why: the hand scorer's
"leave out, never guess" tests (``vision.pipeline.HandScorer`` runs them after reading the pips).

A box is left out where the table's plane cannot make it a tile's face (``ODD_SHAPE``) or makes it
part of one (``SMALLEST_BOX``), where the detector also saw another pose there (``OTHER_POSE``),
where it scores unsurely (``LEAST_BOX_SCORE``), or where it lies across the ends of two surer boxes
(``ACROSS``); a tile where a surer one is read as the same domino (``ONE_OF_EACH``). Each gives its
reason in a few words, which ``hubcam score`` reports.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from calibration.table_plane import AS_SEEN, LEAST_TILES, TablePlane, misfits, relative_areas, table_plane
from engine.tiles import Tile
from vision.detect.onnx_obb import FACE_UP_CLASS, Proposals
from vision.detect.verify import overlap_bounds
from vision.geometry import halves_of, points_in_quads, quad_iou, wholly_in_frame
from vision.observation import Reason
from vision.read.pip_reader import MIN_CONFIDENCE

NOT_A_FACE, PART_OF_A_TILE, OTHER_POSE_SEEN = Reason.ODD_SHAPE, Reason.PART_OF_TILE, Reason.OTHER_POSE
"""Why a box is left out as uncertain: ODD_SHAPE, SMALLEST_BOX, OTHER_POSE."""
READ_ALIKE = Reason.READ_ALIKE
"""Why a tile is left out as uncertain where a surer tile is read as the same domino: ONE_OF_EACH."""
FOUND_UNSURELY = Reason.FOUND_UNSURELY
"""Why a box is left out as uncertain where it scores below LEAST_BOX_SCORE."""
ACROSS_TWO = Reason.ACROSS_TWO
"""Why a box is left out as uncertain where each of its halves lies on a half of another, surer box: ACROSS."""

ODD_SHAPE = 0.2
"""A box the table's plane cannot make a 2:1 rectangle (a corner's cosine, or the log of its sides'
ratio over 2, this far off: ``calibration.table_plane.misfits``) is no face of a tile lying on the
table but a standing tile's face seen at a slant, or parts of two tiles: it is reported uncertain
and left out of the total. Chosen on the 400 synthetic validation hands by
benchmarks/odd_shapes.py (the loosest bound with the most exact totals); the boxes of real tiles
lie far inside it. Run again on the generator-13 validation hands (the twenty-ninth session,
benchmarks/results/odd_shapes.md): 377 at 0.18, 0.2 and 0.3, a tie the rule would break to 0.3, but
there the seed-10 hands total 372 against 373 (seed-7 188 either way): 0.2 stays. Tried, not kept
(the twenty-ninth session, scratch runs): keeping an odd box whose halves are both read at 0.95 or
more (6 tiles the 1,000 synthetic hands count were left out as odd): validation hands 376 against
377, seed-10 374 against 373, seed-7 188 either way; on the robot photos 25 more face-up tiles
counted but 23 more standing or face-down ones too (0.9: 376, 372, 188)."""

SMALLEST_BOX = 0.3
"""A box covering less than this share of the median box's area on the table's plane is no whole
tile but part of one (a half, the pips of one end) or a tile mostly beyond the frame, whose pips
there cannot be counted: it is reported uncertain and left out of the total. Chosen on the 400
synthetic validation hands by benchmarks/odd_shapes.py: exact totals 383 with boxes of any size
read, 385 at 0.3-0.6 (the loosest taken), 384 at 0.7; no real tile's box is that small. Run again
on the generator-13 validation hands (the twenty-ninth session): 377 from never to 0.6, but never
leaving such boxes out the seed-7 hands total 187 against 188: 0.3 stays."""

OTHER_POSE = 0.7
"""A box is left out as uncertain where a proposal centred inside it (in the look the box was found in:
for a slanted photo, the last view redrawn square-on) scores another pose, face down or standing,
more than this many times as high as any proposal centred there scores face up
(``seen_in_other_pose``). A standing tile facing a low camera shows its face and was counted
(karthikVenkataramana's robot photos: 60 of their standing and face-down tiles), though the
detector often scores it standing too. Chosen by benchmarks/other_pose.py: of the ratios with the
most exact totals on the 400 synthetic validation hands (387 from never down to 0.7; 386 at 0.5,
385 at 0.3), the one with the fewest miscounts on those robot photos (face-up tiles not counted,
others counted, counts over no labelled tile: 189 never, 185 at 1, 179 at 0.7). The pip-labelled
real photos total 27 of 27 at every ratio from never to 0.5. Taken from the first look at a
slanted photo instead (a scratch try), the real photos tipped 40 degrees further lost face-up
tiles seen so steeply (23 exact totals of 27 never, 21 at 2, 18 at 0.7). Run again in the
twenty-sixth session (the counter that learnt printed backs, generator-12 validation hands:
benchmarks/results/other_pose.md), the rule asks 0.3: 377 exact totals from 0.7 down to 0.3, and
the robot photos' miscounts 197 at 0.7, 194 at 0.5, 186 at 0.3. But at 0.3 a face-up 3-0 of the
pip-labelled real photos is left out (jmherzog's 5.jpeg: 26 of 27), which is what the issue's
real photos judge, and the seed-7 and seed-10 hands total the same at all three (188, 373; a
scratch run): 0.7 stays."""

LEAST_BOX_SCORE = MIN_CONFIDENCE
"""A box scoring less than this (the detector's score weighed with the refiner's verdict,
``vision.pipeline.WEIGHING``) is left out as uncertain (FOUND_UNSURELY), as a half read less surely
than MIN_CONFIDENCE is: a tile is counted only where its box and both its halves are that sure, so a
counted tile's confidence (the least of the three) is never below it. Boxes are kept from 0.2 on
(``WEIGHING.keep``), for suppression and for the photos redrawn square-on; those kept below 0.4 and
counted were mostly over no tile. Measured
in the thirty-seventh session (scratch runs of each threshold): the seed-7, seed-10, validation, steep
seed-22 and seed-21 hands 186, 378, 378, 154 and 152 never, 186, 378, 378, 153, 152 at 0.3, 187, 379,
379, 152, 152 at 0.35 and 187, 378, 379, 152, 152 at 0.4 (1,248 of 1,400 never and at 0.4); the real
photos 27 of 27 and their variants 374 of 378 as before (their counted tiles score 0.79 or more);
``benchmarks/read_by_eye.py`` 11 of 13 against 10 (Rakeduk's q7: a 1-1 over a stool's flowers, its
box at 0.27); karthikVenkataramana's robot photos (``benchmarks/box_labelled.py``) 389 face-up tiles
counted against 390, 72 standing or face-down ones against 77, 39 counts over no labelled tile
against 47 (75 and 42 at 0.3, 74 and 40 at 0.35, 72 and 37 at 0.45)."""

ACROSS = 0.4
"""A box each of whose halves overlaps a half of another, surer box this much (IoU) is left out as
uncertain (ACROSS_TWO, ``across_two``): it lies across the ends of two tiles side by side. Over the
1,000 synthetic seed-7, 8 and 10 hands (the thirty-seventh session, scratch), 4 counted boxes had
both halves on halves of two other boxes at 0.3-0.4 (3 at 0.5-0.6, none at 0.7), and none of them
was over a tile: all lay across two tiles' ends."""

ONE_OF_EACH = True
"""A set holds each tile once, so of the tiles read as one domino (2-5 and 5-2 alike) only the surest
is counted; the others are left out as uncertain (READ_ALIKE): one reading of them is wrong. Over
the 1,000 synthetic seed-7, 8 and 10 hands (the thirty-sixth session, scratch), 11 held such tiles.
In the 6 where one of them was right it was the surest; the 13 others were all wrong: double blanks
over no face-up tile (7 hands), boxes across the ends of two tiles, or tiles misread (4 hands).
Leaving them out changes no total there (the hands they were in stay wrong or right for their other
tiles), but those 13 wrong tiles are no longer counted as sure. No pip-labelled real photo holds a
tile twice."""


def or_reason(reasons: Sequence[Reason | None], flagged: Sequence[bool], reason: Reason) -> list[Reason | None]:
    """Each box's reason to be left out as it was, or ``reason`` where it had none and is ``flagged``:
    the first test that leaves a box out names why.

    >>> or_reason([None, Reason.READ_UNSURE, None], [True, True, False], ACROSS_TWO)
    [<Reason.ACROSS_TWO: 'across_two'>, <Reason.READ_UNSURE: 'read_unsure'>, None]
    """
    return [before or (reason if flag else None) for before, flag in zip(reasons, flagged, strict=True)]


def seen_in_other_pose(corners: list[np.ndarray], proposals: Proposals, ratio: float | None = None) -> list[bool]:
    """Which boxes hold the centre of a proposal the detector scores as another pose (face down or
    standing) more than ``ratio`` times as high as it scores any proposal centred there face up
    (``OTHER_POSE``; None: no such test)."""
    if ratio is None or len(corners) == 0 or len(proposals.centres) == 0:
        return [False] * len(corners)
    inside = points_in_quads(corners, proposals.centres)
    face_up = proposals.scores[:, FACE_UP_CLASS]
    other = np.delete(proposals.scores, FACE_UP_CLASS, axis=1).max(axis=1, initial=0.0)
    most_face_up = np.where(inside, face_up, 0.0).max(axis=1)
    most_other = np.where(inside, other, 0.0).max(axis=1)
    return [bool(seen) for seen in most_other > ratio * most_face_up]


def across_two(corners: Sequence[np.ndarray], sureness: Sequence[float], iou: float | None = ACROSS) -> list[bool]:
    """Which boxes have each half lying on a half of a different surer box that is not itself
    such a box (their halves' IoU at least ``iou``; None: no such test): a box across the ends of
    two tiles side by side, which a tile never is. The surest go first, as suppression does, so a
    tile between two such boxes, surer than it, is still kept.

    >>> tile = lambda x: np.array([[x, 10], [x, 0], [x + 20, 0], [x + 20, 10]], np.float32)  # 20 x 10
    >>> across_two([tile(0), tile(20), tile(10)], [0.9, 0.8, 0.7])  # the third across the others' ends
    [False, False, True]
    >>> across_two([tile(0), tile(20), tile(10)], [0.6, 0.5, 0.7])  # surest, it is kept (and they: one half each)
    [False, False, False]
    """
    across = [False] * len(corners)
    if iou is None or len(corners) < 3:
        return across
    common, areas = overlap_bounds(np.asarray(corners))
    # equal halves overlapping at ``iou`` share 2 iou / (1 + iou) of one, over a quarter of a box at 0.4;
    # boxes sharing less than half that (tiles side by side) need no halves measured
    near = common > iou / (1 + iou) / 2 * areas[:, None]
    halves = [halves_of(quad) for quad in corners]
    kept: list[int] = []
    for box in sorted(range(len(corners)), key=lambda box: -sureness[box]):  # stable: ties keep their order
        others = [other for other in kept if near[box, other]]
        if len(others) >= 2:
            lying_on = [
                {other for other in others if any(quad_iou(half, theirs) >= iou for theirs in halves[other])}
                for half in halves[box]
            ]
            across[box] = any(first != second for first in lying_on[0] for second in lying_on[1])
        if not across[box]:
            kept.append(box)
    return across


def read_alike(pips: Sequence[tuple[int, int]], sureness: Sequence[float], counted: Sequence[bool]) -> list[bool]:
    """Which of the ``counted`` tiles are read as the same domino as a surer counted one (either way
    round; of two as sure, the one listed first is kept: the boxes come best first).

    >>> read_alike([(2, 5), (5, 2), (1, 1), (2, 5)], [0.6, 0.9, 0.5, 0.2], [True, True, True, False])
    [True, False, False, False]
    """
    dominoes = [Tile(*read) for read in pips]
    surest: dict[Tile, int] = {}
    for tile in sorted(range(len(pips)), key=lambda tile: -sureness[tile]):  # stable: ties keep their order
        if counted[tile]:
            surest.setdefault(dominoes[tile], tile)
    return [counted[tile] and surest[dominoes[tile]] != tile for tile in range(len(pips))]


def odd_shaped(
    corners: list[np.ndarray],
    bound: float | None = ODD_SHAPE,
    smallest: float | None = SMALLEST_BOX,
    frame: tuple[int, int] | None = None,
    read: Sequence[bool] | None = None,
) -> list[bool]:
    """Which boxes ``odd_shapes`` gives a reason for."""
    return [why is not None for why in odd_shapes(corners, bound, smallest, frame, read)]


def odd_shapes(
    corners: list[np.ndarray],
    bound: float | None = ODD_SHAPE,
    smallest: float | None = SMALLEST_BOX,
    frame: tuple[int, int] | None = None,
    read: Sequence[bool] | None = None,
) -> list[Reason | None]:
    """Each box's reason to be left out (None for none): NOT_A_FACE where the table's plane, fitted to the
    boxes (see ``frame``), cannot make it a 2:1 rectangle within ``bound``, else PART_OF_A_TILE where
    it makes it smaller than ``smallest`` of the median box (None: no such test; too few boxes to fit
    a plane: none). Where every box passes as the photo shows them, none is odd and no plane is
    fitted (most photos taken from above).

    Given the photo's ``frame`` (width, height), the plane and the median are those of the boxes
    wholly inside it: a box reaching beyond the frame is a guess at a tile cut by it (or the part
    inside), no evidence of the plane; in a close-up, where the tile held up fills the frame and
    its neighbours are mostly beyond it, they made the whole tile in the middle look odd
    (benchmarks/close_up.py). Given ``read`` (whether each box's pips were read surely), only the
    boxes read so are evidence too: boxes over no tile, which the reader refuses, come in every shape
    (on black leather, eight over its grain made a pink tile look odd: Rakeduk's b4.jpg)."""
    evidence = np.ones(len(corners), bool) if frame is None else wholly_in_frame(corners, *frame)
    if read is not None:
        evidence &= np.asarray(read, bool)
    fine: list[Reason | None] = [None] * len(corners)
    if evidence.sum() < LEAST_TILES:
        return fine

    def odd_on(plane: TablePlane) -> list[Reason | None]:
        misfit = misfits(plane, corners) > bound if bound is not None else np.zeros(len(corners), bool)
        small = (
            relative_areas(plane, corners, among=evidence) < smallest
            if smallest is not None
            else np.zeros(len(corners), bool)
        )
        pairs = zip(misfit, small, strict=True)
        return [NOT_A_FACE if odd else PART_OF_A_TILE if part else None for odd, part in pairs]

    if not any(odd_on(AS_SEEN)):
        return fine
    plane = table_plane([quad for quad, telling in zip(corners, evidence, strict=True) if telling])
    if plane is None:
        return fine
    return odd_on(plane)
