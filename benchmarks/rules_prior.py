"""What the rules prior changes (``vision.reconcile.RULES_PRIOR``), and choosing its settings.

    python -m benchmarks.rules_prior [--set out/synth/tune-table-v14] [--limit N]
        [--sure 0.75] [--close 0.01,0.03,0.1] [--mismatch 0.01,0.05]

Finds and reads each table once (``hubcam analyze``'s pipeline), then follows its trains and judges
its flags without the prior and with each setting. Chooses, on the tuning tables (seed 77, never
the held-out seed-78 tables ``make eval`` measures), the setting with the most tables whose every
train is right, then the best smaller of illegal_join's precision and recall, then the most
cautious (the fewest candidates, the likelier mismatch). ``sure`` is the pip reader's SURE, not
tuned: a half read surely must stay as read, so that an illegal play stays illegal (a higher one
took away true illegal joins: benchmarks/HISTORY.md). Writes
``benchmarks/results/rules_prior.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import cv2
from tqdm import tqdm

from benchmarks.eval.metrics import Rate, score_image, summarise
from benchmarks.report import write_report
from datasets.real import load_folder
from vision.observation import Observation
from vision.read.pip_reader import SURE
from vision.reconcile import RULES_PRIOR, RulesPrior
from vision.table_reader import TableReader, read_table

MEASURES = (
    "tables with every train right",
    "engine right",
    "per-half accuracy",
    "illegal_join precision",
    "illegal_join recall",
    "unsatisfied_double precision",
    "unsatisfied_double recall",
    "unreadable_tile precision",
    "unreadable_tile recall",
)


def numbers(list_of: str) -> list[float]:
    return [float(value) for value in list_of.split(",")]


def measured(labels: list, seen: list[Observation], prior: RulesPrior | None) -> dict[str, list[float | int | None]]:
    """Each measure as [value, successes, trials] for the tables read with ``prior``."""
    scores = [score_image(label, read_table(one, None, prior)) for label, one in zip(labels, seen, strict=True)]
    rates: dict[str, Rate] = {rate.name: rate for rate in summarise(scores)["rates"]}  # type: ignore[attr-defined]
    return {name: [rates[name].value, rates[name].successes, rates[name].trials] for name in MEASURES}


def named(prior: RulesPrior) -> str:
    return f"sure {prior.sure:g}, close {prior.close:g}, mismatch {prior.mismatch:g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path("out/synth/tune-table-v14"))
    parser.add_argument("--limit", type=int)
    parser.add_argument("--sure", default=f"{SURE:g}")
    parser.add_argument("--close", default="0.01,0.03,0.1")
    parser.add_argument("--mismatch", default="0.01,0.05")
    args = parser.parse_args()
    if not args.set.is_dir():
        raise SystemExit(f"{args.set} is not a folder of labelled tables: render it first (make eval renders them)")
    labels = load_folder(args.set)[: args.limit]
    scorer = TableReader().scorer  # the set judged from the photo, as make eval reads tables
    seen = [scorer(cv2.imread(str(args.set.parent / label.name))) for label in tqdm(labels, desc="reading tables")]
    settings = [
        RulesPrior(sure, close, mismatch)
        for sure, close, mismatch in itertools.product(numbers(args.sure), numbers(args.close), numbers(args.mismatch))
    ]
    rows = {"without": measured(labels, seen, None)}
    for prior in settings:
        rows[named(prior)] = measured(labels, seen, prior)

    def merit(prior: RulesPrior) -> tuple[float, ...]:
        row = rows[named(prior)]
        illegal = min(row[MEASURES[3]][0] or 0.0, row[MEASURES[4]][0] or 0.0)
        return (row[MEASURES[0]][0] or 0.0, illegal, prior.close, prior.mismatch)

    chosen = named(max(settings, key=merit))
    command = (
        f"python -m benchmarks.rules_prior --set {args.set} --sure {args.sure} --close {args.close} "
        f"--mismatch {args.mismatch}" + (f" --limit {args.limit}" if args.limit else "")
    )
    in_use = named(RULES_PRIOR)
    report = {"benchmark": "rules_prior", "command": command, "date": time.strftime("%Y-%m-%d"),
              "tables": len(labels), "rows": rows, "chosen": chosen, "in_use": in_use}  # fmt: skip
    short = ("trains right", "engine", "per-half", "illegal P", "illegal R", "double P", "double R",
             "unreadable P", "unreadable R")  # fmt: skip
    lines = [
        "# The rules prior",
        "",
        f"`{command}` ({report['date']}), {len(labels)} tables: each found and read once, then its trains",
        "followed and its flags judged without the prior and with each setting. Chosen (*): the most",
        "tables with every train right, then the best smaller of illegal_join's precision and recall,",
        "then the most cautious.",
        f"In use: {in_use}.",
        "",
        "| prior | " + " | ".join(short) + " |",
        "|---" * (len(short) + 1) + "|",
    ]
    for name, row in rows.items():
        cells = ["n/a" if row[m][0] is None else f"{row[m][0]:.3f}" for m in MEASURES]
        lines.append(f"| {name}{' *' if name == chosen else ''} | " + " | ".join(cells) + " |")
    write_report("rules_prior", report, lines)


if __name__ == "__main__":
    main()
