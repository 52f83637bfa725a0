"""The pip reader at run time: a small half-counting network in ONNX, run by onnxruntime.

Each half gets a count 0-18 and a confidence. A reading is refused (the tile is
reported uncertain, never guessed) when a half's confidence is low, or when the count
is impossible for the set in play (above its highest double), or when a half reaches beyond
the photo's edge (its pips cannot all be seen), or when the counter says a half holds no count
at all (a printed back's: see COUNTS). When the set is not
given, the photo tells it: sets are double-6, 9, 12, 15 or 18, and the smallest that
holds every confidently read count is taken (a glare streak read as 13 pips in a photo
whose sure counts are all 6 or less is then impossible).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.tiles import SET_SIZES
from vision.geometry import halves_in_frame_each, tile_length
from vision.observation import Reason
from vision.onnx_session import as_input, cpu_session
from vision.read.fusion import FOR_HANDS, Overrule, overruled
from vision.read.halves import cut_halves
from vision.read.pip_peaks import PipPeakReader

COUNTS = max(SET_SIZES) + 1
"""A half holds 0-18 pips. A counter may give one answer more, "no count" (a printed back's half):
a half for which it is the likelier (NO_COUNT) is refused and its tile reported uncertain."""
NO_COUNT = 0.5
"""A half the counter says holds no count with at least this probability is refused; below it the
counts are read as if it were a face's (benchmarks/results/real_variants.md)."""
SURE = 0.75
"""A half read at least this confidently bounds the set from below: the highest of the thresholds
with the most exact totals (runs: benchmarks/HISTORY.md)."""
SURE_HALVES = 2
"""Fewer halves than this read SURE say nothing of the set in play (a lone double-12 tile held up
close); totals are the same from 2 to 4, the fewest taken."""
MIN_CONFIDENCE = 0.4
"""A tile with a half read below this is uncertain: listed, left out of the total. Chosen by
benchmarks/reader_confidence.py@d88286a (benchmarks/results/reader_confidence.md) and the whole pipeline."""
READ_IN_FRAME = 0.88
"""A tile is read only where each half of its box lies at least this share inside the photo (above
HALF_IN_FRAME: the refiner guesses cut tiles short). Chosen by benchmarks/in_frame.py@d88286a (results/in_frame.md)."""
RECHECK = 0.9
"""A half read below this is read again turned round and mirrored, the readings averaged
(benchmarks/results/reader_confidence.md)."""
REREAD_VIEWS = 3
"""How many other views of a doubtful half are read: turned round, then mirrored either way
(only turned round read 5 synthetic and 1 real half more wrong)."""


BEYOND_FRAME, HOLDS_NO_COUNT, UNSURE = Reason.BEYOND_FRAME, Reason.NO_COUNT, Reason.READ_UNSURE
"""Why a reading is uncertain: a half lies too far beyond the photo's edge (READ_IN_FRAME), the
counter says a half holds no count (a printed back's: NO_COUNT), or a half is read less surely than
MIN_CONFIDENCE."""


@dataclass(frozen=True)
class Reading:
    pips: tuple[int, int]
    confidence: tuple[float, float]
    why: Reason | None = None
    """Why it is uncertain (BEYOND_FRAME, HOLDS_NO_COUNT or UNSURE, the first that holds); None when not."""
    over_set: bool = False
    """Whether a half was read surely (SURE) as more pips than the set given allows: the photo
    says the set is larger."""
    odds: np.ndarray | None = field(default=None, compare=False)
    """``(2, COUNTS)``: each half's probability of each count, in ``pips``' order (counts above the
    set at 0), for a rules prior to weigh a half's close candidates (``vision.reconcile``)."""

    @property
    def uncertain(self) -> bool:
        return self.why is not None


class PipReader:
    def __init__(
        self,
        model_path: Path,
        min_confidence: float = MIN_CONFIDENCE,
        reread_views: int = REREAD_VIEWS,
        in_frame: float = READ_IN_FRAME,
        peaks: Path | None = None,
        overrule: Overrule = FOR_HANDS,
    ) -> None:
        """``in_frame``: the share of each half that must lie inside the photo for a tile to be read
        (HALF_IN_FRAME for corners known exactly, as labelled ones are); ``peaks``: a pip-peak
        counter's ONNX that overrules the counter where ``overrule`` says (``vision.read.fusion``; None: not asked)."""
        self.session = cpu_session(model_path, "pip counter")
        self.min_confidence = min_confidence
        self.reread_views = reread_views
        self.in_frame = in_frame
        self.half_px = int(self.session.get_inputs()[0].shape[2])
        """The side of a half as the model was trained (its input's fixed height and width)."""
        self.outputs = int(self.session.get_outputs()[0].shape[1])
        self.peaks = None if peaks is None else PipPeakReader(peaks)
        self.overrule = overrule
        if self.peaks is not None and self.peaks.half_px != self.half_px:
            raise ValueError(f"the peak counter reads {self.peaks.half_px} px halves, the counter {self.half_px} px")

    def probabilities(self, halves: np.ndarray) -> np.ndarray:
        """``(n, outputs)`` probabilities of each count (and of a cut half, where the counter says
        that: see COUNTS) for ``(n, H, W, 3)`` uint8 BGR halves."""
        if len(halves) == 0:
            return np.zeros((0, self.outputs), np.float32)
        (logits,) = self.session.run(None, {"halves": as_input(halves)})
        logits = logits - logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return odds / odds.sum(axis=1, keepdims=True)

    def looked_again(self, halves: np.ndarray) -> np.ndarray:
        """``probabilities``, a half read less surely than RECHECK read again in other views, averaged."""
        probabilities = self.probabilities(halves)
        again = probabilities.max(axis=1) < RECHECK
        if again.any():
            views = symmetric_views(halves[again])[1 : 1 + self.reread_views]  # as it is: read already
            read = self.probabilities(np.concatenate(views))  # one batch: one call's overhead
            turned = read.reshape(len(views), -1, probabilities.shape[1])
            probabilities[again] = (probabilities[again] + turned.sum(axis=0)) / (len(views) + 1)
        return probabilities

    def overruled(self, odds: np.ndarray, halves: np.ndarray, corners: list[np.ndarray]) -> np.ndarray:
        """``odds`` with the peak counter's say (``vision.read.fusion``), asked only of tiles large enough."""
        assert self.peaks is not None
        tile_px = np.repeat([tile_length(quad) for quad in corners], 2).astype(np.float32)
        asked = tile_px >= self.overrule.peaks_from_px
        peak_counts, peak_unsure = np.zeros(len(halves), np.int64), np.ones(len(halves), bool)
        if asked.any():
            peak_counts[asked], peak_unsure[asked] = self.peaks.count(halves[asked])
        return overruled(odds, peak_counts, peak_unsure, tile_px, self.overrule)

    def read(self, image_bgr: np.ndarray, corners: list[np.ndarray], highest: int | None = None) -> list[Reading]:
        """Read every tile; counts above ``highest`` (the set's highest double; None: judged
        from the photo, see ``likely_set``) are impossible and refused."""
        halves = cut_halves(image_bgr, corners, self.half_px)
        probabilities = self.looked_again(halves)
        if self.peaks is not None:
            probabilities[:, :COUNTS] = self.overruled(probabilities[:, :COUNTS], halves, corners)
        if highest is None:
            highest = likely_set(probabilities)
        no_count = probabilities[:, COUNTS:].sum(axis=1)  # a cut half's or a back's (0 for a counter without)
        probabilities = probabilities[:, :COUNTS] / np.maximum(1 - no_count, 1e-9)[:, None]
        over_set = ((probabilities.argmax(axis=1) > highest) & (probabilities.max(axis=1) >= SURE)).reshape(-1, 2)
        probabilities[:, highest + 1 :] = 0.0  # an impossible count is never the answer ...
        counts = probabilities.argmax(axis=1)
        uncountable = no_count >= NO_COUNT
        confidence = np.where(uncountable, 0.0, probabilities.max(axis=1))  # ... and lowers the confidence
        height, width = image_bgr.shape[:2]
        pairs = counts.reshape(-1, 2).tolist(), confidence.reshape(-1, 2).tolist()
        beyond = (~halves_in_frame_each(corners, width, height, self.in_frame)).tolist()
        refused = uncountable.reshape(-1, 2).any(axis=1).tolist()
        readings = []
        over = over_set.any(axis=1).tolist()
        odds = probabilities.reshape(-1, 2, COUNTS)
        for (first, second), sure, cut, blank, above, each in zip(*pairs, beyond, refused, over, odds, strict=True):
            unsure = min(sure) < self.min_confidence  # a half holding no count is read at 0: unsure too
            why = BEYOND_FRAME if cut else (HOLDS_NO_COUNT if blank else UNSURE) if unsure else None
            readings.append(Reading((first, second), (sure[0], sure[1]), why, above, each))
        return readings


def symmetric_views(halves: np.ndarray) -> list[np.ndarray]:
    """``(n, H, W, 3)`` halves as they are, turned half round, and mirrored either way."""
    return [halves, halves[:, ::-1, ::-1], halves[:, ::-1, :], halves[:, :, ::-1]]


def likely_set(probabilities: np.ndarray) -> int:
    """The smallest set (its highest double) that holds every count read with confidence ``SURE``;
    the largest where fewer than SURE_HALVES halves are read so (the photo tells nothing of it)."""
    counts = probabilities[:, :COUNTS]
    sure = counts.max(axis=1) >= SURE
    if sure.sum() < SURE_HALVES:
        return max(SET_SIZES)
    top = int(counts.argmax(axis=1)[sure].max())
    return next(size for size in SET_SIZES if size >= top)
