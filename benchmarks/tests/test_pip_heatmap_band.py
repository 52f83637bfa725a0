"""The pip heatmap band sweep's scoring and choice (benchmarks/pip_heatmap_band.py)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.pip_heatmap_band import HALF_WIDTHS, THRESHOLDS, Setting, band_of, chosen, scores, swept


def test_scores_count_unsure_halves_as_wrong() -> None:
    counts = np.array([3, 3, 14, 14, 5])
    unsure = np.array([False, True, False, True, False])
    wanted = np.array([3, 3, 14, 15, 6])
    found = scores(counts, unsure, wanted)
    assert found == {"right": 0.4, "unsure": 0.4, "right_when_sure": round(2 / 3, 4), "right_13_18": 0.5}


def test_scores_refuse_unlike_shapes() -> None:
    with pytest.raises(ValueError, match="alike"):
        scores(np.zeros(3), np.zeros(2, bool), np.zeros(3))


def test_band_of_rounds_float_sums() -> None:
    assert band_of(0.35, 0.2) == (0.15, 0.55)
    assert band_of(0.5, 0.0) == (0.5, 0.5)


def setting(right: float, sure: float, width: float = 0.1) -> Setting:
    return Setting(0.5, band_of(0.5, width), right, 1 - right, sure, right)


def test_chosen_is_the_most_right_of_the_trusted() -> None:
    trusted_low, trusted_high, untrusted = setting(0.7, 0.98), setting(0.8, 0.97), setting(0.95, 0.9)
    assert chosen([trusted_low, untrusted, trusted_high]) == trusted_high
    assert chosen([untrusted]) is None
    assert chosen([setting(0.8, 0.97, 0.2), setting(0.8, 0.97, 0.05)]) == setting(0.8, 0.97, 0.05)


def test_swept_scores_every_setting_on_the_same_heatmaps() -> None:
    maps = np.zeros((2, 8, 8), np.float32)
    maps[0, 2, 2], maps[0, 5, 5] = 0.9, 0.42  # two pips, the second faint
    maps[1, 3, 3] = 0.9
    settings = swept(maps, np.array([2, 1]))
    assert len(settings) == len(THRESHOLDS) * len(HALF_WIDTHS)
    by_key = {(s.threshold, s.band): s for s in settings}
    assert by_key[(0.4, (0.4, 0.4))].right == 1.0  # 0.42 counted, nothing unsure
    assert by_key[(0.45, (0.45, 0.45))].right == 0.5  # 0.42 missed
    assert by_key[(0.4, (0.3, 0.5))].unsure == 0.5  # 0.42 in the band
