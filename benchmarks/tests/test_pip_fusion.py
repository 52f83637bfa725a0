"""How benchmarks.pip_fusion chooses the peaks' setting for hands."""

from __future__ import annotations

from benchmarks.pip_fusion import chosen
from vision.read.fusion import Overrule


def scores(usual: float, unseen: float, real_exact: float = 1.0) -> dict[str, dict[str, float]]:
    return {
        "usual hands": {"per_half": usual, "exact": 0.9},
        "unseen hands": {"per_half": unseen, "exact": 0.5},
        "real photos": {"per_half": 1.0, "exact": real_exact},
        "usual tables": {"per_half": 0.0, "exact": 0.0},  # another kind: never weighed for hands
    }


def test_the_most_halves_right_among_settings_that_cost_the_usual_layouts_little():
    alone = scores(0.998, 0.6)
    loses_usual = (Overrule(peaks_from_px=0.0), scores(0.990, 0.95))
    loses_real = (Overrule(peaks_from_px=10.0), scores(0.998, 0.96, real_exact=0.96))
    fits = (Overrule(peaks_from_px=50.0), scores(0.997, 0.92))
    rule, _ = chosen([loses_usual, loses_real, fits], alone, "hands")
    assert rule == fits[0]


def test_of_settings_as_good_the_one_that_hears_the_peaks_least():
    alone = scores(0.998, 0.6)
    tried = [(Overrule(peaks_from_px=px), scores(0.997, 0.92)) for px in (0.0, 65.0, 50.0)]
    rule, _ = chosen(tried, alone, "hands")
    assert rule.peaks_from_px == 65.0
