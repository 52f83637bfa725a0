"""The thresholds around the tile verifier, chosen on synthetic hands and reported on real ones.

    python -m benchmarks.verifier_thresholds [--set out/synth/val-hand-v10] [--images 400]

The detector proposes boxes down to a confidence (PROPOSAL_CONFIDENCE, loosely suppressed
at PROPOSAL_NMS_IOU); each box's score becomes ``detector ** (1 - w) * verifier ** w`` (w:
VERIFIER_WEIGHT); boxes overlapping a better one by TILE_NMS_IOU are suppressed and those
scoring KEEP_SCORE or more are kept. Every triple (proposal confidence, w, keep score) is
scored by face-up tile recall and precision (IoU >= 0.5); the best F1 on the synthetic hands
(near ties to the higher recall) is the triple vision/pipeline.py uses. The set is the
detector thresholds' own (seed 8), not the hands that measure the pipeline (seed 7); the
real photos' numbers are reported beside, never used to choose. Writes
``benchmarks/results/verifier_thresholds.json`` and ``.md``.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.choosing import F1_TIE, Rates, best, photo_sets, rates, table_head, table_row
from benchmarks.report import write_report
from vision.data.labels import FACE_UP
from vision.detect.onnx_obb import OBBDetector
from vision.detect.verify import TileVerifier, choose_tiles
from vision.eval.metrics import match_tiles
from vision.pipeline import DETECTOR, DETECTOR_SIZE, FACE_UP_CLASS, PROPOSAL_NMS_IOU, TILE_NMS_IOU, VERIFIER

PROPOSALS = (0.01, 0.02, 0.05, 0.1)
WEIGHTS = (0.5, 0.67, 0.8, 0.9)
KEEPS = (0.2, 0.3, 0.4, 0.5, 0.6)
TRIPLES = [(p, w, k) for p in PROPOSALS for w in WEIGHTS for k in KEEPS]


def rates_at(photos: list) -> dict[tuple[float, float, float], Rates]:
    """(recall, precision, F1) of face-up tiles for every (proposal confidence, weight, keep score)."""
    detector = OBBDetector(DETECTOR, DETECTOR_SIZE, conf=min(PROPOSALS), iou=PROPOSAL_NMS_IOU)
    verifier = TileVerifier(VERIFIER)
    seen = []
    for label, image in photos:
        found = detector(image)
        face_up = found.classes == FACE_UP_CLASS
        corners, scores = found.corners[face_up], found.scores[face_up]
        truth = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
        seen.append((truth, corners, scores, verifier(image, list(corners))))
    out = {}
    for proposal, weight, keep in TRIPLES:
        matched = labelled = predicted = 0
        for truth, corners, scores, said in seen:
            proposed = np.flatnonzero(scores >= proposal)
            chosen, _ = choose_tiles(corners[proposed], scores[proposed], said[proposed], weight, keep, TILE_NMS_IOU)
            kept = proposed[chosen]
            matched += len(match_tiles(truth, list(corners[kept])))
            labelled += len(truth)
            predicted += len(kept)
        out[proposal, weight, keep] = rates(matched, labelled, predicted)
    return out


def main() -> None:
    args, photos = photo_sets(__doc__)
    table = {name: rates_at(found) for name, found in photos.items()}
    chosen = best(table["synthetic"])
    report = {
        "command": f"python -m benchmarks.verifier_thresholds --set {args.set} --images {args.images}",
        "date": time.strftime("%Y-%m-%d"),
        "fixed": {"proposal_nms_iou": PROPOSAL_NMS_IOU, "tile_nms_iou": TILE_NMS_IOU},
        "chosen_on_synthetic": dict(zip(("proposal_confidence", "verifier_weight", "keep_score"), chosen, strict=True)),
        "rates": {
            name: {"/".join(map(str, triple)): [round(v, 3) for v in rows[triple]] for triple in TRIPLES}
            for name, rows in table.items()
        },
    }
    lines = [
        "# Verifier thresholds",
        "",
        f"`{report['command']}` ({report['date']}). Proposals suppressed at IoU {PROPOSAL_NMS_IOU}, tiles at",
        f"{TILE_NMS_IOU}. Face-up tile recall / precision / F1; the best synthetic F1 (ties within {F1_TIE} to",
        f"the higher recall) is chosen: proposal confidence {chosen[0]}, verifier weight {chosen[1]},",
        f"keep score {chosen[2]}.",
        "",
        *table_head(["proposal confidence", "verifier weight", "keep score"], table, "R / P / F1"),
    ]
    for triple in TRIPLES:
        lines.append(table_row(triple, triple == chosen, (table[name][triple] for name in table)))
    write_report("verifier_thresholds", report, lines)


if __name__ == "__main__":
    main()
