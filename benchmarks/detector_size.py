"""The detector's input size at run time, chosen on synthetic hands and reported on real ones.

    python -m benchmarks.detector_size [--set out/synth/val-hand-v10] [--images 400]

The bundled detector is exported with a dynamic input size, so it can look at a photo at
any size, whatever size it was trained at. Larger costs more (the forward pass grows with
the square of the side) and finds small or crowded tiles more surely, up to where tiles
look larger than any it learnt. Each size runs the whole pipeline (detector, verifier, pip
reader, thresholds as they are) over the threshold benchmarks' own synthetic hands (seed 8)
and the real photos; the share of exact photo totals on the synthetic hands chooses: the
smallest size within TOTAL_TIE of the best, of the sizes that keep issue 4's run-time budget
(SMALLEST_IN_BUDGET and up). vision/pipeline.py uses it (DETECTOR_SIZE); the
real photos are reported beside, never used to choose. Writes
``benchmarks/results/detector_size.json`` and ``.md``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from benchmarks.choosing import photo_sets, table_head, table_row
from benchmarks.report import write_report
from models import DETECTOR
from vision.detect.onnx_obb import OBBDetector
from vision.eval.metrics import score_image, summarise
from vision.pipeline import DETECTOR_SIZE, HandScorer

SIZES = (320, 384, 416, 448, 480, 512, 576)
TOTAL_TIE = 0.01
"""Exact-total shares this close are a tie (4 photos in 400); among ties the smaller size wins."""
SMALLEST_IN_BUDGET = 448
"""Below this a photo's whole time breaks issue 4's budget, 1.5x its decoding plus the forward pass:
what the pipeline adds (about 14 ms on a 1600x1200 hand) hardly shrinks with the detector's input,
its allowance does (``python -m benchmarks.score_bench --repeats 15`` with the detector at 416 px:
1.55 on the 1600x1200 synthetic hand, 2026-11-30)."""
MEASURES = ("tile recall", "tile precision", "per-half accuracy", "exact photo total")


def measures_at(size: int, photos: list) -> dict[str, float]:
    """The whole pipeline's rates over the photos with the detector at ``size``."""
    scorer = HandScorer(detector_size=size)
    summary = summarise([score_image(label, scorer(image)) for label, image in photos])
    rates = {rate.name: rate for rate in summary["rates"]}  # type: ignore[attr-defined]
    return {name: round(rates[name].value or 0.0, 4) for name in MEASURES}


def forward_ms(size: int, repeats: int = 15) -> float:
    """The median time of the detector's forward pass at ``size``."""
    detector = OBBDetector(DETECTOR, size)
    blob = np.zeros((1, 3, size, size), np.float32)
    detector.session.run(None, {detector.input_name: blob})
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        detector.session.run(None, {detector.input_name: blob})
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def main() -> None:
    args, photos = photo_sets(__doc__)
    table = {size: {name: measures_at(size, found) for name, found in photos.items()} for size in SIZES}
    totals = {size: row["synthetic"]["exact photo total"] for size, row in table.items() if size >= SMALLEST_IN_BUDGET}
    chosen = min(size for size, total in totals.items() if total >= max(totals.values()) - TOTAL_TIE)
    speed = {size: forward_ms(size) for size in SIZES}
    report = {
        "command": f"python -m benchmarks.detector_size --set {args.set} --images {args.images}",
        "date": time.strftime("%Y-%m-%d"),
        "chosen_on_synthetic": chosen,
        "in_use": DETECTOR_SIZE,
        "forward_ms": speed,
        "measures": table,
    }
    names = list(photos)
    lines = [
        "# Detector input size",
        "",
        f"`{report['command']}` ({report['date']}). The whole pipeline with the detector at each size:",
        "tile recall / precision / per-half accuracy / exact photo total, and the detector's forward pass",
        f"alone. Of the sizes from {SMALLEST_IN_BUDGET} up (smaller ones break the run-time budget), the smallest",
        f"within {TOTAL_TIE} of their best synthetic exact-total share is chosen: {chosen} (in use:",
        f"{DETECTOR_SIZE}).",
        "",
        *table_head(["size", "forward ms"], names, "R / P / half / total"),
    ]
    for size, row in table.items():
        by_set = ([row[name][measure] for measure in MEASURES] for name in names)
        lines.append(table_row([size, speed[size]], size == chosen, by_set, mark=0))
    write_report("detector_size", report, lines)


if __name__ == "__main__":
    main()
