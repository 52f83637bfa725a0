"""Choosing how much of each half of a box must lie inside the photo for its tile to be read
(``vision.read.pip_reader.READ_IN_FRAME``).

    python -m benchmarks.in_frame [--set out/synth/val-hand-v10] [--images 400] [--shares 0.85,0.87,...]

A label counts a tile whose halves both lie at least ``vision.geometry.HALF_IN_FRAME`` inside the
photo; the pipeline has only the refiner's corners, which for a tile cut by the frame are a guess
beyond its edge. Runs the whole pipeline once per share on the synthetic validation hands (never
the seed-7 hands that measure the pipeline) and chooses the share with the most exact totals, the
lowest (the most tiles read) on a tie. Beside it, not chosen by: the labelled real photos. Writes
``benchmarks/results/in_frame.json`` and ``.md``.
"""

from __future__ import annotations

import time
from functools import partial

from benchmarks.choosing import sweep_arguments, totals_by_choice, totals_table
from benchmarks.report import write_report
from vision.geometry import HALF_IN_FRAME
from vision.pipeline import HandScorer
from vision.read.pip_reader import READ_IN_FRAME


def main() -> None:
    args, values, labels = sweep_arguments(__doc__, {"shares": f"{HALF_IN_FRAME},0.87,0.88,0.9,0.92,0.95"})
    shares = [share for share in values["shares"] if share is not None]
    if len(shares) < len(values["shares"]):
        raise SystemExit("in_frame: every share must be a number (a tile is never read wholly beyond the frame)")
    rows = totals_by_choice(
        {f"{share:g}": partial(HandScorer, in_frame=share) for share in shares}, labels, args.set.name
    )
    chosen = max(rows, key=lambda name: (rows[name]["synthetic"]["exact_totals"], -float(name)))
    command = f"python -m benchmarks.in_frame --set {args.set} --images {args.images} --shares {args.shares}"
    report = {
        "benchmark": "in_frame",
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
        "chosen": chosen,
        "in_use": f"{READ_IN_FRAME:g}",
    }
    lines = [
        "# How much of a box must lie inside the photo to be read",
        "",
        f"`{command}` ({report['date']}): the whole pipeline with a tile read only where each half of its",
        f"box lies at least a share inside the photo (a label counts it from {HALF_IN_FRAME}). Chosen on",
        f"{args.set.name} (the most exact totals, the lowest on a tie): **{chosen}** (in use: {READ_IN_FRAME:g});",
        "the real photos beside.",
        "",
        *totals_table("share", args.set.name, rows),
    ]
    write_report("in_frame", report, lines)


if __name__ == "__main__":
    main()
