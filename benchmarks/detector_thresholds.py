"""The detector's confidence and overlap thresholds, chosen on synthetic hands and reported on real ones.

    python -m benchmarks.detector_thresholds [--set out/synth/val-hand-v10] [--images 400]

The set is its own (hubcam synth --kind hand --n 400 --seed 8): the hands that measure the
pipeline (make eval, seed 7) are never the ones its thresholds were chosen on.

Tiles in a hand never lie on one another, so overlapping boxes can be suppressed
harder than Ultralytics' default; a higher confidence trades recall for precision.
Every pair (NMS IoU, confidence) is scored by face-up tile recall and precision (IoU
>= 0.5). The pair with the best F1 on the synthetic hands (near ties going to the
higher recall) is the one the pipeline uses (vision/pipeline.py); the real photos' numbers are reported beside it, never
used to choose. Writes ``benchmarks/results/detector_thresholds.json`` and ``.md``.
"""

from __future__ import annotations

import time

from benchmarks.choosing import F1_TIE, Rates, best, photo_sets, rates, table_head, table_row
from benchmarks.report import write_report
from models import DETECTOR
from vision.data.labels import FACE_UP
from vision.detect.onnx_obb import OBBDetector
from vision.eval.metrics import match_tiles
from vision.pipeline import DETECTOR_SIZE, FACE_UP_CLASS

OVERLAPS = (0.5, 0.3, 0.15)
CONFIDENCES = (0.25, 0.35, 0.45, 0.55)


def rates_at(photos: list, overlap: float) -> dict[float, Rates]:
    """(recall, precision, F1) of face-up tiles at each confidence, for one NMS overlap."""
    detector = OBBDetector(DETECTOR, DETECTOR_SIZE, conf=min(CONFIDENCES), iou=overlap)
    found = [(label, detector(image)) for label, image in photos]
    out = {}
    for confidence in CONFIDENCES:
        matched = labelled = predicted = 0
        for label, detections in found:
            keep = (detections.classes == FACE_UP_CLASS) & (detections.scores >= confidence)
            truth = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
            matched += len(match_tiles(truth, list(detections.corners[keep])))
            labelled += len(truth)
            predicted += int(keep.sum())
        out[confidence] = rates(matched, labelled, predicted)
    return out


def main() -> None:
    args, photos = photo_sets(__doc__)
    table = {name: {overlap: rates_at(found, overlap) for overlap in OVERLAPS} for name, found in photos.items()}
    pairs = [(overlap, confidence) for overlap in OVERLAPS for confidence in CONFIDENCES]
    chosen = best({(o, c): table["synthetic"][o][c] for o, c in pairs})
    report = {
        "command": f"python -m benchmarks.detector_thresholds --set {args.set} --images {args.images}",
        "date": time.strftime("%Y-%m-%d"),
        "chosen_on_synthetic": {"nms_iou": chosen[0], "confidence": chosen[1]},
        "rates": {
            name: {f"{o}/{c}": [round(v, 3) for v in rows[o][c]] for o in OVERLAPS for c in CONFIDENCES}
            for name, rows in table.items()
        },
    }
    lines = [
        "# Detector thresholds",
        "",
        f"`{report['command']}` ({report['date']}). Face-up tile recall / precision / F1; the best",
        f"synthetic F1 (ties within {F1_TIE} to the higher recall) is chosen: NMS IoU {chosen[0]},",
        f"confidence {chosen[1]}.",
        "",
        *table_head(["NMS IoU", "confidence"], table, "R / P / F1"),
    ]
    for overlap, confidence in pairs:
        measures = (table[name][overlap][confidence] for name in table)
        lines.append(table_row((overlap, confidence), (overlap, confidence) == chosen, measures))
    write_report("detector_thresholds", report, lines)


if __name__ == "__main__":
    main()
