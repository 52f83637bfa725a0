"""Scoring predictions against labels, one image at a time, then over a set.

- Tiles are matched one to one by polygon IoU >= 0.5, greedily from the best pair.
- Per-half accuracy is judged on matched, readable tiles, half by half at the same
  end of the tile (so a tile read right but turned round counts its halves wrong);
  an exact tile is the right pair of numbers in either order.
- Kept apart (issue 65): the readable tiles called unsure (left out of the total, flagged
  ``unreadable_tile`` on a table), and the halves of tiles read surely that are wrong.
- Every rate comes with a Wilson 95 % interval.

>>> round(polygon_iou(square(0, 0, 2), square(1, 0, 2)), 3)
0.333
>>> [round(value, 3) for value in wilson(9, 10)]
[0.596, 0.982]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from benchmarks.eval.tables import FLAG_KINDS, TableScore, score_table
from datasets.labels import FACE_UP, LabelledImage
from vision.geometry import quad_iou
from vision.observation import Observation, Sighting

IOU_MATCH = 0.5


@dataclass(frozen=True)
class ImageScore:
    name: str
    labelled: int
    predicted: int
    matched: int
    halves: int
    halves_right: int
    tiles_read: int
    tiles_exact: int
    total_label: int | None
    total_predicted: int | None
    chains_label: int
    chains_right: int | None
    flags_label: int
    flags_predicted: int
    flags_right: int
    timings_ms: dict[str, float]
    error: str | None
    table: TableScore | None = None
    """Hub, engine, trains, lines and flags, where a table reader read the photo."""
    tiles_unsure: int = 0
    """Of ``tiles_read`` (matched readable tiles), those the prediction calls uncertain."""
    halves_sure: int = 0
    """Halves of matched readable tiles read surely (no reason to leave them out) ..."""
    halves_sure_wrong: int = 0
    """... and of those, the ones read wrong."""

    @property
    def total_exact(self) -> bool | None:
        if self.total_label is None:
            return None
        return self.total_predicted == self.total_label

    @property
    def failed_stage(self) -> str:
        """The first stage that went wrong: chesscog's blame, one word per image."""
        if self.error:
            return "error"
        if self.matched < self.labelled or self.predicted > self.matched:
            return "detection"
        if self.halves_right < self.halves or self.tiles_exact < self.tiles_read or self.total_exact is False:
            return "pips"
        table = self.table
        if table is not None and (table.hub_found is False or table.engine_right is False):
            return "hub"
        if self.chains_right is not None and self.chains_right < self.chains_label:
            return "trains"
        if table is not None and (table.trains_right is False or table.lines_found < table.lines_label):
            return "trains"
        if self.flags_right < max(self.flags_label, self.flags_predicted):
            return "flags"
        return "none"


def square(x: float, y: float, side: float) -> np.ndarray:
    """An axis-aligned square's corners (for examples and tests)."""
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], dtype=np.float32)


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quadrilaterals."""
    return quad_iou(a, b)


def match_tiles(label: Sequence[np.ndarray], predicted: Sequence[np.ndarray]) -> list[tuple[int, int]]:
    """One-to-one (label index, predicted index) pairs with IoU >= 0.5, best pairs first."""
    pairs = []
    for i, corners_label in enumerate(label):
        box_label = cv2.boundingRect(corners_label.astype(np.float32))
        for j, corners_predicted in enumerate(predicted):
            if _boxes_overlap(box_label, cv2.boundingRect(corners_predicted.astype(np.float32))):
                iou = polygon_iou(corners_label, corners_predicted)
                if iou >= IOU_MATCH:
                    pairs.append((iou, i, j))
    used_label, used_predicted, matches = set(), set(), []
    for _, i, j in sorted(pairs, reverse=True):
        if i not in used_label and j not in used_predicted:
            used_label.add(i)
            used_predicted.add(j)
            matches.append((i, j))
    return sorted(matches)


def aligned_halves(label_corners: np.ndarray, predicted_corners: np.ndarray) -> bool:
    """Whether the predicted pips[0] end lies at the label's pips[0] end (else it is turned round)."""
    label_end = label_corners[:2].mean(axis=0)
    label_other = label_corners[2:].mean(axis=0)
    predicted_end = predicted_corners[:2].mean(axis=0)
    return bool(np.linalg.norm(predicted_end - label_end) <= np.linalg.norm(predicted_end - label_other))


