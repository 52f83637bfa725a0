"""Does the size of tiles in the frame explain what a detector finds on real photos?

    python -m benchmarks.framing [--detector NAME=PATH ...] [--shrink 1,0.7,0.5]

Real hand photos are taken close: a tile's length is a median 19 % of the photo's
longer side in ../shared/real, where the first renderer framed whole scenes and
drew tiles at a median 9 %. This runs each detector over the labelled real photos
as they are and shrunk inside a larger canvas (the photo's own border colour round
it), so the same tiles appear smaller, and reports tile recall (IoU >= 0.5) and
precision at each scale. A detector that finds more tiles in the shrunk photos than
in the originals learned the wrong tile size from its training scenes.
Writes ``benchmarks/results/framing.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from benchmarks.report import write_report
from calibration.table_plane import border_colour
from models import DETECTOR
from vision.data.real import iter_images, pip_labelled
from vision.detect.onnx_obb import FACE_UP_CLASS, OBBDetector
from vision.eval.metrics import match_tiles, wilson
from vision.pipeline import DETECTOR_SIZE


def shrink(image_bgr: np.ndarray, factor: float) -> tuple[np.ndarray, float, np.ndarray]:
    """The photo scaled by ``factor`` in the middle of a canvas of its own size, filled with
    the median colour of its border; returns the canvas, the scale and the offset."""
    if factor >= 1.0:
        return image_bgr, 1.0, np.zeros(2, np.float32)
    height, width = image_bgr.shape[:2]
    canvas = np.empty_like(image_bgr)
    canvas[:] = border_colour(image_bgr)
    small = cv2.resize(image_bgr, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    offset = np.array([(width - small.shape[1]) // 2, (height - small.shape[0]) // 2])
    canvas[offset[1] : offset[1] + small.shape[0], offset[0] : offset[0] + small.shape[1]] = small
    return canvas, factor, offset.astype(np.float32)


def measure(detector: OBBDetector, photos: list, factors: list[float]) -> dict[str, dict[str, float]]:
    results = {}
    for factor in factors:
        found = labelled = matched = 0
        for label, image in photos:
            canvas, scale, offset = shrink(image, factor)
            detections = detector(canvas)
            corners = list(detections.corners[detections.classes == FACE_UP_CLASS])
            truth = [tile.corners * scale + offset for tile in label.tiles]
            matched += len(match_tiles(truth, corners))
            labelled += len(truth)
            found += len(corners)
        recall_low, recall_high = wilson(matched, labelled)
        results[f"{factor:g}"] = {
            "recall": round(matched / labelled, 3),
            "recall_interval": [round(recall_low, 3), round(recall_high, 3)],
            "precision": round(matched / found, 3) if found else 0.0,
            "matched": matched,
            "labelled": labelled,
            "found": found,
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--detector", action="append", default=None, help="NAME=PATH to an ONNX detector")
    parser.add_argument("--shrink", default="1,0.7,0.5", help="scales to try (1 = the photo as it is)")
    args = parser.parse_args()
    detectors = dict(item.split("=", 1) for item in args.detector) if args.detector else {"bundled": str(DETECTOR)}
    factors = [float(value) for value in args.shrink.split(",")]
    photos = list(iter_images(pip_labelled()))
    report = {
        "command": "python -m benchmarks.framing " + " ".join(f"--detector {n}={p}" for n, p in detectors.items()),
        "date": time.strftime("%Y-%m-%d"),
        "photos": len(photos),
        "detectors": {
            name: measure(OBBDetector(Path(path), DETECTOR_SIZE), photos, factors) for name, path in detectors.items()
        },
    }
    lines = [
        "# Tile size in frame and detection on real photos",
        "",
        f"`{report['command']}` ({report['date']}), {len(photos)} labelled real photos; each shrunk",
        "inside a canvas of its own size (scale 1 = as taken). Tile recall at IoU >= 0.5, precision.",
        "",
        "| detector | scale | recall | 95 % interval | precision |",
        "|---|---|---|---|---|",
    ]
    for name, rows in report["detectors"].items():
        for factor, row in rows.items():
            low, high = row["recall_interval"]
            lines.append(f"| {name} | {factor} | {row['recall']:.3f} | {low:.3f}-{high:.3f} | {row['precision']:.3f} |")
    write_report("framing", report, lines)


if __name__ == "__main__":
    main()
