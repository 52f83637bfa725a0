"""Choosing which boxes no tile's face could make: how far from a 2:1 rectangle a box may be
(``vision.leave_out.ODD_SHAPE``) and how small beside the others (``vision.leave_out.SMALLEST_BOX``)
and still be read.

    python -m benchmarks.odd_shapes [--set out/synth/val-hand-v10] [--images 400]
        [--bounds never,0.1,...] [--smallest never,0.3,...]

Runs the whole pipeline once per photo with every box read (``odd_shape=None``,
``smallest_box=None``), then leaves out of the total the boxes that the table's plane, fitted to
all of a photo's boxes, cannot make 2:1 rectangles within each bound (the smallest box at the
pipeline's ``SMALLEST_BOX``), and those smaller than each share of the median box on the plane (the
shape at the pipeline's ``ODD_SHAPE``): ``vision.leave_out.odd_shaped``. Chooses each on synthetic
validation hands, never the seed-7 hands that measure the pipeline: the most exact totals, the
loosest on a tie. Beside it, not chosen by: the labelled real photos, and how many of their
counted tiles each would leave out. Writes ``benchmarks/results/odd_shapes.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tqdm import tqdm

from benchmarks.report import write_report
from vision.data.labels import LabelledImage
from vision.data.real import iter_images, load_folder, pip_labelled
from vision.eval.metrics import face_up_matches
from vision.leave_out import ODD_SHAPE, SMALLEST_BOX, odd_shaped
from vision.observation import Observation
from vision.pipeline import HandScorer

Bound = float | None
Photos = list[tuple[LabelledImage, Observation]]


def read_all(labels: list[LabelledImage], what: str) -> Photos:
    scorer = HandScorer(odd_shape=None, smallest_box=None)
    return [(label, scorer(image)) for label, image in tqdm(iter_images(labels), total=len(labels), desc=what)]


def measure(photos: Photos, bound: Bound, smallest: Bound) -> dict[str, int]:
    """Exact totals with odd boxes left out, and how many counted tiles, found and read, that leaves out."""
    exact = true_tiles_left_out = 0
    for label, prediction in photos:
        odd = odd_shaped([tile.corners for tile in prediction.found], bound, smallest)
        read = [not tile.uncertain and tile.pips is not None for tile in prediction.found]
        kept = [tile for tile, ok, out in zip(prediction.found, read, odd, strict=True) if ok and not out]
        total = sum(sum(tile.pips or ()) for tile in kept)
        exact += total == label.total_pips
        true = {j for i, j in face_up_matches(label, prediction) if label.tiles[i].counted}
        true_tiles_left_out += sum(read[j] and odd[j] for j in true)
    return {"exact_totals": exact, "photos": len(photos), "true_tiles_left_out": true_tiles_left_out}


def name_of(value: Bound) -> str:
    return "never" if value is None else f"{value:g}"


def sweep(synthetic: Photos, real: Photos, values: list[Bound], loosest: str, **fixed: Bound) -> dict:
    """Each value of the swept test (the other fixed): synthetic and real rows, and the chosen
    value (the most exact synthetic totals; on a tie the loosest, at the ``loosest`` end)."""
    swept = "bound" if "smallest" in fixed else "smallest"
    rows = {}
    for value in values:
        settings = {swept: value, **fixed}
        rows[name_of(value)] = {
            "synthetic": measure(synthetic, settings["bound"], settings["smallest"]),
            "real": measure(real, settings["bound"], settings["smallest"]) if real else None,
        }

    def looseness(name: str) -> float:  # leaving none out ("never") is loosest of all
        if name == "never":
            return float("inf")
        return float(name) if loosest == "high" else -float(name)

    chosen = max(rows, key=lambda name: (rows[name]["synthetic"]["exact_totals"], looseness(name)))
    return {"fixed": {key: name_of(value) for key, value in fixed.items()}, "rows": rows, "chosen": chosen}


def table(title: str, result: dict, set_name: str) -> list[str]:
    lines = [
        f"## {title} (chosen: **{result['chosen']}**; "
        + ", ".join(f"{key} {value}" for key, value in result["fixed"].items())
        + ")",
        "",
        f"| value | {set_name} exact totals | true tiles left out | real exact totals | real tiles left out |",
        "|---|---|---|---|---|",
    ]
    for name, row in result["rows"].items():
        synthetic, real = row["synthetic"], row["real"]
        real_cells = f"{real['exact_totals']}/{real['photos']} | {real['true_tiles_left_out']}" if real else "- | -"
        lines.append(
            f"| {name} | {synthetic['exact_totals']}/{synthetic['photos']} | "
            f"{synthetic['true_tiles_left_out']} | {real_cells} |"
        )
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path("out/synth/val-hand-v10"))
    parser.add_argument("--images", type=int, default=400)
    parser.add_argument("--bounds", default="never,0.1,0.12,0.15,0.18,0.2,0.25,0.3,0.4")
    parser.add_argument("--smallest", default="never,0.3,0.4,0.5,0.6,0.7")
    args = parser.parse_args()

    def values(text: str) -> list[Bound]:
        return [None if value == "never" else float(value) for value in text.split(",")]

    labels = load_folder(args.set)[: args.images]
    if not labels:
        parser.error(f"no labelled images in {args.set} (make it with hubcam synth --kind hand --n 400 --seed 8)")
    synthetic = read_all(labels, args.set.name)
    real_labels = pip_labelled()
    real = read_all(real_labels, "real") if real_labels else []
    shapes = sweep(synthetic, real, values(args.bounds), "high", smallest=SMALLEST_BOX)
    sizes = sweep(synthetic, real, values(args.smallest), "low", bound=ODD_SHAPE)
    command = (
        f"python -m benchmarks.odd_shapes --set {args.set} --images {args.images} "
        f"--bounds {args.bounds} --smallest {args.smallest}"
    )
    report = {
        "benchmark": "odd_shapes",
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "shape": shapes,
        "size": sizes,
    }
    lines = [
        "# Which boxes no tile's face could make",
        "",
        f"`{command}` ({report['date']}): exact photo totals through the whole pipeline when boxes that",
        "the table's plane cannot make 2:1 rectangles within a bound, or that are smaller than a share of",
        "the median box on it, are left out; and how many counted tiles (found, read) each leaves out.",
        f"Each chosen on {args.set.name} with the other at the pipeline's value; the real photos beside.",
        "",
        *table("Shape: how far from a 2:1 rectangle (ODD_SHAPE)", shapes, args.set.name),
        *table("Size: the smallest share of the median box (SMALLEST_BOX)", sizes, args.set.name),
    ]
    write_report("odd_shapes", report, lines)


if __name__ == "__main__":
    main()
