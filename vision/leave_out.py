"""Which of the tiles found are left out of the total as uncertain, and why: the hand scorer's
"leave out, never guess" tests (``vision.pipeline.HandScorer`` runs them after reading the pips).

A box is left out where the table's plane cannot make it a tile's face (``ODD_SHAPE``) or makes it
part of one (``SMALLEST_BOX``), where the detector also saw another pose there (``OTHER_POSE``),
where it scores unsurely (``LEAST_BOX_SCORE``), or where it lies across the ends of two surer boxes
(``ACROSS``); a tile where a surer one is read as the same domino (``ONE_OF_EACH``). Each gives its
reason in a few words, which ``hubcam score`` reports. A box far smaller than the tiles counted is no
tile at all (``PHANTOM``): it is dropped, not reported. A tile the frame cuts that cannot be counted
is told apart from the photo's tiles (``apart_at_edge``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from calibration.table_plane import AS_SEEN, LEAST_TILES, TablePlane, misfits, relative_areas, table_plane
from engine.tiles import Tile
from vision.detect.onnx_obb import FACE_UP_CLASS, TILE_CLASSES, Proposals
from vision.detect.verify import overlap_bounds
from vision.geometry import halves_of, is_cut, points_in_quads, quad_iou, wholly_in_frame
from vision.observation import Reason, Sighting
from vision.read.pip_reader import BEYOND_FRAME, MIN_CONFIDENCE, Reading

NOT_A_FACE, PART_OF_A_TILE, OTHER_POSE_SEEN = Reason.ODD_SHAPE, Reason.PART_OF_TILE, Reason.OTHER_POSE
"""Why a box is left out as uncertain: ODD_SHAPE, SMALLEST_BOX, OTHER_POSE."""
READ_ALIKE = Reason.READ_ALIKE
"""Why a tile is left out as uncertain where a surer tile is read as the same domino: ONE_OF_EACH."""
FOUND_UNSURELY = Reason.FOUND_UNSURELY
"""Why a box is left out as uncertain where it scores below LEAST_BOX_SCORE."""
ACROSS_TWO = Reason.ACROSS_TWO
"""Why a box is left out as uncertain where each of its halves lies on a half of another, surer box: ACROSS."""

ODD_SHAPE = 0.2
"""A box the table's plane cannot make a 2:1 rectangle within this (``calibration.table_plane.misfits``)
is no tile's face (a standing tile, parts of two): left out. Chosen by benchmarks/odd_shapes.py@d88286a
(benchmarks/results/odd_shapes.md)."""

SMALLEST_BOX = 0.3
"""A box under this share of the median box's area on the table's plane is part of a tile (a half, one
end's pips): left out. Chosen by benchmarks/odd_shapes.py@d88286a (benchmarks/results/odd_shapes.md)."""

OTHER_POSE = 0.7
"""A box holding a proposal scored face down or standing this many times as high as any face-up one
there is left out (``seen_in_other_pose``). Chosen by benchmarks/other_pose.py@d88286a
(benchmarks/results/other_pose.md)."""

LEAST_BOX_SCORE = MIN_CONFIDENCE
"""A box scoring below this (detector weighed with the verdict) is left out, as a half read below
MIN_CONFIDENCE is, so a counted tile's confidence is never below it (runs: benchmarks/HISTORY.md)."""

ACROSS = 0.4
"""A box each of whose halves lies on a half of another, surer box at this IoU lies across two tiles'
ends: left out (``across_two``; the 1,000 seed-7, 8 and 10 hands: benchmarks/HISTORY.md)."""

PHANTOM = 0.15
"""A box wholly in the frame under this share of the median area (as seen) of the tiles counted is no
tile: a pip, the divider, a fleck of the table beside a tile that fills the photo. Dropped, not reported
(benchmarks/results/single_tiles.md). The median, not the largest: in a steep photo the farthest tile
looks a seventh of the nearest (a seed-7 hand)."""

ONE_OF_EACH = True
"""A set holds each tile once: of tiles read as one domino only the surest is counted, the others are
left out as READ_ALIKE (the 1,000 seed-7, 8 and 10 hands: benchmarks/HISTORY.md)."""


class LeaveOutSettings(Protocol):
    """The settings ``leave_out`` takes (``vision.pipeline.ScorerConfig`` has them)."""

    other_pose: float | None
    least_score: float | None
    across: float | None
    one_of_each: bool
    phantom: float | None


@dataclass(frozen=True)
class Found:
    """The boxes found in one photo, as the leave-out tests take them: corners (best first), the
    detector's (or verifier's) scores, their readings, ``odd_shapes``' reasons and what the looks
    proposed."""

    corners: list[np.ndarray]
    scores: np.ndarray
    readings: list[Reading]
    odd: list[Reason | None]
    proposals: Proposals


def leave_out(settings: LeaveOutSettings, found: Found, frame: tuple[int, int]) -> tuple[Sighting, ...]:
    """Each box as a sighting, its reason to be left out of the total set where it has one: a reading
    beyond the frame says most, then what the box is not (odd shape, another pose), then the reading,
    then the tests between boxes in the order that lets each build on the ones before."""
    posed = seen_in_other_pose(found.corners, found.proposals, settings.other_pose)
    why = [
        BEYOND_FRAME if reading.why == BEYOND_FRAME else OTHER_POSE_SEEN if pose else shape or reading.why
        for reading, shape, pose in zip(found.readings, found.odd, posed, strict=True)
    ]
    scores, readings = found.scores, found.readings
    sureness = [float(min(score, *reading.confidence)) for score, reading in zip(scores, readings, strict=True)]
    if settings.least_score is not None:
        why = or_reason(why, [float(score) < settings.least_score for score in scores], FOUND_UNSURELY)
    if settings.across is not None:  # before ONE_OF_EACH: a box across two tiles' ends may read as either
        why = or_reason(why, across_two(found.corners, sureness, settings.across), ACROSS_TWO)
    if settings.one_of_each:  # only tiles counted so far can be read alike
        alike = read_alike([reading.pips for reading in readings], sureness, [reason is None for reason in why])
        why = or_reason(why, alike, READ_ALIKE)
    sightings = [
        Sighting(quad, reading.pips, sure, reason, is_cut(quad, *frame), reading.odds)
        for quad, sure, reading, reason in zip(found.corners, sureness, readings, why, strict=True)
    ]
    if settings.phantom is None:
        return tuple(sightings)
    no_tiles = phantoms(sightings, settings.phantom)
    return tuple(sighting for sighting, no_tile in zip(sightings, no_tiles, strict=True) if not no_tile)


def apart_at_edge(sightings: Sequence[Sighting]) -> tuple[tuple[Sighting, ...], tuple[Sighting, ...]]:
    """The photo's tiles, and apart from them the tiles its frame cuts that are left out as uncertain
    (``Observation.cut_by_frame``): a sliver of a neighbour at a crop's edge is no tile of the crop,
    though a wider photo would show it. A tile the frame cuts but that is counted (its halves in view)
    stays a tile.

    >>> quad = lambda x: np.array([[x, 0], [x, 10], [x + 20, 10], [x + 20, 0]], np.float32)
    >>> tiles, cut = apart_at_edge([Sighting(quad(0), None, 0.2, Reason.BEYOND_FRAME, cut=True),
    ...     Sighting(quad(30), (1, 2)), Sighting(quad(60), (3, 4), cut=True)])
    >>> [tile.pips for tile in tiles], [tile.reason.value for tile in cut]
    ([(1, 2), (3, 4)], ['beyond_frame'])
    """
    apart = [sighting.cut and sighting.uncertain for sighting in sightings]
    return (
        tuple(sighting for sighting, edge in zip(sightings, apart, strict=True) if not edge),
        tuple(sighting for sighting, edge in zip(sightings, apart, strict=True) if edge),
    )


def phantoms(sightings: Sequence[Sighting], share: float = PHANTOM) -> list[bool]:
    """Which sightings, wholly in the frame, are under ``share`` of the median area of those counted
    (none without one counted).

    >>> tile = np.array([[0, 0], [0, 50], [100, 50], [100, 0]], np.float32)
    >>> pip = np.array([[10, 10], [10, 20], [20, 20], [20, 10]], np.float32)
    >>> phantoms([Sighting(tile, (1, 2)), Sighting(pip, (0, 0), reason=Reason.READ_UNSURE)])
    [False, True]
    """
    counted = np.array([not sighting.uncertain for sighting in sightings], bool)
    if not counted.any():
        return [False] * len(sightings)
    relative = relative_areas(AS_SEEN, [sighting.corners for sighting in sightings], among=counted)
    return [bool(small) and not sighting.cut for small, sighting in zip(relative < share, sightings, strict=True)]


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
    poses = proposals.scores[:, :TILE_CLASSES]  # a marker or the hub is no pose of a tile
    other = np.delete(poses, FACE_UP_CLASS, axis=1).max(axis=1, initial=0.0)
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
    (benchmarks/close_up.py@d88286a). Given ``read`` (whether each box's pips were read surely), only the
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