def in_label_order(label_corners: np.ndarray, predicted: Sighting) -> tuple[int, int] | None:
    """The predicted pips with the label's pips[0] end first (None where nothing was read)."""
    if predicted.pips is None:
        return None
    return predicted.pips if aligned_halves(label_corners, predicted.corners) else predicted.pips[::-1]


def face_up_matches(label: LabelledImage, prediction: Observation) -> list[tuple[int, int]]:
    """(label tile index, predicted tile index) pairs: ``match_tiles`` among the face-up tiles only."""
    face_up = [index for index, tile in enumerate(label.tiles) if tile.pose == FACE_UP]
    pairs = match_tiles([label.tiles[i].corners for i in face_up], [tile.corners for tile in prediction.found])
    return [(face_up[i], j) for i, j in pairs]


def score_image(label: LabelledImage, prediction: Observation) -> ImageScore:
    """Score one image's prediction against its label.

    Only face-up tiles are to be found (readable or not): face-down and standing ones are not
    counted, so a prediction on one of them is a false find."""
    matches = face_up_matches(label, prediction)
    halves = halves_right = read = exact = unsure = sure = sure_wrong = 0
    if label.has_pips:
        for i, j in matches:
            truth, guess = label.tiles[i], prediction.found[j]
            if not truth.counted or truth.pips is None:
                continue
            read += 1
            halves += 2
            unsure += int(guess.reason is not None)
            ordered = in_label_order(truth.corners, guess)
            if ordered is None:
                continue
            right = [a == b for a, b in zip(ordered, truth.pips, strict=True)]
            halves_right += sum(right)
            exact += int(sorted(ordered) == sorted(truth.pips))
            if guess.reason is None:
                sure += 2
                sure_wrong += right.count(False)
    total_predicted = prediction.total
    # a table reader reports trains apart from chains: its lines are scored by benchmarks.eval.tables
    chains_right = _chains_right(label, prediction, matches) if prediction.layout is None else None
    table = score_table(label, prediction, matches)
    if table is None:
        flags_right = _flags_right(label, prediction, matches)
        flags_label, flags_predicted = len(label.flags), len(prediction.flags or ())
    else:  # every kind, as benchmarks.eval.tables judges them
        flags_right, flags_predicted, flags_label = (sum(kind[n] for kind in table.flags.values()) for n in range(3))
    return ImageScore(
        name=label.name,
        labelled=sum(tile.pose == FACE_UP for tile in label.tiles),
        predicted=len(prediction.found),
        matched=len(matches),
        halves=halves,
        halves_right=halves_right,
        tiles_read=read,
        tiles_exact=exact,
        total_label=label.total_pips,
        total_predicted=total_predicted if label.has_pips else None,
        chains_label=len(label.chains),
        chains_right=chains_right,
        flags_label=flags_label,
        flags_predicted=flags_predicted,
        flags_right=flags_right,
        timings_ms=dict(prediction.timings_ms),
        error=prediction.error,
        table=table,
        tiles_unsure=unsure,
        halves_sure=sure,
        halves_sure_wrong=sure_wrong,
    )


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a rate (95 % by default); (0, 1) when nothing was tried."""
    if trials == 0:
        return (0.0, 1.0)
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    spread = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - spread), min(1.0, centre + spread))


@dataclass(frozen=True)
class Rate:
    name: str
    successes: int
    trials: int

    @property
    def value(self) -> float | None:
        return self.successes / self.trials if self.trials else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.successes, self.trials)


def summarise(scores: Sequence[ImageScore]) -> dict[str, object]:
    """The set's rates with Wilson intervals, the mean absolute total error and stage timings."""
    totals = [score for score in scores if score.total_label is not None]
    with_chains = [score for score in scores if score.chains_label and score.chains_right is not None]
    rates = [
        Rate("tile recall", sum(s.matched for s in scores), sum(s.labelled for s in scores)),
        Rate("tile precision", sum(s.matched for s in scores), sum(s.predicted for s in scores)),
        Rate("per-half accuracy", sum(s.halves_right for s in scores), sum(s.halves for s in scores)),
        Rate("exact tile", sum(s.tiles_exact for s in scores), sum(s.tiles_read for s in scores)),
        Rate("readable tiles called unsure", sum(s.tiles_unsure for s in scores), sum(s.tiles_read for s in scores)),
        Rate(
            "halves read surely but wrong",
            sum(s.halves_sure_wrong for s in scores),
            sum(s.halves_sure for s in scores),
        ),
        Rate("exact photo total", sum(bool(s.total_exact) for s in totals), len(totals)),
        Rate("chains exactly right", sum(s.chains_right == s.chains_label for s in with_chains), len(with_chains)),
        Rate("flag precision", sum(s.flags_right for s in scores), sum(s.flags_predicted for s in scores)),
        Rate("flag recall", sum(s.flags_right for s in scores), sum(s.flags_label for s in scores)),
    ]
    rates += _table_rates([score.table for score in scores if score.table is not None])
    errors = [abs((s.total_predicted or 0) - (s.total_label or 0)) for s in totals]
    stages = sorted({stage for score in scores for stage in score.timings_ms})
    timings = {
        stage: float(np.mean([s.timings_ms[stage] for s in scores if stage in s.timings_ms])) for stage in stages
    }
    blame: dict[str, int] = {}
    for score in scores:
        blame[score.failed_stage] = blame.get(score.failed_stage, 0) + 1
    return {
        "images": len(scores),
        "rates": rates,
        "mean_abs_total_error": float(np.mean(errors)) if errors else None,
        "mean_timings_ms": timings,
        "failed_stage": blame,
    }


