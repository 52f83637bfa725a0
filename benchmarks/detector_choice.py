"""Which detector export to bundle, chosen on synthetic hands, with unseen hands and real photos beside.

    python -m benchmarks.detector_choice --candidates models/tile-detector/model.onnx out/detector-run9/model.onnx \
        [--set out/synth/choose-hand-v10 [out/synth/steep-choose-v13 ...]] [--beside out/synth/val-hand-v10 ...] \
        [--name NAME]

Each candidate runs the whole pipeline as it is (verifier, refiner, counter and every
threshold), at DETECTOR_SIZE. The exact totals on the ``--set`` sets together choose: a
candidate replaces the first (the one in use) only with a share of exact totals more than
TOTAL_TIE higher over them all, and no lower than TOTAL_TIE under it on any one of them (a
candidate taught steep photos must not buy them with the usual ones). The default set
(``hubcam synth --kind hand --n 400 --seed 10 --out out/synth/choose-hand-v10``) is a fresh
one: the validation hands (seed 8) chose every threshold with the detector in use, so they
favour it. The ``--beside`` sets and the labelled real photos are reported, never chosen by.
Writes ``benchmarks/results/detector_choice.json`` and ``.md`` (``--name`` for another choice's own).
"""

from __future__ import annotations

import argparse
import time
from functools import cache, partial
from pathlib import Path
from typing import Any

from benchmarks.choosing import totals_and_tiles, totals_by_choice, totals_cells
from benchmarks.detector_size import TOTAL_TIE
from benchmarks.report import write_report
from vision.data.real import load_folder
from vision.pipeline import HandScorer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=Path, nargs="+", required=True, help="detector exports (model.onnx)")
    parser.add_argument("--set", type=Path, nargs="+", default=[Path("out/synth/choose-hand-v10")])
    parser.add_argument("--beside", type=Path, nargs="*", default=[], help="synthetic sets reported, not chosen by")
    parser.add_argument("--name", default="detector_choice", help="the report's name in benchmarks/results")
    args = parser.parse_args()
    for path in args.candidates:
        if not path.is_file():
            parser.error(f"no detector export at {path}")
    if len({folder.name for folder in args.set}) < len(args.set):
        parser.error("the --set folders need names of their own (the report tells them by name)")
    choosing = {folder.name: load_folder(folder) for folder in args.set}
    empty = [str(folder) for folder in args.set if not choosing[folder.name]]
    if empty:
        parser.error(f"no labelled images in {', '.join(empty)} (make one: hubcam synth --kind hand --n 400 --seed 10)")
    # one scorer a candidate (cached), for the choosing sets and the sets beside alike
    scorers = {str(path): cache(partial(HandScorer, detector=path)) for path in args.candidates}
    first, *others = choosing
    rows = totals_by_choice(scorers, choosing[first], first)
    for name, make in scorers.items():
        rows[name]["choosing"] = {first: rows[name].pop("synthetic")} | {
            other: totals_and_tiles(choosing[other], make(), f"{other} with {name}") for other in others
        }
        rows[name]["beside"] = {
            str(folder): totals_and_tiles(load_folder(folder), make(), f"{folder.name} with {name}")
            for folder in args.beside
        }
    in_use = str(args.candidates[0])
    chosen = choose(rows, in_use)
    command = ["python -m benchmarks.detector_choice --candidates", *map(str, args.candidates)]
    command += ["--set", *map(str, args.set)]
    if args.beside:
        command += ["--beside", *map(str, args.beside)]
    if args.name != "detector_choice":
        command += ["--name", args.name]
    report = {
        "command": " ".join(command),
        "date": time.strftime("%Y-%m-%d"),
        "chosen": chosen,
        "rows": rows,
    }
    sets = [*choosing, *(folder.name for folder in args.beside), "real"]
    head = " | ".join(f"{name} exact totals | recall | precision" for name in sets)
    lines = [
        "# Detector export",
        "",
        f"`{report['command']}` ({report['date']}). The whole pipeline with each detector. The exact totals",
        f"on {' and '.join(choosing)} choose; another replaces the first listed (in use) only by more than",
        f"{TOTAL_TIE} of their photos together, and by no less than -{TOTAL_TIE} on each: **{chosen}**. The other",
        "sets are beside, never chosen by.",
        "",
        f"| detector | {head} |",
        "|---|" + "---|---|---|" * len(sets),
    ]
    for name, row in rows.items():
        cells = [*row["choosing"].values(), *row["beside"].values(), row["real"]]
        mark = " **chosen**" if name == chosen else ""
        lines.append(f"| {name}{mark} | " + " | ".join(map(totals_cells, cells)) + " |")
    write_report(args.name, report, lines)


def choose(rows: dict[str, dict[str, Any]], in_use: str) -> str:
    """The candidate with the best share of exact totals over the choosing sets together, where it
    beats ``in_use``'s by more than TOTAL_TIE and falls below it by no more than TOTAL_TIE on any one
    set; else ``in_use``."""

    def share(name: str, only: str | None = None) -> float:
        counted = [row for key, row in rows[name]["choosing"].items() if only in (None, key)]
        return sum(row["exact_totals"] for row in counted) / sum(row["photos"] for row in counted)

    allowed = [
        name
        for name in rows
        if share(name) > share(in_use) + TOTAL_TIE
        and all(share(name, key) >= share(in_use, key) - TOTAL_TIE for key in rows[name]["choosing"])
    ]
    return max(allowed, key=share, default=in_use)


if __name__ == "__main__":
    main()
