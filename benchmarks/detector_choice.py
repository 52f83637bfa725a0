"""Which detector export to bundle, chosen on synthetic hands, with unseen hands and real photos beside.

    python -m benchmarks.detector_choice --candidates models/tile-detector/model.onnx out/detector-run9/model.onnx \
        [--set out/synth/choose-hand-v10] [--beside out/synth/val-hand-v10 out/synth/test-hand-v10 ...]

Each candidate runs the whole pipeline as it is (verifier, refiner, counter and every
threshold), at DETECTOR_SIZE. The exact totals on ``--set`` choose: a candidate replaces the
first (the one in use) only with a share of exact totals more than TOTAL_TIE higher. The
default set (``hubcam synth --kind hand --n 400 --seed 10 --out out/synth/choose-hand-v10``)
is a fresh one: the validation hands (seed 8) chose every threshold with the detector in
use, so they favour it. The ``--beside`` sets and the labelled real photos are reported,
never chosen by. Writes ``benchmarks/results/detector_choice.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from functools import cache, partial
from pathlib import Path

from benchmarks.choosing import totals_and_tiles, totals_by_choice, totals_cells
from benchmarks.detector_size import TOTAL_TIE
from benchmarks.report import write_report
from vision.data.real import load_folder
from vision.pipeline import HandScorer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=Path, nargs="+", required=True, help="detector exports (model.onnx)")
    parser.add_argument("--set", type=Path, default=Path("out/synth/choose-hand-v10"))
    parser.add_argument("--beside", type=Path, nargs="*", default=[], help="synthetic sets reported, not chosen by")
    args = parser.parse_args()
    for path in args.candidates:
        if not path.is_file():
            parser.error(f"no detector export at {path}")
    labels = load_folder(args.set)
    if not labels:
        parser.error(f"no labelled images in {args.set} (make it with hubcam synth --kind hand --n 400 --seed 10)")
    # one scorer a candidate (cached), for the choosing set and the sets beside alike
    scorers = {str(path): cache(partial(HandScorer, detector=path)) for path in args.candidates}
    rows = totals_by_choice(scorers, labels, args.set.name)
    for name, make in scorers.items():
        rows[name]["beside"] = {
            str(folder): totals_and_tiles(load_folder(folder), make(), f"{folder.name} with {name}")
            for folder in args.beside
        }
    shares = {name: row["synthetic"]["exact_totals"] / len(labels) for name, row in rows.items()}
    in_use = str(args.candidates[0])
    best = max(shares, key=shares.__getitem__)
    chosen = best if shares[best] > shares[in_use] + TOTAL_TIE else in_use
    command = ["python -m benchmarks.detector_choice --candidates", *map(str, args.candidates), "--set", str(args.set)]
    if args.beside:
        command += ["--beside", *map(str, args.beside)]
    report = {
        "command": " ".join(command),
        "date": time.strftime("%Y-%m-%d"),
        "chosen": chosen,
        "rows": rows,
    }
    sets = [args.set.name, *(folder.name for folder in args.beside), "real"]
    head = " | ".join(f"{name} exact totals | recall | precision" for name in sets)
    lines = [
        "# Detector export",
        "",
        f"`{report['command']}` ({report['date']}). The whole pipeline with each detector. The exact totals",
        f"on {args.set.name} choose; another replaces the first listed (in use) only by more than {TOTAL_TIE} of",
        f"the photos: **{chosen}**. The other sets are beside, never chosen by.",
        "",
        f"| detector | {head} |",
        "|---|" + "---|---|---|" * len(sets),
    ]
    for name, row in rows.items():
        cells = [row["synthetic"], *row["beside"].values(), row["real"]]
        mark = " **chosen**" if name == chosen else ""
        lines.append(f"| {name}{mark} | " + " | ".join(map(totals_cells, cells)) + " |")
    write_report("detector_choice", report, lines)


if __name__ == "__main__":
    main()
