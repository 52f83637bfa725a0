"""The whole pipeline on the real photos labelled with boxes only: are the face-up tiles found and
counted, and the standing and face-down ones left out?

    python -m benchmarks.box_labelled [--detector ONNX] [--counter ONNX] [--verifier ONNX] [--refiner ONNX]
        [--name NAME]

The box-labelled sets of ../shared/real (``datasets.real.box_labelled``; no pips, so no totals):
karthikVenkataramana's 62 photos of green tiles with white pips, seen at a slant by a small robot's
camera on busy tablecloths, most of their tiles standing or face down, and TAK1EDD1NE's 6 (one
class, face up). Each tile the pipeline reports is matched by its upright box to the labelled
boxes (IoU >= 0.5, one to one, as ``hubcam eval`` matches). Per set: the face-up tiles found
(reported at all) and counted (reported and not uncertain), the standing and face-down tiles
counted as face up, and the tiles counted over no labelled box. Writes
``benchmarks/results/box_labelled.json`` and ``.md`` (``--name`` for a candidate's own).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import Any

from tqdm import tqdm

from benchmarks.candidates import add_model_arguments, candidate_flags, chosen_models
from benchmarks.eval.metrics import match_tiles, wilson
from benchmarks.report import write_report
from datasets.labels import FACE_UP, LabelledImage
from datasets.real import box_labelled, read_image
from vision.geometry import upright_box
from vision.pipeline import HandScorer


def share(successes: int, trials: int) -> dict:
    """A share with its 95 % interval and counts (``value`` None where there was nothing to count)."""
    low, high = wilson(successes, trials)
    value = round(successes / trials, 3) if trials else None
    return {"value": value, "interval": [round(low, 3), round(high, 3)], "of": [successes, trials]}


def tallies(scorer: Any, labels: list[LabelledImage], what: str = "photos") -> dict[str, Counter]:
    """Per set: its photos, face-up tiles (found, counted), standing or face-down tiles (counted), and
    tiles counted (over no labelled box), matched by upright box as ``match_tiles`` matches."""
    counts: dict[str, Counter] = {}
    for label in tqdm(labels, desc=what, unit="photo"):
        found = scorer(read_image(label.path))
        reported = [upright_box(tile.corners) for tile in found.found]
        counted = [upright_box(tile.corners) for tile in found.tiles if not tile.uncertain]
        face_up = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
        others = [tile.corners for tile in label.tiles if tile.pose != FACE_UP]
        tally = counts.setdefault(label.source, Counter())
        tally["photos"] += 1
        tally["face_up"] += len(face_up)
        tally["face_up_found"] += len(match_tiles(face_up, reported))
        tally["face_up_counted"] += len(match_tiles(face_up, counted))
        tally["others"] += len(others)
        tally["others_counted"] += len(match_tiles(others, counted))
        tally["counted"] += len(counted)
        tally["counted_over_nothing"] += len(counted) - len(match_tiles(face_up + others, counted))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_model_arguments(parser)
    parser.add_argument("--name", default="box_labelled", help="the report's name in benchmarks/results")
    args = parser.parse_args()
    labels = box_labelled()
    if not labels:
        print("box_labelled: skipped, no box-labelled real photos (../shared/real is not beside the repository)")
        return
    models = chosen_models(args)
    counts = tallies(HandScorer(**models), labels)
    rows = {
        source: {
            "photos": tally["photos"],
            "face_up_found": share(tally["face_up_found"], tally["face_up"]),
            "face_up_counted": share(tally["face_up_counted"], tally["face_up"]),
            "others_counted_as_face_up": share(tally["others_counted"], tally["others"]),
            "counted_over_nothing": share(tally["counted_over_nothing"], tally["counted"]),
        }
        for source, tally in counts.items()
    }
    report = {
        "benchmark": "box_labelled",
        "command": "python -m benchmarks.box_labelled" + candidate_flags(models),
        "date": time.strftime("%Y-%m-%d"),
        "sets": rows,
    }
    lines = [
        "# The real photos labelled with boxes only",
        "",
        f"`{report['command']}` ({report['date']}): the whole pipeline; tiles matched by their upright boxes",
        "(IoU >= 0.5). Found: reported at all; counted: reported and not uncertain. Shares with their 95 %",
        "intervals and counts.",
        "",
        "| set | photos | face-up tiles found | face-up tiles counted | standing or face-down counted as face up"
        " | counted over no labelled tile |",
        "|---|---|---|---|---|---|",
    ]

    def cell(rate: dict) -> str:
        if rate["value"] is None:
            return "-"
        (low, high), (successes, trials) = rate["interval"], rate["of"]
        return f"{rate['value']:.3f} ({low:.3f}-{high:.3f}; {successes}/{trials})"

    for source, row in rows.items():
        measures = ("face_up_found", "face_up_counted", "others_counted_as_face_up", "counted_over_nothing")
        lines.append(f"| {source} | {row['photos']} | " + " | ".join(cell(row[name]) for name in measures) + " |")
    write_report(args.name, report, lines)


if __name__ == "__main__":
    main()
