"""What the renderer's detection choices are worth on real photos.

    python -m benchmarks.detector_realism [--scenes 1200] [--epochs 20] [--variants full,...]

For each variant (the full renderer, and the full renderer with one choice that
matters to finding tiles switched off) it renders the same number of hand scenes,
trains a small detector on them with the same recipe (YOLO11n-OBB, 320 px, from
scratch), and measures it on the real photos:

- the 27 photos with hand-checked corners: face-up tile recall and precision
  (rotated boxes, IoU >= 0.5);
- the box-labelled sets (the robot's busy tablecloths, the Roboflow export):
  face-up recall with upright boxes (the label's box against the upright box round
  each detection, IoU >= 0.5), and how many face-down or standing tiles a face-up
  detection claims (tiles that would be counted but must not be).

The detectors are small and briefly trained, so the numbers are lower than the
bundled model's; what matters is the difference between variants, all else equal.
Needs the train extra. Writes ``benchmarks/results/detector_realism.json`` and ``.md``,
keeping the rows of earlier runs with the same recipe that this run does not measure again
(each row says when it was measured): a variant costs one to two hours, so they are run
one or two at a time. Rows of other recipes are dropped.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from typing import Any

import cv2

from benchmarks.framing import measure
from benchmarks.report import write_report
from vision.data.labels import FACE_UP
from vision.data.real import box_labelled, iter_images, load_folder, pip_labelled
from vision.detect.onnx_obb import FACE_UP_CLASS, OBBDetector
from vision.eval.metrics import match_tiles, wilson
from vision.geometry import upright_box
from vision.synth.dataset import export_yolo_obb, write_set
from vision.synth.scene import FULL, SceneOptions
from vision.train.detector import REPO, Recipe, export_onnx, train, write_card

WORK = REPO / "out" / "detector-realism"
VARIANTS: dict[str, SceneOptions] = {
    "full": FULL,
    "whole_scene_framing": SceneOptions(close_hands=False),
    "no_distractors": SceneOptions(distractors=False),
    "plain_tables_only": SceneOptions(tables=("dark", "white")),
    "flat_tiles": SceneOptions(thickness=False),
    "square_corners": SceneOptions(rounded_corners=False),
    "no_spinner": SceneOptions(spinner=False),
}
RESULTS = REPO / "benchmarks" / "results" / "detector_realism.json"


def box_measures(detector: OBBDetector, photos: list) -> dict[str, Any]:
    """Face-up recall on upright-box labels, and face-down or standing tiles claimed as face up."""
    matched = labelled = claimed = others = 0
    for label, image in photos:
        found = detector(image)
        face_up = [upright_box(quad) for quad in found.corners[found.classes == FACE_UP_CLASS]]
        up = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
        not_up = [tile.corners for tile in label.tiles if tile.pose != FACE_UP]
        matched += len(match_tiles(up, face_up))
        labelled += len(up)
        claimed += len(match_tiles(not_up, face_up))
        others += len(not_up)
    low, high = wilson(matched, labelled)
    return {
        "face_up_recall": round(matched / labelled, 3) if labelled else None,
        "face_up_recall_interval": [round(low, 3), round(high, 3)],
        "face_up_labelled": labelled,
        "others_claimed_face_up": claimed,
        "others_labelled": others,
    }


def run_variant(name: str, options: SceneOptions, scenes: int, recipe: Recipe) -> Path:
    """Render, export, train and export to ONNX (each step resumes where it stopped, also in a
    later session: a variant is trained once per scene count and epochs)."""
    folder = WORK / f"{scenes}-scenes-{recipe.epochs}-epochs" / name
    model = folder / "detector" / "model.onnx"
    if model.exists():
        return model
    write_set("hand", scenes, 4242, folder / "scenes", options=options, progress=False)
    data_yaml = export_yolo_obb(load_folder(folder / "scenes"), folder / "obb", val_share=0.1)
    weights, seconds = train(
        data_yaml, folder / "run", recipe, resume=(folder / "run" / "weights" / "last.pt").exists()
    )
    export_onnx(weights, folder / "detector", recipe.imgsz)
    write_card(folder / "detector", recipe, {"variant": name, "scenes": scenes}, seconds, {})
    shutil.rmtree(folder / "run" / "weights", ignore_errors=True)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=1200)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    names = args.variants.split(",")
    unknown = [name for name in names if name not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s): {', '.join(unknown)} (expected some of {', '.join(VARIANTS)})")
    recipe = Recipe(imgsz=320, epochs=args.epochs)
    pip_photos = list(iter_images(pip_labelled()))
    box_photos = [(label, cv2.imread(str(label.path))) for label in box_labelled()]
    results = earlier_rows(recipe, args.scenes, names)
    for name in names:
        model = run_variant(name, VARIANTS[name], args.scenes, recipe)
        detector = OBBDetector(model)
        card = json.loads((model.parent / "card.json").read_text())
        results[name] = {
            "pip_labelled": measure(detector, pip_photos, [1.0])["1"],
            "box_labelled": box_measures(detector, box_photos),
            "training_minutes": round(card["training_seconds"] / 60, 1),
            "measured": time.strftime("%Y-%m-%d"),
        }
        print(name, json.dumps(results[name]), flush=True)
        report(args, recipe, results, names)  # after each variant: hours of training are never lost


def earlier_rows(recipe: Recipe, scenes: int, names: list[str]) -> dict[str, Any]:
    """The rows already measured with this recipe and scene count, but for the variants named
    (measured again now). Rows from before rows had dates are dated by their run."""
    if not RESULTS.exists():
        return {}
    earlier = json.loads(RESULTS.read_text())
    same = {"scenes": scenes, "epochs": recipe.epochs, "imgsz": recipe.imgsz, "seed": recipe.seed}
    if earlier.get("recipe") != same:
        return {}
    return {
        name: {**row, "measured": row.get("measured", earlier["date"])}
        for name, row in earlier["variants"].items()
        if name not in names
    }


def report(args: argparse.Namespace, recipe: Recipe, results: dict[str, Any], names: list[str]) -> None:
    """Write what has been measured so far, saying which variants are still to come."""
    document = {
        "command": f"python -m benchmarks.detector_realism --scenes {args.scenes} --epochs {args.epochs}"
        f" --variants {','.join(names)}",
        "date": time.strftime("%Y-%m-%d"),
        "recipe": {"scenes": args.scenes, "epochs": args.epochs, "imgsz": recipe.imgsz, "seed": recipe.seed},
        "variants": results,
        "still_to_come": [name for name in names if name not in results],
    }
    lines = [
        "# Renderer choices for detection, measured on real photos",
        "",
        f"`{document['command']}` ({document['date']}): one small detector per variant, same recipe and",
        "scene count. Recall and precision on the 27 photos with corners (rotated IoU >= 0.5); face-up",
        "recall on the box-labelled photos (upright IoU >= 0.5); face-down or standing tiles claimed",
        "as face up there. Rows of earlier runs with the same recipe are kept (see when each was measured).",
        "",
        "| variant | recall (27 photos) | precision | face-up recall (boxes) | others claimed"
        " | training minutes | measured |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in results.items():
        pip, box = row["pip_labelled"], row["box_labelled"]
        lines.append(
            f"| {name} | {pip['recall']:.3f} ({pip['recall_interval'][0]:.3f}-{pip['recall_interval'][1]:.3f})"
            f" | {pip['precision']:.3f} | {box['face_up_recall']:.3f} ({box['face_up_recall_interval'][0]:.3f}-"
            f"{box['face_up_recall_interval'][1]:.3f}) | {box['others_claimed_face_up']}/{box['others_labelled']}"
            f" | {row['training_minutes']} | {row['measured']} |"
        )
    if document["still_to_come"]:
        lines += ["", f"Still to come (not yet trained): {', '.join(document['still_to_come'])}."]
    write_report("detector_realism", document, lines)


if __name__ == "__main__":
    main()
