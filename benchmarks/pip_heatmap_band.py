"""Tuning the pip-centre heatmap counter's threshold and unsure band on the cache's val halves (issue 67).

    python -m benchmarks.pip_heatmap_band [--model models/pip-heatmap/model.onnx] [--cache out/cache/pip-heatmap-v1]

The model (``vision.read.pip_peaks.PipPeakReader``) reads every HALF crop of the cache's ``val`` split once
(``datasets.synth.pip_halves``: the training looks' scenes never trained on, clean, as
``models.train.pip_heatmap.measured`` reads them); then each THRESHOLDS x HALF_WIDTHS setting counts the peaks
of the same heatmaps (``count_peaks``, band = threshold -/+ half-width) and is scored as the trainer scores:

- right: the count is the label's and the half is not unsure (an unsure half counts as wrong);
- unsure: the share of halves with a peak inside the band;
- right when sure: right among the halves not unsure;
- right 13-18: right among the halves of 13 to 18 pips.

The setting is chosen on VAL ONLY: the highest ``right`` among those whose right-when-sure is at least
SURE_FLOOR (a sure answer must stay trustworthy; ties go to the higher right-when-sure, then the narrower
band). Only the chosen setting is then measured on the ``unseen`` split (the held-out layouts), which is
never used to choose. Writes ``benchmarks/results/pip_heatmap_band.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.report import write_report
from datasets.synth.pip_halves import CACHE_ROOT, HALF, load_split
from vision.onnx_session import model_card
from vision.read.pip_peaks import THRESHOLD, UNSURE_BAND, PipPeakReader, count_peaks

MODEL = Path("models/pip-heatmap/model.onnx")
THRESHOLDS = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
HALF_WIDTHS = (0.0, 0.05, 0.1, 0.15, 0.2)
"""The band is ``(threshold - w, threshold + w)``, open: w = 0 leaves no half unsure."""
SURE_FLOOR = 0.97
"""The least right-when-sure a chosen setting may have on val."""
HIGH_COUNTS = (13, 18)
UNTUNED = (0.5, (0.3, 0.7))
"""The threshold and band ``vision.read.pip_peaks`` had before this benchmark tuned them, shown for comparison."""


@dataclass(frozen=True)
class Setting:
    """One threshold and unsure band, with how its counts scored."""

    threshold: float
    band: tuple[float, float]
    right: float
    unsure: float
    right_when_sure: float
    right_13_18: float


def scores(counts: np.ndarray, unsure: np.ndarray, wanted: np.ndarray) -> dict[str, float]:
    """Right (count is the label's, not unsure), unsure share, right when sure and right on 13-18 pips, for
    ``(n,)`` counts read, unsure flags and labelled counts (0.0 where a share has no halves to be of)."""
    counts, unsure, wanted = np.asarray(counts), np.asarray(unsure, bool), np.asarray(wanted)
    if not counts.shape == unsure.shape == wanted.shape or counts.ndim != 1:
        raise ValueError(
            f"counts, unsure and wanted must be (n,) alike, got {counts.shape}, {unsure.shape}, {wanted.shape}"
        )
    right = (counts == wanted) & ~unsure
    sure = ~unsure
    high = (wanted >= HIGH_COUNTS[0]) & (wanted <= HIGH_COUNTS[1])

    def share(hits: np.ndarray, among: np.ndarray) -> float:
        return round(float(hits[among].mean()), 4) if among.any() else 0.0

    everyone = np.ones(len(wanted), bool)
    return {
        "right": share(right, everyone),
        "unsure": share(unsure, everyone),
        "right_when_sure": share(counts == wanted, sure),
        "right_13_18": share(right, high),
    }


def band_of(threshold: float, half_width: float) -> tuple[float, float]:
    """The unsure band ``threshold -/+ half_width``, rounded so 0.35 + 0.2 reads 0.55."""
    return round(threshold - half_width, 4), round(threshold + half_width, 4)


def swept(heatmaps: np.ndarray, wanted: np.ndarray) -> list[Setting]:
    """Every THRESHOLDS x HALF_WIDTHS setting scored on the same ``(n, h, w)`` heatmaps."""
    settings = []
    for threshold in THRESHOLDS:
        for half_width in HALF_WIDTHS:
            band = band_of(threshold, half_width)
            counts, unsure = count_peaks(heatmaps, threshold, band)
            settings.append(Setting(threshold, band, **scores(counts, unsure, wanted)))
    return settings


def chosen(settings: list[Setting], floor: float = SURE_FLOOR) -> Setting | None:
    """The highest ``right`` among settings right when sure at least ``floor`` of the time (ties: the higher
    right-when-sure, then the narrower band); None when none is."""
    trusted = [setting for setting in settings if setting.right_when_sure >= floor]
    if not trusted:
        return None
    return max(trusted, key=lambda s: (s.right, s.right_when_sure, -(s.band[1] - s.band[0])))


def halves_of(cache: Path, split: str) -> tuple[np.ndarray, np.ndarray]:
    """The HALF crops of ``split`` (``(n, px, px, 3)`` uint8 BGR) and their labelled counts."""
    crops = load_split(cache, split)
    picked = crops.roles == HALF
    return crops.halves[picked], crops.counts[picked].astype(np.int64)


def row(name: str, setting: Setting) -> str:
    return (
        f"| {name} | {setting.threshold} | {setting.band[0]}-{setting.band[1]} | {setting.right} | {setting.unsure} | "
        f"{setting.right_when_sure} | {setting.right_13_18} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=MODEL, help="the heatmap counter's ONNX")
    parser.add_argument("--cache", type=Path, default=CACHE_ROOT, help="the pip-halves cache (val and unseen)")
    parser.add_argument("--name", default="pip_heatmap_band", help="the report's name in benchmarks/results/")
    args = parser.parse_args(argv)
    reader = PipPeakReader(args.model)
    start = time.perf_counter()
    halves, wanted = halves_of(args.cache, "val")
    heatmaps = reader.heatmaps(halves)
    settings = swept(heatmaps, wanted)
    best = chosen(settings)
    current = Setting(THRESHOLD, UNSURE_BAND, **scores(*count_peaks(heatmaps, THRESHOLD, UNSURE_BAND), wanted))
    old_threshold, old_band = UNTUNED
    untuned = Setting(old_threshold, old_band, **scores(*count_peaks(heatmaps, old_threshold, old_band), wanted))
    header = [
        "| setting | threshold | unsure band | right | unsure | right when sure | right 13-18 |",
        "|---|---|---|---|---|---|---|",
    ]
    epochs = model_card(args.model).get("epochs_done")
    lines = [
        "# The pip heatmap counter's threshold and unsure band, tuned on val (issue 67)",
        "",
        f"`python -m benchmarks.pip_heatmap_band`; model `{args.model}` (after {epochs} epochs), "
        f"the {len(wanted)} HALF crops of `{args.cache}/val`. Chosen on val only: the highest right among the "
        f"settings right when sure at least {SURE_FLOOR}. Unsure halves count as wrong.",
        "",
        *header,
        row("untuned", untuned),
        row("in pip_peaks", current),
    ]
    unseen: dict[str, Any] | None = None
    if best is None:
        lines += ["", f"No setting is right when sure at least {SURE_FLOOR} of the time on val: none chosen."]
    else:
        unseen_halves, unseen_wanted = halves_of(args.cache, "unseen")
        counts, unsure = count_peaks(reader.heatmaps(unseen_halves), best.threshold, best.band)
        unseen = {"halves": len(unseen_wanted), **scores(counts, unsure, unseen_wanted)}
        lines += [
            row("chosen", best),
            "",
            f"The chosen setting on `{args.cache}/unseen` ({len(unseen_wanted)} HALF crops of the held-out layouts; "
            "never used to choose):",
            "",
            "| split | threshold | unsure band | right | unsure | right when sure | right 13-18 |",
            "|---|---|---|---|---|---|---|",
            f"| unseen | {best.threshold} | {best.band[0]}-{best.band[1]} | {unseen['right']} | {unseen['unsure']} | "
            f"{unseen['right_when_sure']} | {unseen['right_13_18']} |",
        ]
    lines += ["", "Every setting on val, best right first:", "", *header]
    marks = {untuned: "untuned", current: "in pip_peaks", **({best: "chosen"} if best else {})}
    ranked = sorted(settings, key=lambda s: (-s.right, -s.right_when_sure))
    lines += [row(marks.get(setting, ""), setting) for setting in ranked]
    report: dict[str, Any] = {
        "benchmark": "pip_heatmap_band",
        "model": str(args.model),
        "model_epochs": epochs,
        "cache": str(args.cache),
        "val_halves": len(wanted),
        "sure_floor": SURE_FLOOR,
        "untuned": asdict(untuned),
        "in_pip_peaks": asdict(current),
        "chosen": asdict(best) if best else None,
        "chosen_on_unseen": unseen,
        "sweep": [asdict(setting) for setting in settings],
        "seconds": round(time.perf_counter() - start),
    }
    write_report(args.name, report, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
