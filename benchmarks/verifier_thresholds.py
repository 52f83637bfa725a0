"""The thresholds around the tile verifier, chosen on synthetic hands and reported on real ones.

    python -m benchmarks.verifier_thresholds [--set out/synth/val-hand-v10] [--images 400]
        [--verifier ONNX] [--name NAME]

The detector proposes boxes down to a confidence (PROPOSAL_CONFIDENCE, loosely suppressed
at PROPOSAL_NMS_IOU); each box's score becomes ``detector ** (1 - w) * verifier ** w`` (w:
the weight); boxes overlapping a better one by the weighing's IoU are suppressed and those
scoring the keep score or more are kept (``vision.detect.verify.Weighing``). Choices are
scored by face-up tile recall and precision (IoU >= 0.5), and the best F1 on the synthetic
hands (near ties to the higher recall) is the one vision/pipeline.py uses, in two steps:

1. every triple (proposal confidence, w, keep score), the verifier always weighing in;
2. at that triple, the trust: how sure the detector must be for a box to keep its own score
   when the verifier would lower it (1.0: never).

The set is the detector thresholds' own (seed 8), not the hands that measure the pipeline
(seed 7); the real photos' numbers are reported beside, never used to choose. Writes
``benchmarks/results/verifier_thresholds.json`` and ``.md`` (the answers weighed are the bundled box
refiner's verdict, ``vision.pipeline.OWN_VERDICT``; ``--verifier`` weighs a candidate tile verifier's
instead; ``--name`` keeps its report apart).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.choosing import F1_TIE, Rates, best, photo_sets, rates, table_head, table_row
from benchmarks.report import write_report
from models import DETECTOR
from vision.data.labels import FACE_UP
from vision.detect.onnx_obb import FACE_UP_CLASS, OBBDetector
from vision.detect.verify import Weighing, choose_tiles
from vision.eval.metrics import match_tiles
from vision.pipeline import DETECTOR_SIZE, OWN_VERDICT, PROPOSAL_NMS_IOU, WEIGHING, judge_of

PROPOSALS = (0.01, 0.02, 0.05, 0.1)
WEIGHTS = (0.5, 0.67, 0.8, 0.9)
KEEPS = (0.2, 0.3, 0.4, 0.5, 0.6)
TRIPLES = [(p, w, k) for p in PROPOSALS for w in WEIGHTS for k in KEEPS]
NEVER = 1.0
TRUSTS = (NEVER, 0.9, 0.8, 0.7, 0.6)

Choice = tuple[float, float, float, float]
"""(proposal confidence, verifier weight, keep score, trust)."""


def seen_by_models(photos: list, verifier_path: Path | str = OWN_VERDICT) -> list[tuple[Any, ...]]:
    """Per photo: the true face-up tiles, and the detector's proposals, scores and verifier's answers
    (``OWN_VERDICT``: the bundled refiner's verdict)."""
    detector = OBBDetector(DETECTOR, DETECTOR_SIZE, conf=min(PROPOSALS), iou=PROPOSAL_NMS_IOU)
    verifier = judge_of(verifier_path, None)
    seen = []
    for label, image in photos:
        found = detector(image)
        face_up = found.classes == FACE_UP_CLASS
        corners, scores = found.corners[face_up], found.scores[face_up]
        truth = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
        seen.append((truth, corners, scores, verifier.judge(image, list(corners), {})))
    return seen


def rates_at(seen: list[tuple[Any, ...]], choice: Choice) -> Rates:
    """Face-up tile (recall, precision, F1) when the tiles are chosen by ``choice``."""
    proposal, weight, keep, trust = choice
    weighing = Weighing(weight, keep, WEIGHING.iou, trust)
    matched = labelled = predicted = 0
    for truth, corners, scores, said in seen:
        proposed = np.flatnonzero(scores >= proposal)
        chosen, _ = choose_tiles(corners[proposed], scores[proposed], said[proposed], weighing)
        kept = proposed[chosen]
        matched += len(match_tiles(truth, list(corners[kept])))
        labelled += len(truth)
        predicted += len(kept)
    return rates(matched, labelled, predicted)


def table(seen: dict[str, list[tuple[Any, ...]]], choices: list[Choice]) -> dict[str, dict[Choice, Rates]]:
    """Each photo set's rates at each choice."""
    return {name: {choice: rates_at(photos, choice) for choice in choices} for name, photos in seen.items()}


def candidate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--verifier", type=Path, help="a candidate tile verifier (ONNX; default the bundled refiner's verdict)"
    )
    parser.add_argument("--name", default="verifier_thresholds", help="the report's name in benchmarks/results")


def main() -> None:
    args, photos = photo_sets(__doc__, candidate_arguments)
    if args.verifier is not None and not args.verifier.is_file():
        raise SystemExit(f"verifier_thresholds: no verifier at {args.verifier}")
    seen = {name: seen_by_models(found, args.verifier or OWN_VERDICT) for name, found in photos.items()}
    weighings = table(seen, [(*triple, NEVER) for triple in TRIPLES])
    weighed = best(weighings["synthetic"])
    trusts = table(seen, [(*weighed[:3], trust) for trust in TRUSTS])
    chosen = best(trusts["synthetic"])
    in_use = {"verifier_weight": WEIGHING.weight, "keep_score": WEIGHING.keep, "trust": WEIGHING.trusted}
    names = ("proposal_confidence", "verifier_weight", "keep_score", "trust")
    report = {
        "command": f"python -m benchmarks.verifier_thresholds --set {args.set} --images {args.images}"
        + ("" if args.verifier is None else f" --verifier {args.verifier}")
        + ("" if args.name == "verifier_thresholds" else f" --name {args.name}"),
        "date": time.strftime("%Y-%m-%d"),
        "fixed": {"proposal_nms_iou": PROPOSAL_NMS_IOU, "tile_nms_iou": WEIGHING.iou},
        "chosen_on_synthetic": dict(zip(names, chosen, strict=True)),
        "in_use": in_use,
        "rates": {
            name: {
                "/".join(map(str, choice)): [round(v, 3) for v in rows[choice]]
                for rows in (weighings[name], trusts[name])
                for choice in rows
            }
            for name in weighings
        },
    }
    lines = [
        "# Verifier thresholds",
        "",
        f"`{report['command']}` ({report['date']}). Proposals suppressed at IoU {PROPOSAL_NMS_IOU}, tiles at",
        f"{WEIGHING.iou}. Face-up tile recall / precision / F1; the best synthetic F1 (ties within {F1_TIE} to",
        "the higher recall) is chosen, first the weighing with the verifier always weighing in, then at",
        f"that weighing the trust: proposal confidence {chosen[0]}, verifier weight {chosen[1]}, keep score",
        f"{chosen[2]}, trust {chosen[3]} (in use: weight {WEIGHING.weight}, keep score {WEIGHING.keep}, trust",
        f"{WEIGHING.trusted}).",
        "",
        *table_head(["proposal confidence", "verifier weight", "keep score"], weighings, "R / P / F1"),
    ]
    for choice in weighings["synthetic"]:
        by_set = (rows[choice] for rows in weighings.values())
        lines.append(table_row(choice[:3], choice == weighed, by_set))
    lines += ["", "At the chosen weighing, how sure the detector must be to keep a box the verifier doubts:", ""]
    lines += table_head(["trust"], trusts, "R / P / F1")
    for choice in trusts["synthetic"]:
        lines.append(table_row(choice[3:], choice == chosen, (rows[choice] for rows in trusts.values())))
    write_report(args.name, report, lines)


if __name__ == "__main__":
    main()
