"""The whole pipeline on the real photos that carry no pip labels, against readings made by eye.

    python -m benchmarks.read_by_eye [--detector ONNX] [--counter ONNX] [--verifier ONNX] [--name NAME]

``datasets/read_by_eye.json`` holds what each photo shows, read from zoomed crops: its face-up tiles
(no corners). Tiles are compared as a bag of pip pairs, so a tile counts as read right wherever it
lies: per photo the tiles read right, those counted that it does not hold (a box's letters, a
printed back, a misread), those it holds that were not counted (missed, or left out as uncertain),
and whether the total is exact. The photos are Rakeduk's pink tiles with gold pips, TAK1EDD1NE's
Roboflow photos (one with printed backs) and jesperes' double-12 close-up: sets and tables unlike
the labelled ones. Writes ``benchmarks/results/read_by_eye.json`` and ``.md`` (``--name`` for a
candidate's models).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.candidates import add_model_arguments, chosen_models, named, recorded
from benchmarks.report import write_report
from datasets.real import real_root
from vision.photo import read_photo
from vision.pipeline import HandScorer

READINGS = Path(__file__).resolve().parents[1] / "datasets" / "read_by_eye.json"


def compare(truth: list[list[int]], counted: list[tuple[int, int]]) -> dict[str, Any]:
    """Tiles as bags of pip pairs (smaller half first): read right, counted but not there, there but not counted."""
    held = Counter(tuple(sorted(tile)) for tile in truth)
    read = Counter(tuple(sorted(tile)) for tile in counted)
    right = held & read
    return {
        "tiles": sum(held.values()),
        "right": sum(right.values()),
        "extra": sorted((read - right).elements()),
        "missed": sorted((held - right).elements()),
        "total": sum(map(sum, truth)),
        "read_total": sum(map(sum, counted)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_model_arguments(parser)
    parser.add_argument("--name", default="read_by_eye", help="the report's name in benchmarks/results")
    args = parser.parse_args()
    root = real_root()
    if root is None:
        print("read_by_eye: skipped, ../shared/real is not beside the repository")
        return
    models = chosen_models(args)
    scorer = HandScorer(**models)
    rows = []
    for photo in json.loads(READINGS.read_text())["photos"]:
        prediction = scorer(read_photo(root / photo["path"]))
        counted = [tile.pips for tile in prediction.tiles if tile.pips and not tile.uncertain]
        rows.append({"photo": photo["path"], **compare(photo["tiles"], counted)})
    exact = sum(row["total"] == row["read_total"] for row in rows)
    tiles, right = sum(row["tiles"] for row in rows), sum(row["right"] for row in rows)
    extra = sum(len(row["extra"]) for row in rows)
    report = {
        "benchmark": "read_by_eye",
        "command": "python -m benchmarks.read_by_eye",
        "date": time.strftime("%Y-%m-%d"),
        "models": recorded(models),
        "photos": len(rows), "exact_totals": exact, "tiles": tiles, "tiles_read_right": right, "extra_counted": extra,
        "rows": rows,
    }  # fmt: skip
    lines = [
        "# Real photos without pip labels, against readings by eye",
        "",
        f"`python -m benchmarks.read_by_eye` ({report['date']}; readings: `datasets/read_by_eye.json`). Models:",
        f"{named(models)}.",
        "",
        f"Exact totals {exact} of {len(rows)}; tiles read right {right} of {tiles}; counted but not there {extra}.",
        "",
        "| photo | tiles right | counted, not there | there, not counted | total / read |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        extra_tiles = ", ".join(f"{a}-{b}" for a, b in row["extra"]) or "-"
        missed_tiles = ", ".join(f"{a}-{b}" for a, b in row["missed"]) or "-"
        name = Path(row["photo"]).name[:40]
        lines.append(
            f"| {name} | {row['right']}/{row['tiles']} | {extra_tiles} | {missed_tiles} | "
            f"{row['total']} / {row['read_total']} |"
        )
    write_report(args.name, report, lines)


if __name__ == "__main__":
    main()
