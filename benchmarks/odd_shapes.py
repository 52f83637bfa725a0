"""Choosing how far from a 2:1 rectangle a box may be and still be read (``vision.pipeline.ODD_SHAPE``).

    python -m benchmarks.odd_shapes [--set out/synth/val-hand-v10] [--images 400] [--bounds never,0.1,...]

Runs the whole pipeline once per photo with every box read (``odd_shape=None``), then, for each
bound, leaves out of the total the boxes that the table's plane, fitted to all of a photo's
boxes, cannot make 2:1 rectangles within it (``vision.pipeline.odd_shaped``). Chooses on
synthetic validation hands, never the seed-7 hands that measure the pipeline: the most exact
totals, the loosest bound on a tie. Beside it, not chosen by: the labelled real photos, and how
many of their counted tiles each bound would leave out. Writes ``benchmarks/results/odd_shapes.json``
and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tqdm import tqdm

from benchmarks.report import write_report
from vision.data.labels import LabelledImage
from vision.data.real import iter_images, load_folder, pip_labelled
from vision.eval.metrics import Prediction, face_up_matches
from vision.pipeline import HandScorer, odd_shaped

Bound = float | None


def read_all(labels: list[LabelledImage], what: str) -> list[tuple[LabelledImage, Prediction]]:
    scorer = HandScorer(odd_shape=None)
    return [(label, scorer(image)) for label, image in tqdm(iter_images(labels), total=len(labels), desc=what)]


def measure(photos: list[tuple[LabelledImage, Prediction]], bounds: list[Bound]) -> dict[str, dict[str, int]]:
    """Per bound: exact totals, and how many counted tiles, found and read, it leaves out."""
    results = {}
    for bound in bounds:
        exact = true_tiles_left_out = 0
        for label, prediction in photos:
            odd = odd_shaped([tile.corners for tile in prediction.tiles], bound)
            read = [not tile.uncertain and tile.pips is not None for tile in prediction.tiles]
            kept = [tile for tile, ok, out in zip(prediction.tiles, read, odd, strict=True) if ok and not out]
            total = sum(sum(tile.pips or ()) for tile in kept)
            exact += total == label.total_pips
            true = {j for i, j in face_up_matches(label, prediction) if label.tiles[i].counted}
            true_tiles_left_out += sum(read[j] and odd[j] for j in true)
        name = "never" if bound is None else f"{bound:g}"
        results[name] = {"exact_totals": exact, "photos": len(photos), "true_tiles_left_out": true_tiles_left_out}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path("out/synth/val-hand-v10"))
    parser.add_argument("--images", type=int, default=400)
    parser.add_argument("--bounds", default="never,0.1,0.12,0.15,0.18,0.2,0.25,0.3,0.4")
    args = parser.parse_args()
    bounds: list[Bound] = [None if value == "never" else float(value) for value in args.bounds.split(",")]
    labels = load_folder(args.set)[: args.images]
    if not labels:
        parser.error(f"no labelled images in {args.set} (make it with hubcam synth --kind hand --n 400 --seed 8)")
    synthetic = measure(read_all(labels, args.set.name), bounds)
    real_labels = pip_labelled()
    real = measure(read_all(real_labels, "real"), bounds) if real_labels else {}
    # the loosest on a tie: leaving none out ("never") is looser than any bound
    best = max(synthetic, key=lambda name: (synthetic[name]["exact_totals"], float("inf" if name == "never" else name)))
    report = {
        "benchmark": "odd_shapes",
        "command": f"python -m benchmarks.odd_shapes --set {args.set} --images {args.images} --bounds {args.bounds}",
        "date": time.strftime("%Y-%m-%d"),
        "synthetic": synthetic,
        "real": real,
        "chosen": best,
    }
    lines = [
        "# How far from a 2:1 rectangle a box may be and still be read",
        "",
        f"`{report['command']}` ({report['date']}): exact photo totals through the whole pipeline when boxes",
        "further than the bound from a 2:1 rectangle on the table's plane are left out, and how many",
        f"counted tiles (found, read) each bound leaves out. Chosen on {args.set.name}: **{best}**; the real",
        "photos beside.",
        "",
        f"| bound | {args.set.name} exact totals | true tiles left out | real exact totals | real tiles left out |",
        "|---|---|---|---|---|",
    ]
    for name, row in synthetic.items():
        other = real.get(name)
        real_cells = f"{other['exact_totals']}/{other['photos']} | {other['true_tiles_left_out']}" if other else "- | -"
        lines.append(
            f"| {name} | {row['exact_totals']}/{row['photos']} | {row['true_tiles_left_out']} | {real_cells} |"
        )
    write_report("odd_shapes", report, lines)


if __name__ == "__main__":
    main()
