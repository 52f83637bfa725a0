"""Choosing ``MARKER_CONFIDENCE``: train markers found and given to the right train, per threshold.

    python -m benchmarks.markers [--set out/synth/tune-table-v14] [--limit N] [--least 0.2,0.3,0.4,0.5,0.6]

Finds and reads each table once with the table detector (``hubcam analyze``'s pipeline, every marker
box it proposes kept), then, for each threshold, gives the markers scoring at least it to their
trains (``vision.trains.with_markers``) and scores them against the labels: a train read with a
marker is right when the label's train with the same first tile has one in the photo. Chooses, on
the tuning tables (seed 77, never the held-out seed-78 tables ``make eval`` measures), the threshold
with the best smaller of precision and recall, then the higher. Writes
``benchmarks/results/markers.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import cv2
from tqdm import tqdm

from benchmarks.eval.metrics import score_image
from benchmarks.report import write_report
from benchmarks.rules_prior import numbers
from datasets.real import load_folder
from vision.pipeline import MARKER_CONFIDENCE
from vision.table_reader import TableReader, read_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path("out/synth/tune-table-v14"))
    parser.add_argument("--limit", type=int)
    parser.add_argument("--least", default="0.2,0.3,0.4,0.5,0.6")
    args = parser.parse_args()
    if not args.set.is_dir():
        raise SystemExit(f"{args.set} is not a folder of labelled tables: render it first (hubcam synth --kind table)")
    labels = load_folder(args.set)[: args.limit]
    thresholds = numbers(args.least)
    scorer = TableReader(marker_confidence=min(thresholds)).scorer
    seen = [scorer(cv2.imread(str(label.path))) for label in tqdm(labels, desc="reading tables")]
    rows = {}
    for least in thresholds:
        counts = [0, 0, 0]
        for label, one in zip(labels, seen, strict=True):
            kept = tuple(marker for marker in one.markers if marker.confidence >= least)
            table = score_image(label, read_table(replace(one, markers=kept), None)).table
            if table is not None and table.markers is not None:
                counts = [total + part for total, part in zip(counts, table.markers, strict=True)]
        right, read, labelled = counts
        rows[f"{least:g}"] = {
            "precision": right / read if read else None, "recall": right / labelled if labelled else None,
            "right": right, "read": read, "labelled": labelled,
        }  # fmt: skip

    def merit(least: float) -> tuple[float, float]:
        row = rows[f"{least:g}"]
        return min(row["precision"] or 0.0, row["recall"] or 0.0), least

    chosen = f"{max(thresholds, key=merit):g}"
    command = f"python -m benchmarks.markers --set {args.set} --least {args.least}" + (
        f" --limit {args.limit}" if args.limit else ""
    )
    report = {"benchmark": "markers", "command": command, "date": time.strftime("%Y-%m-%d"), "tables": len(labels),
              "rows": rows, "chosen": chosen, "in_use": f"{MARKER_CONFIDENCE:g}"}  # fmt: skip
    lines = [
        "# Train markers",
        "",
        f"`{command}` ({report['date']}), {len(labels)} tables: a train read with a marker is right when",
        "the label's train with the same first tile has one. Chosen (*): the best smaller of precision and",
        f"recall, then the higher threshold. In use: {MARKER_CONFIDENCE:g}.",
        "",
        "| least score | precision | recall | right / read / labelled |",
        "|---|---|---|---|",
    ]
    for least, row in rows.items():
        cells = ["n/a" if row[m] is None else f"{row[m]:.3f}" for m in ("precision", "recall")]
        counts = f"{row['right']} / {row['read']} / {row['labelled']}"
        lines.append(f"| {least}{' *' if least == chosen else ''} | {cells[0]} | {cells[1]} | {counts} |")
    write_report("markers", report, lines)


if __name__ == "__main__":
    main()
