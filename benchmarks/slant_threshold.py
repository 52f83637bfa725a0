"""Choosing when a photo is redrawn square-on (``vision.pipeline.SLANT``, ``DOUBT_SLANT``, ``SPREAD_SLANT``,
``SLANT_AGAIN``, ``FORESHORTENED``, ``SQUARE_ON_LOOKS``).

    python -m benchmarks.slant_threshold [--set out/synth/val-hand-v10] [--images 400]
        [--steep out/synth/steep-choose-v13] [--only slant,doubt_slant,...] [--name NAME]
        [--slants never,1.1,...] [--doubts never,1.0,...] [--spreads never,1.5,...] [--agains never,1.1,...]
        [--foreshortenings never,2.2,...] [--looks 1,2,3,4]

Runs the whole pipeline over synthetic validation hands, never the seed-7 hands that measure the
pipeline, at each value of one threshold in turn, the other two as the pipeline has them: the
plane's slant above which a photo is redrawn (``never``: no photo redrawn), the tiles' size spread
above which it is redrawn whatever the plane says (``never``: only where the plane says so), and
the slant still seen in the redrawn view above which it is redrawn again (``never``: once at
most), the boxes' median long-to-short ratio above which a photo is redrawn (and a view again)
whatever their sizes say (``never``: only by their sizes), and the most views redrawn. Of each
threshold's values with the most exact totals it chooses the lowest (``never`` counts as the
highest). The synthetic hands cannot ask for redrawing (the detector learnt their
tilts); they only guard against its harm. (Until the fourteenth session it chose the lowest slant
with as many exact totals as never redrawing; see vision.pipeline.SLANT for why that changed.)
What asks for it is beside, not chosen by: the labelled real photos as taken and slanted 25 and
40 degrees further (``benchmarks/real_variants.py``). Since the thirtieth session a set of hands
photographed steeply (``--steep``: ``hubcam synth --kind hand --n 200 --seed 22 --tilt 45-60``, beyond
the detector's learnt tilts) can ask for it too: the values are then chosen by the exact totals of
both sets together. ``--only`` sweeps some thresholds alone (``--name`` keeps such a report apart).
Writes ``benchmarks/results/slant_threshold.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tqdm import tqdm

from benchmarks.choosing import sweep_arguments
from benchmarks.real_variants import VARIANTS, measure
from benchmarks.report import write_report
from vision import pipeline
from vision.data.real import iter_images, load_folder, pip_labelled
from vision.pipeline import HandScorer

REAL_VARIANTS = ("as-taken", "slanted-25", "slanted-40")
THRESHOLDS = {
    "slant": ("slants", "never,1.1,1.2,1.3,1.4,1.5,1.7"),
    "doubt_slant": ("doubts", "never,1.0,1.1,1.2,1.3"),
    "spread_slant": ("spreads", "never,1.5,1.6,1.7,1.8,2.0"),
    "slant_again": ("agains", "never,1.1,1.2,1.3"),
    "foreshortened": ("foreshortenings", "never,2.2,2.25,2.3,2.4"),
    "square_on_looks": ("looks", "1,2,3,4"),
}
"""Each of HandScorer's thresholds swept: its option here and the values it tries by default."""
COUNTS = {"square_on_looks"}
"""The thresholds that count (whole numbers)."""


def exact_totals(row: dict) -> int:
    """The exact photo totals of one ``real_variants.measure`` row."""
    return int(row["exact photo total"]["successes"])


def chosen_by(row: dict) -> int:
    """What a value is chosen by: its exact totals on the synthetic set and the steep one together."""
    return exact_totals(row["synthetic"]) + (exact_totals(row["steep"]) if "steep" in row else 0)


def more_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--steep", type=Path, default=None, help="a set of steep photos chosen by as well")
    parser.add_argument("--only", default=",".join(THRESHOLDS), help="the thresholds swept (default all)")
    parser.add_argument("--name", default="slant_threshold", help="the report's name in benchmarks/results")


def main() -> None:
    args, values, labels = sweep_arguments(__doc__, dict(THRESHOLDS.values()), more_arguments)
    swept = args.only.split(",")
    unknown = [name for name in swept if name not in THRESHOLDS]
    if unknown:
        raise SystemExit(f"slant_threshold: unknown thresholds {unknown}; known: {', '.join(THRESHOLDS)}")
    for name in COUNTS:
        option = THRESHOLDS[name][0]
        values[option] = [None if value is None else int(value) for value in values[option]]
    hands = list(iter_images(labels))
    steep = list(iter_images(load_folder(args.steep))) if args.steep else []
    if args.steep and not steep:
        raise SystemExit(f"slant_threshold: no labelled images in {args.steep} (hubcam synth --tilt 45-60 makes one)")
    real = list(iter_images(pip_labelled()))
    as_bundled = {name: getattr(pipeline, name.upper()) for name in THRESHOLDS}
    sweeps: dict[str, list[dict]] = {}
    chosen: dict[str, float | None] = {}
    for name in swept:
        option = THRESHOLDS[name][0]
        rows = []
        for value in tqdm(values[option], desc=name, unit="value"):
            scorer = HandScorer(**{**as_bundled, name: value})
            row: dict = {"value": value, "synthetic": measure(scorer, hands, VARIANTS["as-taken"])}
            if steep:
                row["steep"] = measure(scorer, steep, VARIANTS["as-taken"])
            row["real"] = {variant: measure(scorer, real, VARIANTS[variant]) for variant in REAL_VARIANTS if real}
            rows.append(row)
        most = max(chosen_by(row) for row in rows)
        tied = [row for row in rows if chosen_by(row) == most]
        best = min(tied, key=lambda row: row["value"] or float("inf"))
        sweeps[name], chosen[name] = rows, best["value"]
    command = "python -m benchmarks.slant_threshold" + f" --set {args.set} --images {args.images}"
    command += f" --steep {args.steep}" if args.steep else ""
    command += f" --only {args.only}" if swept != list(THRESHOLDS) else ""
    command += f" --name {args.name}" if args.name != "slant_threshold" else ""
    command += "".join(f" --{THRESHOLDS[name][0]} {getattr(args, THRESHOLDS[name][0])}" for name in swept)
    report = {
        "benchmark": "slant_threshold",
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "bundled": as_bundled,
        "sweeps": sweeps,
        "chosen": chosen,
    }
    sets = [args.set.name, *([args.steep.name] if args.steep else [])]
    lines = [
        "# When a photo is redrawn square-on",
        "",
        f"`{command}` ({report['date']}): exact photo totals through the whole pipeline, and tile recall /",
        f"precision, each threshold swept with the others as bundled ({as_bundled}).",
        f"Chosen on {' and '.join(sets)} (together): **{chosen}**; the real photos beside.",
    ]
    for name, rows in sweeps.items():
        lines += [
            "",
            f"| {name} | " + " | ".join([*sets, *(f"real {variant}" for variant in REAL_VARIANTS)]) + " |",
            "|---|" + "---|" * (len(sets) + len(REAL_VARIANTS)),
        ]
        for row in rows:
            cells = [row["synthetic"], *([row["steep"]] if steep else [])]
            cells += [row["real"].get(variant) for variant in REAL_VARIANTS]
            text = [
                f"{exact_totals(cell)}/{cell['exact photo total']['trials']}"
                f" ({cell['tile recall']['value']:.3f} / {cell['tile precision']['value']:.3f})"
                if cell
                else "-"
                for cell in cells
            ]
            lines.append(f"| {row['value'] or 'never'} | " + " | ".join(text) + " |")
    write_report(args.name, report, lines)


if __name__ == "__main__":
    main()