def _table_rates(tables: Sequence[TableScore]) -> list[Rate]:
    """The rates of table reading (none where no table reader ran)."""
    if not tables:
        return []
    on_tables = [table for table in tables if table.is_table]
    rates = [
        Rate("hub found", sum(bool(t.hub_found) for t in on_tables), len(on_tables)),
        Rate("engine right", sum(bool(t.engine_right) for t in on_tables), len(on_tables)),
        Rate("tables with every train right", sum(bool(t.trains_right) for t in on_tables), len(on_tables)),
        Rate("lines found", sum(t.lines_found for t in tables), sum(t.lines_label for t in tables)),
    ]
    placed = [t.markers for t in tables if t.markers is not None]
    if placed:
        right, read, labelled = (sum(counts[n] for counts in placed) for n in range(3))
        rates += [Rate("marker precision", right, read), Rate("marker recall", right, labelled)]
    for kind in FLAG_KINDS:
        right, read, labelled = (sum(t.flags.get(kind, (0, 0, 0))[n] for t in tables) for n in range(3))
        if read or labelled:
            rates += [Rate(f"{kind} precision", right, read), Rate(f"{kind} recall", right, labelled)]
    return rates


def _chains_right(label: LabelledImage, prediction: Observation, matches: list[tuple[int, int]]) -> int | None:
    """How many labelled chains the prediction has exactly (either direction); None if it gave none."""
    if prediction.chains is None:
        return None
    to_label = {j: i for i, j in matches}
    predicted = set()
    for chain in prediction.chains:
        mapped = tuple(to_label.get(index, -1) for index in chain)
        predicted.add(mapped)
        predicted.add(mapped[::-1])
    return sum(tuple(chain) in predicted for chain in label.chains)


def _flags_right(label: LabelledImage, prediction: Observation, matches: list[tuple[int, int]]) -> int:
    """Flags that agree in kind and in the (matched) tiles they name."""
    if not prediction.flags:
        return 0
    to_label = {j: i for i, j in matches}
    said = {(flag.kind.value, frozenset(to_label.get(index, -1) for index in flag.tiles)) for flag in prediction.flags}
    return sum((flag.get("kind"), frozenset(flag.get("tiles", ()))) in said for flag in label.flags)


def _boxes_overlap(a: Sequence[int], b: Sequence[int]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
