"""Where the pip-peak counter overrules the classifier (issue 67).

The classifier (``vision.read.pip_reader``) knows each count by the layouts it was taught: a maker's
ten drawn another way it reads, surely, as 13. The peak counter (``vision.read.pip_peaks``) counts
the pips it finds and cannot learn a layout, but it is weak on small tiles and, on a low count, now
and then takes a speck for a pip or misses one. So a half keeps the classifier's odds except where
the peak counter is sure, the tile is long enough, and the two disagree; even then a sure low
classifier count within a pip of the peaks' stands (those layouts are every maker's), and so does a
very sure count against fewer peaks (a pip missed among many). ``Overrule`` says when; FOR_HANDS
was chosen by ``benchmarks.pip_fusion``. The table reader hears the peaks only on tiles of 80 px and
more (FOR_TABLES): on smaller ones they cost the referee more than they mend (benchmarks/HISTORY.md).

>>> odds = np.zeros((3, 19)); odds[[0, 1, 2], [7, 7, 3]] = 1.0  # the classifier, sure: 7, 7 and 3 pips
>>> fused = overruled(odds, peak_counts=np.array([10, 10, 4]), peak_unsure=np.array([False, True, False]),
...                   tile_px=np.array([120.0, 120.0, 120.0]))
>>> fused.argmax(axis=1).tolist()  # sure peaks overrule, unsure ones say nothing, a sure low count stands
[10, 7, 3]
>>> small = overruled(odds[:1], np.array([10]), np.array([False]), tile_px=np.array([40.0]))
>>> int(small.argmax())  # too small a tile for the peaks
7
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PEAKS_SURE = 0.95
"""The odds a count the peaks decide gets; the rest goes to one pip fewer and one more, for the rules
prior to weigh (a peak counter that is sure is right on about 0.97 of halves)."""


@dataclass(frozen=True)
class Overrule:
    """When the peaks overrule the classifier."""

    peaks_from_px: float = 50.0
    """The peak counter is heard only on tiles at least this long (in the photo): below about 50 px it
    is unsure of two halves in three and wrong on several percent of the rest."""
    classifier_keeps: int = 6
    """A sure classifier count of at most this many pips ..."""
    within: int = 1
    """... within this many pips of the peaks' count stands against the peaks ..."""
    classifier_sure: float = 0.9
    """... where the classifier is at least this sure of it."""
    fewer_peaks_from: float = 0.99
    """A classifier count at least this sure stands against fewer peaks (the peaks miss a pip among
    many more often than they invent one; above 1: never)."""


FOR_HANDS = Overrule()
"""The hand scorer's: the most halves right among settings losing at most 0.002 per-half on hands
drawn in the usual makers' layouts and no exactly read real photo (of settings as good, the one that
hears the peaks least)."""

FOR_TABLES = Overrule(peaks_from_px=80.0)
"""The table reader's: heard from 80 px, where a phone's photo of a table has its tiles. On 60 tables
of layouts never learnt at 2560x1920, per-half 0.59 -> 0.94 and ``illegal_join`` precision / recall
0.33 / 0.61 -> 0.47 / 0.89; on the usual layouts it costs a little (the 200 held-out tables at
2560x1920: per-half 0.995 -> 0.993, ``illegal_join`` precision 0.865 -> 0.846; at 1280x960, three
false ``illegal_join`` more). Heard from 50 px it cost more at 1280x960 (precision 0.74 -> 0.66);
from 110 px it gained less (0.86 per-half on the unseen layouts); a classifier sure to 0.99 left
to stand, or the peaks' count given odds 0.7, lost most of the gain (benchmarks/HISTORY.md)."""


def overruled(
    odds: np.ndarray, peak_counts: np.ndarray, peak_unsure: np.ndarray, tile_px: np.ndarray, rule: Overrule = FOR_HANDS
) -> np.ndarray:
    """``(n, k)`` odds of each count (``odds``, the classifier's, each row's total kept) with the peak
    counter's count where it overrules: ``peak_counts`` and ``peak_unsure`` ``(n,)`` per half,
    ``tile_px`` ``(n,)`` the length of each half's tile in the photo."""
    odds = np.array(odds, np.float64)
    said, sure = odds.argmax(axis=1), odds.max(axis=1) / np.maximum(odds.sum(axis=1), 1e-12)
    low = (said <= rule.classifier_keeps) & (np.abs(said - peak_counts) <= rule.within) & (sure >= rule.classifier_sure)
    stands = low | ((peak_counts < said) & (sure >= rule.fewer_peaks_from))
    big_enough = np.asarray(tile_px) >= rule.peaks_from_px
    heard = ~np.asarray(peak_unsure, bool) & big_enough & (said != peak_counts) & ~stands
    for row in np.flatnonzero(heard):
        odds[row] = odds[row].sum() * peak_odds(int(peak_counts[row]), odds.shape[1])
    return odds


def peak_odds(count: int, counts: int) -> np.ndarray:
    """``(counts,)`` odds for a count the peaks decide: PEAKS_SURE on it, the rest on its neighbours
    (more peaks than any count: the highest count).

    >>> int(peak_odds(25, 19).argmax()), round(float(peak_odds(0, 19)[1]), 2)
    (18, 0.05)
    """
    count = min(count, counts - 1)
    odds = np.zeros(counts)
    neighbours = [near for near in (count - 1, count + 1) if 0 <= near < counts]
    odds[neighbours] = (1 - PEAKS_SURE) / len(neighbours)
    odds[count] = PEAKS_SURE
    return odds
