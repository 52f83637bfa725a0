"""A hand photo in, its tiles and total out: a dim photo brightened, then the detector, the box
refiner, whose verdict on each box stands in for a tile verifier's and whose corners place it (once
more, on the photo redrawn square-on, when it was taken at a slant), and the pip reader.

Only face-up tiles count (the detector also knows face-down and standing ones); a
tile partly outside the frame is flagged ``cut``; a tile the reader is unsure of, or a box
scored unsurely (``LEAST_BOX_SCORE``), that no tile's face lying on the table could make
(``ODD_SHAPE``), that covers only part of a tile (``SMALLEST_BOX``), that the detector also saw as
another pose (``OTHER_POSE``) or that lies across the ends of two tiles (``ACROSS``), or a second
reading of one domino (``ONE_OF_EACH``), is listed as uncertain and left out of the total rather than
guessed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from calibration.table_plane import TablePlane, back_to_photo, points_to_photo, size_spread, square_on, table_plane
from models import COUNTER, DETECTOR, PIP_PEAKS, REFINER
from vision.detect.onnx_obb import FACE_UP_CLASS, Detections, OBBDetector, Proposals, View, only_sure_and_large
from vision.detect.refine import NO_VERDICT, BoxRefiner, Placed
from vision.detect.verify import TileVerifier, Weighing, choose_verified, covered_by_better, side_ratios
from vision.exposure import brightened
from vision.geometry import square_within
from vision.leave_out import (
    ACROSS,
    LEAST_BOX_SCORE,
    ODD_SHAPE,
    ONE_OF_EACH,
    OTHER_POSE,
    PHANTOM,
    SMALLEST_BOX,
    Found,
    apart_at_edge,
    leave_out,
    odd_shapes,
)
from vision.observation import Marker, Observation, Reason
from vision.read.fusion import FOR_HANDS, Overrule
from vision.read.pip_reader import READ_IN_FRAME, UNSURE, PipReader, Reading
from vision.settings import Settings
from vision.trains import Hub

OWN_VERDICT = "refiner"
"""``ScorerConfig(verifier=OWN_VERDICT)``, the default: the box refiner's verdict (``models.train.verdict``)
says whether each box is one tile, so each box runs through one network once for both answers."""
DETECTOR_SIZE = 448
"""The detector's input (pixels, square) at run time, chosen on synthetic hands by
benchmarks/detector_size.py@d88286a among the sizes that keep the run-time budget: it learnt at 320
and then 416, and finds small and crowded tiles more surely seen larger."""
DETECT_CONFIDENCE, DETECT_NMS_IOU = 0.25, 0.3
"""The detector alone (no verifier): chosen on synthetic hands by benchmarks/detector_thresholds.py@d88286a."""
TRUSTED_SHAPE = float(np.sqrt(2))
"""(Only while ``WEIGHING.trusted`` is below 1.) A sure box keeps the detector's score only where its
sides are nearer 2:1 than 1:1 (benchmarks/results/trusted_shape.md)."""
WEIGHING = Weighing(weight=0.5, keep=0.2, iou=0.3, trusted=1.0, trusted_shape=TRUSTED_SHAPE)
"""How the verifier's answer weighs in: score = detector^(1-weight) x verifier^weight, overlaps over
``iou`` suppressed, boxes scoring ``keep`` kept. Chosen by benchmarks/verifier_thresholds.py@d88286a
(benchmarks/results/verifier_thresholds.md)."""
PROPOSAL_NMS_IOU = 0.7
MARKER_NAME = "marker"
"""The detector's class of train markers (the table detector's; ``datasets.synth.dataset.OBB_NAMES``)."""
MARKER_CONFIDENCE = 0.05
"""A marker box kept: the best smaller of precision and recall on the tuning tables (0.74 and 0.67;
at 0.2, 0.97 and 0.41), chosen by ``python -m benchmarks.markers`` (benchmarks/results/markers.md)."""
HUB_NAME = "hub"
"""The detector's class of the hub (the table detector's)."""
HUB_CONFIDENCE = 0.6
"""The hub box kept, the surest one: on 200 held-out generator-14 tables the table detector finds
each hub within half its radius at 0.6, and no hub scores that much in the labelled real photos or
200 rendered hands (a scratch count of this session; the tables' reading measures it whole)."""
PROPOSAL_CONFIDENCE = WEIGHING.least_keepable()
"""0.04: a box the detector is less sure of scores below the keep score whatever the verifier says,
so it is never kept and can only suppress boxes scoring lower still; proposing it would only
cost a verifier crop (the benchmark's lower proposal confidences choose the same tiles)."""


@dataclass(frozen=True)
class SecondLook:
    """How to look again at a photo, for tiles larger than the detector learnt them (up to 40 % of the
    photo's longer side), as in a close-up. Every photo is looked at again: a close-up's pips and
    divider are found as small boxes, so the number of boxes cannot tell a close-up (close crops of
    single tiles with ten such boxes lost their tile: benchmarks/results/single_tiles.md), and the
    look, small, costs a few milliseconds."""

    few_tiles: int
    """A view redrawn square-on is looked at again only where this many tiles or fewer are found: it
    is drawn from tiles that gave a plane, and there a box over several of them, seen small, took a
    tile's place (a steep seed-21 hand)."""
    size: int
    """The second look's input (pixels, square), where the tiles are seen that much smaller."""
    least_share: float = 0.3
    """Of the second look only the boxes at least this share of the photo's longer side are taken
    (the first look sees smaller tiles more surely; seen smaller still, standing tiles pass for
    face-up ones) ..."""
    least_score: float = 0.7
    """... and that the detector scores at least this: it is sure of the close-up tiles it finds
    there, less so of boxes over several small tiles seen as one at that size, which were the
    second look's only false finds on the synthetic evaluation hands (with this, ``make eval``
    finds what it found with one look, and benchmarks/close_up.py@d88286a's close-ups are still found)."""


SLANT = 1.4
"""A photo whose nearest tile looks this much larger than its farthest is redrawn square-on and its
tiles found again. Chosen by benchmarks/slant_threshold.py@d88286a (benchmarks/results/slant_threshold.md),
held above 1.2 by the time budget."""
DOUBT_SLANT = 1.0
"""SLANT's place where the first look left doubt (a half read unsurely, an odd box): 1.0 redraws
wherever the tiles give a plane. Chosen by benchmarks/slant_threshold.py@d88286a (results/slant_threshold-steep.md)."""
REFINE_IN_VIEW = True
"""Boxes found in the square-on view are refined there, where tiles look as the refiner learnt them.
Kept by benchmarks/slant_threshold.py@d88286a (benchmarks/results/slant_threshold-steep.md)."""
SPREAD_SLANT = 1.6
"""A photo whose largest tile looks this much larger than its smallest is redrawn square-on even where
the fitted plane says less than SLANT. Chosen by benchmarks/slant_threshold.py@d88286a."""
SLANT_AGAIN = 1.1
"""Where the tiles found in the photo redrawn square-on say the view is still slanted more than
this, it is redrawn again from them (their plane is nearer the truth than the first, fitted to
the detector's boxes in the slanted photo), up to SQUARE_ON_LOOKS views: benchmarks/slant_threshold.py@d88286a."""
FORESHORTENED = 2.2
"""A photo whose boxes are at the median this many times as long as wide is redrawn square-on (and a
view still so, again). Chosen by benchmarks/slant_threshold.py@d88286a (benchmarks/results/slant_threshold.md)."""
FORESHORTENED_TILES = 4
"""... told only by this many boxes or more: of three, one over a standing tile (its face seen tall
and narrow) set the median in a synthetic validation hand."""
SQUARE_ON_LOOKS = 2
"""At most this many views redrawn square-on, each from the tiles found in the one before. The
fewest with the most exact totals on the synthetic validation hands (386 with one, 387 with two to
four; the real photos tipped 40 degrees further 21, 23, 24, 24): benchmarks/slant_threshold.py@d88286a."""
VIEW_OVER_INPUT = 2
"""The square-on view is at most this many times the detector's input on its longer side: as
exact as a 1600 px view and half the redrawing time (benchmarks/results/slant_threshold.md)."""
COVERED = 0.6
"""A kept box lying more than this share inside a better one is part of that tile: dropped. Chosen by
benchmarks/covered.py@d88286a (benchmarks/results/covered.md)."""
REFINED_IOU = WEIGHING.iou
"""Refined boxes overlapping a better refined box this much are the same tile again: dropped
(a real photo slanted 25 degrees further, benchmarks/results/real_variants.md)."""
SECOND_LOOK = SecondLook(few_tiles=8, size=128)
"""A second, smaller look, for close-ups whose tiles fill the frame. Chosen by benchmarks/close_up.py@d88286a
(benchmarks/results/close_up.md)."""


@dataclass(frozen=True)
class CloserLook:
    """When and how to look again, closer, at a photo whose tiles the detector sees small: the part
    of the photo the tiles lie in is cut out and looked at too, and its boxes are suppressed together
    with the first look's (a tile found in both is kept at its best)."""

    small_px: float
    """Where the face-up boxes found surely are at the median shorter than this (their longer side, in
    pixels of the detector's input), the photo is looked at again closer ..."""
    least_gain: float
    """... where the tiles lie in a part of it at least this many times smaller than the whole (with
    a tile's length to spare on every side) ..."""
    target_px: float
    """... cut out no closer than that the median tile is this long at the detector's input (about the
    real hand photos' median tile, 19 % of the photo's longer side at 448 px): the detector learnt
    tiles up to 40 % of the photo, and a small hand cut out tightly would show it larger ones."""
    least_score: float = DETECT_CONFIDENCE
    """The face-up boxes that tell the tiles' size and where they lie score at least this."""


CLOSER_LOOK = CloserLook(small_px=50, least_gain=1.3, target_px=85)
"""A closer look where the tiles are small at the detector's input (photos taken from further
away: benchmarks/results/real_variants.md, ``farther-50`` and ``farther-35``)."""


def closer_region(
    found: Detections, frame: tuple[int, int], input_px: int, closer: CloserLook
) -> tuple[int, int, int, int] | None:
    """The part ``(x0, y0, x1, y1)`` of a ``frame`` (width, height) photo to look at again closer
    (``CloserLook``), or None where the detector sees its tiles large enough or they fill the photo.

    >>> from vision.geometry import xywhr_to_corners
    >>> tiles = xywhr_to_corners(np.array([[1000, 800, 200, 100, 0], [1250, 800, 200, 100, 0]]))
    >>> found = Detections(tiles, np.array([0.9, 0.9], np.float32), np.array([0, 0]))
    >>> closer_region(found, (4000, 3000), 448, CLOSER_LOOK)  # 22 px at the input: 1054 px square round them
    (597, 272, 1652, 1327)
    >>> closer_region(found, (1600, 1200), 448, CLOSER_LOOK) is None  # 56 px: large enough
    True
    """
    sure = (found.classes == FACE_UP_CLASS) & (found.scores >= closer.least_score)
    if not sure.any():
        return None
    width, height = frame
    quads = found.corners[sure].astype(np.float64)
    length = float(np.median(np.linalg.norm(quads[:, 2] - quads[:, 1], axis=1)))  # corners[1..2]: a long side
    if length * input_px / max(width, height) >= closer.small_px:
        return None
    points = quads.reshape(-1, 2)
    low, high = points.min(axis=0) - length, points.max(axis=0) + length
    side = max(float((high - low).max()), length * input_px / closer.target_px)
    x0, y0, x1, y1 = square_within(low, high, side, (width, height))
    if max(width, height) / max(x1 - x0, y1 - y0) < closer.least_gain:
        return None
    return x0, y0, x1, y1


def face_up_boxes(found: Detections) -> int:
    return int((found.classes == FACE_UP_CLASS).sum())


@dataclass(frozen=True)
class ScorerConfig(Settings):
    """Every setting of the hand scorer, its defaults the bundled ones (each constant's docstring
    says what chose it). None switches a step off. Change it with ``replace`` (which gives an unknown
    name a "did you mean") or ``dataclasses.replace``.

    >>> ScorerConfig().replace(slant=None).slant is None
    True
    >>> ScorerConfig().replace(slnat=1.2)
    Traceback (most recent call last):
    ...
    ValueError: unknown setting 'slnat' (did you mean 'slant'?)
    """

    detector: Path = DETECTOR
    counter: Path = COUNTER
    peaks: Path | None = PIP_PEAKS
    """The pip-peak counter that overrules ``counter`` where ``overrule`` says; None: not asked."""
    overrule: Overrule = FOR_HANDS
    refiner: Path | None = REFINER
    """None: the pips read from the boxes as kept."""
    verifier: Path | str | None = OWN_VERDICT
    """What says whether a box is one tile: OWN_VERDICT (the refiner's verdict), a tile verifier's
    ONNX, or None (the detector's boxes as it keeps them alone)."""
    highest: int | None = None
    """The set's highest double; None: judged from the photo."""
    detector_size: int = DETECTOR_SIZE
    marker_confidence: float = MARKER_CONFIDENCE
    """A train marker box kept (a detector that knows markers)."""
    hub_confidence: float = HUB_CONFIDENCE
    """The hub box kept (a detector that knows hubs)."""
    second_look: SecondLook | None = SECOND_LOOK
    closer_look: CloserLook | None = CLOSER_LOOK
    brighten: bool = True
    slant: float | None = SLANT
    """None: never a look at the photo redrawn square-on (and none of the settings below it)."""
    doubt_slant: float | None = DOUBT_SLANT
    refine_in_view: bool = REFINE_IN_VIEW
    spread_slant: float | None = SPREAD_SLANT
    slant_again: float | None = SLANT_AGAIN
    foreshortened: float | None = FORESHORTENED
    square_on_looks: int = SQUARE_ON_LOOKS
    odd_shape: float | None = ODD_SHAPE
    smallest_box: float | None = SMALLEST_BOX
    covered: float | None = COVERED
    """None: boxes inside better ones kept (before refining and after)."""
    in_frame: float = READ_IN_FRAME
    """The share of each half a box must have inside the photo to be read."""
    weighing: Weighing = WEIGHING
    """How the verifier's answers weigh (its proposal confidence stays WEIGHING's)."""
    other_pose: float | None = OTHER_POSE
    one_of_each: bool = ONE_OF_EACH
    phantom: float | None = PHANTOM
    """None: boxes far smaller than the tiles counted are reported too (as uncertain)."""
    across: float | None = ACROSS
    least_score: float | None = LEAST_BOX_SCORE


class HandScorer:
    """Load the models once; call with a BGR image. ``HandScorer(config)``, or the bundled settings
    with a few changed: ``HandScorer(slant=None)``."""

    def __init__(self, config: ScorerConfig = ScorerConfig(), **changes: Any) -> None:
        self.config = config = config.replace(**changes)
        self.refiner = None if config.refiner is None else BoxRefiner(config.refiner)
        self.verifier: TileVerifier | BoxRefiner | None = None
        if config.verifier is None:
            conf, iou = DETECT_CONFIDENCE, DETECT_NMS_IOU
        else:
            conf, iou = PROPOSAL_CONFIDENCE, PROPOSAL_NMS_IOU
            self.verifier = judge_of(config.verifier, self.refiner)
        self.detector = OBBDetector(config.detector, config.detector_size, conf=conf, iou=iou)
        self.reader = PipReader(config.counter, in_frame=config.in_frame, peaks=config.peaks, overrule=config.overrule)
        self.second_look = config.second_look if self.detector.dynamic else None  # a fixed-size export sees one size

    def find_tiles(
        self, image_bgr: np.ndarray, view: View | None = None, placed: Placed | None = None, redrawn: bool = False
    ) -> tuple[list[np.ndarray], np.ndarray, Proposals, Landmarks]:
        """The face-up tiles' corners and scores, best first, what the looks proposed, and the train
        markers and hub found (a detector that knows them: ``landmarks_in``) (``view``:
        the detector's, made already; ``placed``: where the refiner's verdict was asked, the boxes
        it refined then, for ``refined`` on the same image; ``redrawn``: the image is a view redrawn
        square-on, looked at again only where few tiles are found there)."""
        looks = [self.detector.look(image_bgr, view=view)]
        found = self.detector.decode(looks)
        frame, closer = (image_bgr.shape[1], image_bgr.shape[0]), self.config.closer_look
        region = None if closer is None else closer_region(found, frame, self.detector.imgsz, closer)
        if region is not None:  # the tiles seen small: look at where they lie, closer
            looks.append(self.detector.look_within(image_bgr, region))
            found = self.detector.decode(looks)
        again = self.second_look
        if again is None:
            return *self.choose(image_bgr, found, placed), found.proposals, self.landmarks_in(found)
        if redrawn and face_up_boxes(found) > again.few_tiles:
            corners, scores = self.choose(image_bgr, found, placed)
            if len(corners) > again.few_tiles:
                return corners, scores, found.proposals, self.landmarks_in(found)
        smaller = self.detector.look(image_bgr, again.size)
        looks.append(only_sure_and_large(smaller, again.least_score, again.least_share * max(image_bgr.shape[:2])))
        found = self.detector.decode(looks)
        return *self.choose(image_bgr, found, placed), found.proposals, self.landmarks_in(found)

    def landmarks_in(self, found: Detections) -> Landmarks:
        """The train markers among the detections, surest first, and the surest hub
        (``ScorerConfig.marker_confidence``, ``hub_confidence``; none where the detector knows none)."""
        markers = [Marker(*box) for box in self._of_class(found, MARKER_NAME, self.config.marker_confidence)]
        hubs = self._of_class(found, HUB_NAME, self.config.hub_confidence)
        return Landmarks(tuple(markers), Hub.round(hubs[0][0]) if hubs else None)

    def _of_class(self, found: Detections, name: str, least: float) -> list[tuple[np.ndarray, float]]:
        """The boxes of the detector's class ``name`` scoring ``least`` or more, surest first."""
        if name not in self.detector.names:
            return []
        kept = (found.classes == self.detector.names.index(name)) & (found.scores >= least)
        order = np.argsort(-found.scores[kept], kind="stable")
        return [(found.corners[kept][i], float(found.scores[kept][i])) for i in order]

    def choose(
        self, image_bgr: np.ndarray, found: Detections, placed: Placed | None = None
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """The face-up boxes worth keeping (weighed with the verifier's view when there is one;
        ``placed``: see ``find_tiles``)."""
        face_up = found.classes == FACE_UP_CLASS
        corners, scores = found.corners[face_up], found.scores[face_up]
        if self.verifier is not None:
            verifier, judged = self.verifier, {} if placed is None else placed

            def verify(boxes: np.ndarray) -> np.ndarray:
                return verifier.judge(image_bgr, list(corners[boxes]), judged)

            kept, scores = choose_verified(corners, scores, verify, self.config.weighing)
            corners = corners[kept]
        if self.config.covered is not None:  # both ways the boxes come best first, as covered_by_better takes them
            alone = ~covered_by_better(corners, self.config.covered)
            corners, scores = corners[alone], scores[alone]
        return list(corners), scores

    def square_on_again(
        self,
        image_bgr: np.ndarray,
        corners: list[np.ndarray],
        scores: np.ndarray,
        proposals: Proposals,
        judged_by: list[np.ndarray] | None = None,
        slant: float | None = None,
    ) -> tuple[list[np.ndarray], np.ndarray, Proposals]:
        """Where the tiles found say the photo was taken at a slant (``SLANT``, ``SPREAD_SLANT``,
        ``FORESHORTENED``), find them again in the photo redrawn square-on, and again while the tiles
        found there say the view is still slanted (``SLANT_AGAIN``, ``FORESHORTENED``), up to
        ``SQUARE_ON_LOOKS`` views; their boxes are refined there (``REFINE_IN_VIEW``) and taken back
        to the photo, with what the last view's looks
        proposed, taken back to the photo too. Otherwise the tiles as found (the very lists given).

        ``judged_by``: the boxes whose sizes and shapes tell the slant and fit the plane (default: all
        of them). The pipeline gives those whose pips were read surely: boxes over no tile come in
        every size, and a few over black leather's grain took a photo from above for a slanted one,
        whose redrawn view lost a pink tile (Rakeduk's b4.jpg). ``slant``: the threshold in ``SLANT``'s
        place (the pipeline gives ``DOUBT_SLANT`` where the first look left doubt)."""
        assert self.config.slant is not None
        slant = self.config.slant if slant is None else slant
        telling = corners if judged_by is None else judged_by
        spread = size_spread(telling)
        foreshortened = self.looks_foreshortened(telling)
        if spread <= slant and not foreshortened:
            return corners, scores, proposals  # most photos: no plane to fit
        plane = table_plane(telling)
        spread_says = self.config.spread_slant is not None and spread > self.config.spread_slant
        if plane is None or (plane.slant <= slant and not spread_says and not foreshortened):
            return corners, scores, proposals
        for look in range(self.config.square_on_looks):
            view, matrix = square_on(image_bgr, plane, corners, VIEW_OVER_INPUT * self.detector.imgsz)
            in_view: Placed = {}
            found, scores, proposed, _ = self.find_tiles(view, placed=in_view, redrawn=True)
            if self.refiner is not None and self.config.refine_in_view:
                found, scores = self.refined(view, found, scores, in_view)
            corners = back_to_photo(matrix, found)
            proposals = Proposals(points_to_photo(matrix, proposed.centres), proposed.scores)
            if self.refiner is not None and not self.config.refine_in_view:
                corners, scores = self.refined(image_bgr, corners, scores)
            if look == self.config.square_on_looks - 1 or self.config.slant_again is None:
                break
            seen = table_plane(back_to_photo(np.linalg.inv(matrix), corners))
            if seen is None or (seen.slant <= self.config.slant_again and not self.looks_foreshortened(found)):
                break
            plane = TablePlane(seen.to_plane @ matrix, seen.slant)  # photo -> view -> its plane
        return corners, scores, proposals

    def looks_foreshortened(self, corners: list[np.ndarray]) -> bool:
        """Whether the boxes are at the median longer for their width than ``foreshortened`` (``FORESHORTENED``)."""
        if self.config.foreshortened is None or len(corners) < FORESHORTENED_TILES:
            return False
        return float(np.median(side_ratios(np.asarray(corners)))) > self.config.foreshortened

    def refined(
        self, image_bgr: np.ndarray, corners: list[np.ndarray], scores: np.ndarray, placed: Placed | None = None
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """The boxes (best first) refined, and those that then lie on a better one dropped (``COVERED``,
        ``REFINED_IOU``): two boxes over parts of one tile can both be moved onto all of it. ``placed``:
        boxes refined already in this image (``find_tiles``)."""
        assert self.refiner is not None
        corners = self.refiner(image_bgr, corners, placed)
        if self.config.covered is None:
            return corners, scores
        alone = np.flatnonzero(~covered_by_better(np.asarray(corners), self.config.covered, REFINED_IOU))
        return [corners[i] for i in alone], scores[alone]

    def odd_ones(
        self, corners: list[np.ndarray], readings: list[Reading], frame: tuple[int, int]
    ) -> list[Reason | None]:
        """``odd_shapes``' reasons for the boxes as read (only boxes read surely tell the plane)."""
        read = [not reading.uncertain for reading in readings]
        return odd_shapes(corners, self.config.odd_shape, self.config.smallest_box, frame, read)

    def __call__(self, image_bgr: np.ndarray, label: object = None) -> Observation:
        """Score a photo (``label`` is accepted for the evaluation harness and ignored)."""
        start = time.perf_counter()
        view = self.detector.view(image_bgr)
        if self.config.brighten:
            brighter = brightened(image_bgr, judged_on=view.shrunk)
            if brighter is not image_bgr:  # a dim photo: the detector sees it brightened too
                image_bgr, view = brighter, self.detector.view(brighter)
        placed: Placed = {}  # boxes the refiner's verdict refined in this image, for refining
        corners, scores, proposals, landmarks = self.find_tiles(image_bgr, view, placed)
        if self.refiner is not None:
            corners, scores = self.refined(image_bgr, corners, scores, placed)
        begun, frame = time.perf_counter(), (image_bgr.shape[1], image_bgr.shape[0])
        readings = self.reader.read(image_bgr, corners, self.config.highest)
        odd = self.odd_ones(corners, readings, frame)
        spent_reading = time.perf_counter() - begun  # with the tests after it
        if self.config.slant is not None:
            sure = [quad for quad, read in zip(corners, readings, strict=True) if not read.uncertain]
            # a back refused or a tile at the frame's edge is no doubt a square-on view could mend
            unsure = any(read.why == UNSURE for read in readings)
            doubt = self.config.doubt_slant is not None and (unsure or any(odd))
            slant = self.config.doubt_slant if doubt else self.config.slant
            looked = self.square_on_again(image_bgr, corners, scores, proposals, judged_by=sure, slant=slant)
            if looked[0] is not corners:  # found again square-on: read again
                begun = time.perf_counter()
                again = self.reader.read(image_bgr, looked[0], self.config.highest)
                odd_again = self.odd_ones(looked[0], again, frame)
                spent_reading += time.perf_counter() - begun
                (corners, scores, proposals), readings, odd = looked, again, odd_again
        detected = time.perf_counter() - spent_reading  # timed as if the tiles were all found, then read
        tiles, cut_by_frame = apart_at_edge(
            leave_out(self.config, Found(corners, scores, readings, odd, proposals), frame)
        )
        done = time.perf_counter()
        timings = {
            "detect": (detected - start) * 1000,
            "pips": (done - detected) * 1000,
            "total": (done - start) * 1000,
        }
        over_set = sum(reading.over_set for reading in readings)
        return Observation(
            tiles, *frame, timings_ms=timings, over_set=over_set, cut_by_frame=cut_by_frame,
            markers=landmarks.markers, hub=landmarks.hub,
        )  # fmt: skip


class Landmarks(NamedTuple):
    """What a table detector sees besides tiles: train markers, surest first, and the hub."""

    markers: tuple[Marker, ...] = ()
    hub: Hub | None = None


def judge_of(verifier: Path | str, refiner: BoxRefiner | None) -> TileVerifier | BoxRefiner:
    """What says whether each box is one tile: the tile verifier at ``verifier``, or (``OWN_VERDICT``)
    the ``refiner`` (the bundled one where the pipeline refines no boxes)."""
    if verifier != OWN_VERDICT:
        return TileVerifier(Path(verifier))
    judge = refiner or BoxRefiner(REFINER)
    if not judge.judges:
        raise ValueError(f"{NO_VERDICT}: give a tile verifier")
    return judge
