"""The detector's input size at run time, chosen on synthetic hands and reported on real ones.

    python -m benchmarks.detector_size [--set out/synth/val-hand-v10] [--images 400]

The bundled detector is exported with a dynamic input size, so it can look at a photo at
any size, whatever size it was trained at. Larger costs more (the forward pass grows with
the square of the side) and finds small or crowded tiles more surely, up to where tiles
look larger than any it learnt. Each size runs the whole pipeline (detector, verifier, pip
reader, thresholds as they are) over the threshold benchmarks' own synthetic hands (seed 8)
and the real photos; the share of exact photo totals on the synthetic hands chooses: the
smallest size within TOTAL_TIE of the best. vision/pipeline.py uses it (DETECTOR_SIZE); the
real photos are reported beside, never used to choose. Writes
``benchmarks/results/detector_size.json`` and ``.md``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from benchmarks.choosing import photo_sets, table_head, table_row
from benchmarks.report import write_report
from vision.detect.onnx_obb import OBBDetector
from vision.eval.metrics import score_image, summarise
from vision.pipeline import DETECTOR, DETECTOR_SIZE, HandScorer

SIZES = (320, 384, 416, 448, 480, 512, 576)
TOTAL_TIE = 0.01
"""Exact-total shares this close are a tie (4 photos in 400); among ties the smaller size wins."""
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
    best = max(row["synthetic"]["exact photo total"] for row in table.values())
    chosen = min(size for size, row in table.items() if row["synthetic"]["exact photo total"] >= best - TOTAL_TIE)
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
        f"alone. The smallest size within {TOTAL_TIE} of the best synthetic exact-total share is chosen:",
        f"{chosen} (in use: {DETECTOR_SIZE}).",
        "",
        *table_head(["size", "forward ms"], names, "R / P / half / total"),
    ]
    for size, row in table.items():
        by_set = ([row[name][measure] for measure in MEASURES] for name in names)
        lines.append(table_row([size, speed[size]], size == chosen, by_set, mark=0))
    write_report("detector_size", report, lines)


if __name__ == "__main__":
    main()
