"""How the boxes miss the tiles they find, and what that does to reading them.

    python -m benchmarks.box_errors [--set out/synth/eval-hand-v10] [--images 200]

Runs the whole pipeline (``vision.pipeline.HandScorer``) over labelled synthetic hands twice,
with the detector's boxes as kept and with the box refiner's corners, and, for every counted
tile it finds, measures its box against the true corners in the tile's own frame: the
centre's shift along and across the tile (as shares of its width), the box's length and
width against the tile's, and its turn. Then it says how often tiles are misread in each band
of length, and draws the same measures from the counter's training jitter
(``vision.train.counter.loosen``) for comparison: whatever the boxes do that training
never shows is where the reader goes wrong. Writes ``benchmarks/results/box_errors.json`` and
``.md``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.report import write_report
from vision.data.real import iter_images, load_folder
from vision.eval.metrics import aligned_halves, face_up_matches, in_label_order
from vision.pipeline import HandScorer
from vision.train.counter import loosen

MEASURES = ("shift_along", "shift_across", "length", "width", "turn")
LENGTH_BANDS = ((0.0, 0.9), (0.9, 1.1), (1.1, 1.2), (1.2, 1.3), (1.3, np.inf))


def box_error(truth: np.ndarray, box: np.ndarray) -> list[float]:
    """``MEASURES`` of ``box`` against the true corners ``truth`` (both with a short edge first):
    shifts as shares of the tile's width, length and width as ratios, turn in radians."""
    box = box if aligned_halves(truth, box) else np.roll(box, 2, axis=0)  # the label's pips[0] end first
    along, across = truth[2] - truth[1], truth[1] - truth[0]
    length, width = float(np.linalg.norm(along)), float(np.linalg.norm(across))
    along, across = along / length, across / width
    shift = box.mean(axis=0) - truth.mean(axis=0)
    box_along = box[2] - box[1]
    turn = float(np.arctan2(along[0] * box_along[1] - along[1] * box_along[0], along @ box_along))
    return [
        float(shift @ along) / width,
        float(shift @ across) / width,
        float(np.linalg.norm(box_along)) / length,
        float(np.linalg.norm(box[1] - box[0])) / width,
        turn,
    ]


def spread(values: np.ndarray) -> dict[str, float]:
    return {
        "mean": round(float(values.mean()), 3),
        "sd": round(float(values.std()), 3),
        "p1": round(float(np.percentile(values, 1)), 3),
        "p99": round(float(np.percentile(values, 99)), 3),
    }


def measure(scorer: HandScorer, labels: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Each counted tile found: its box's ``MEASURES``, and whether it was misread and counted."""
    errors, misread = [], []
    for label, image in tqdm(iter_images(labels), total=len(labels), desc="scoring", unit="photo"):
        prediction = scorer(image)
        for i, j in face_up_matches(label, prediction):
            tile, found = label.tiles[i], prediction.found[j]
            if not tile.counted or tile.pips is None:
                continue
            errors.append(box_error(np.asarray(tile.corners, np.float32), np.asarray(found.corners, np.float32)))
            read = in_label_order(tile.corners, found)
            misread.append(read is not None and not found.uncertain and tuple(read) != tuple(tile.pips))
    return np.array(errors), np.array(misread)


def by_length(errors: np.ndarray, wrong: np.ndarray) -> list[dict[str, Any]]:
    bands: list[dict[str, Any]] = []
    for low, high in LENGTH_BANDS:
        inside = (errors[:, 2] >= low) & (errors[:, 2] < high)
        high_or_none = None if high == np.inf else high
        bands.append({"length": [low, high_or_none], "tiles": int(inside.sum()), "misread": int(wrong[inside].sum())})
    return bands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=Path("out/synth/eval-hand-v10"))
    parser.add_argument("--images", type=int, default=200)
    args = parser.parse_args()
    labels = load_folder(args.set)[: args.images]
    rng = np.random.default_rng(0)
    tile = np.array([[0, 50], [0, 0], [100, 0], [100, 50]], np.float32)
    taught = np.array([box_error(tile, loosen(tile, rng)) for _ in range(5000)])
    report: dict[str, Any] = {
        "benchmark": "box_errors",
        "command": f"python -m benchmarks.box_errors --set {args.set} --images {args.images}",
        "training_jitter": {name: spread(taught[:, k]) for k, name in enumerate(MEASURES)},
    }
    for boxes, scorer in (("detector", HandScorer(refiner=None)), ("refined", HandScorer())):
        errors, wrong = measure(scorer, labels)
        report[boxes] = {
            "tiles": len(errors),
            "misread": int(wrong.sum()),
            "measures": {name: spread(errors[:, k]) for k, name in enumerate(MEASURES)},
            "misread_by_length": by_length(errors, wrong),
        }
    found, refined = report["detector"], report["refined"]
    lines = [
        f"# How the boxes miss: {args.set.name}",
        "",
        f"`{report['command']}`: with the detector's boxes as kept, {found['tiles']} counted tiles found, "
        f"{found['misread']} of them misread and counted; with the box refiner's corners, {refined['tiles']} "
        f"and {refined['misread']}.",
        "Shifts are shares of the tile's width; length and width are the box's against the tile's; turn in radians.",
        "",
        "| measure | detector mean (sd) | detector 1-99 % | refined mean (sd) | refined 1-99 % "
        "| training jitter mean (sd) | training jitter 1-99 % |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in MEASURES:
        cells = [found["measures"][name], refined["measures"][name], report["training_jitter"][name]]
        lines.append(
            f"| {name} | "
            + " | ".join(f"{c['mean']:+.3f} ({c['sd']:.3f}) | {c['p1']:+.3f} to {c['p99']:+.3f}" for c in cells)
            + " |"
        )
    lines += [
        "",
        "| box length against the tile's | detector: tiles | misread | refined: tiles | misread |",
        "|---|---|---|---|---|",
    ]
    for before, after in zip(found["misread_by_length"], refined["misread_by_length"], strict=True):
        low, high = before["length"]
        lines.append(
            f"| {low:.1f}-{'' if high is None else f'{high:.1f}'} | {before['tiles']} | {before['misread']} "
            f"| {after['tiles']} | {after['misread']} |"
        )
    write_report("box_errors", report, lines)


if __name__ == "__main__":
    main()
