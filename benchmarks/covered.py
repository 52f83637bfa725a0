"""Choosing how much of a box may lie inside a better one before it is dropped
(``vision.pipeline.COVERED``).

    python -m benchmarks.covered [--set out/synth/val-hand-v10] [--images 400] [--shares never,0.3,...]

Runs the whole pipeline once per share on the synthetic validation hands (never the seed-7 hands
that measure the pipeline) and chooses the share with the most exact totals, the loosest (the
highest, "never" loosest of all) on a tie. Beside it, not chosen by: the labelled real photos.
Each row gives exact totals, tile recall and tile precision. Writes
``benchmarks/results/covered.json`` and ``.md``.
"""

from __future__ import annotations

import time
from functools import partial

from benchmarks.choosing import sweep_arguments, totals_by_choice, totals_table
from benchmarks.report import write_report
from vision.pipeline import COVERED, HandScorer

Share = float | None


def name_of(share: Share) -> str:
    return "never" if share is None else f"{share:g}"


def looseness(name: str) -> float:
    return float("inf") if name == "never" else float(name)


def main() -> None:
    args, values, labels = sweep_arguments(__doc__, {"shares": "never,0.3,0.4,0.5,0.6,0.7,0.8"})
    scorers = {name_of(share): partial(HandScorer, covered=share) for share in values["shares"]}
    rows = totals_by_choice(scorers, labels, args.set.name)
    chosen = max(rows, key=lambda name: (rows[name]["synthetic"]["exact_totals"], looseness(name)))
    command = f"python -m benchmarks.covered --set {args.set} --images {args.images} --shares {args.shares}"
    report = {
        "benchmark": "covered",
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
        "chosen": chosen,
        "in_use": name_of(COVERED),
    }
    lines = [
        "# Boxes inside better ones",
        "",
        f"`{command}` ({report['date']}): the whole pipeline with a kept box dropped when more than a",
        f"share of it lies inside a better kept box. Chosen on {args.set.name} (the most exact totals, the",
        f"loosest on a tie): **{chosen}** (in use: {name_of(COVERED)}); the real photos beside.",
        "",
        *totals_table("share", args.set.name, rows),
    ]
    write_report("covered", report, lines)


if __name__ == "__main__":
    main()
