"""Training the box refiner (torch, the train extra) and exporting it to ONNX.

Boxes come from synthetic hands the detector never trained on:

- what the bundled detector finds there (its own errors are the ones to mend), each over the
  face-up tile it overlaps most;
- the true tiles with their corners a little off (``loosen``) and run on past one end
  (``overrun``), as the detector's boxes are on real photos and at their worst;
- tiles cut by the frame as the detector finds them (``as_found``): the refiner learns to put
  their corners beyond the frame's edge;

Each box learns where the true tile's four top-face corners lie in its crop
(``vision.detect.refine.corners_to_offsets``); crops are cut exactly as at run time.
"""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from datasets.labels import FACE_UP
from datasets.synth.scene import FULL, make_scene, render
from models.train import smallnet
from models.train.counter import loosen
from models.train.smallnet import Checkpoint, fit, halving_block, held_out, images_only, photometric, predict
from models.train.verifier import found_face_up
from vision.detect.refine import CROP_SHAPE, LONG_PX, corners_to_offsets, crop_boxes
from vision.geometry import quad_iou, short_edge_first

SCENE_SIZE = (1280, 960)
LEAST_SHOWN = 0.2
"""A cut tile showing less of its face than this is not taught (the detector would not find it)."""
MATCH_IOU = 0.5
"""A detector's box learns the tile it overlaps by at least this (for a tile cut by the frame,
the part of it that shows)."""
PROPOSAL_CONFIDENCE = 0.2
"""The detector's boxes worth refining: the pipeline keeps few below this."""
FARTHEST = 1.0
"""A box whose tile has a corner farther than this (in box lengths) from the box's own is left out:
it is over some other tile."""


@dataclass(frozen=True)
class RefinerRecipe:
    scenes: int = 3200
    epochs: int = 12
    seed: int = 6
    """Scenes are drawn from seeds seed * 100_000 + index (no hubcam synth set shares them)."""
    batch: int = 128
    max_lr: float = 3e-3
    loosened: int = 2
    """Loosened copies of each true tile."""
    overrun_share: float = 0.5
    """Share of the true tiles also taught run on past one end."""
    cut_copies: int = 6
    """Loosened copies of each tile cut by the frame as the detector finds it (few scenes have them,
    and where a cut tile ends decides whether it is read: vision.geometry.halves_in_frame)."""
    start_from: str = ""
    """A refiner's ONNX export to go on training (``models.train.smallnet.continued_from``); empty: from nothing."""


def as_found(corners: np.ndarray, width: int, height: int) -> np.ndarray | None:
    """A tile cut by the frame as the detector finds it: the rectangle round its corners moved into
    the frame (as its training labels are: datasets.synth.dataset.export_yolo_obb), the end at
    corners[0..1] still first; None when too little of it shows for the detector to find it."""
    inside = np.clip(corners, 0, [width, height]).astype(np.float32)
    found = short_edge_first(cv2.boxPoints(cv2.minAreaRect(inside)))
    if cv2.contourArea(found) < LEAST_SHOWN * cv2.contourArea(corners):
        return None
    end = corners[:2].mean(axis=0)
    if np.linalg.norm(found[2:].mean(axis=0) - end) < np.linalg.norm(found[:2].mean(axis=0) - end):
        found = np.roll(found, 2, axis=0)
    return found


def overrun(corners: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The box run on past one end of the tile by 10-40 % of its length, over whatever lies beyond
    (most often a neighbour laid end to end). On the 200 synthetic evaluation hands the detector's
    box is a fifth or more too long for 2 % of the tiles it finds, and 6 of the 14 tiles misread and
    counted had such a box (benchmarks/box_errors.py@d88286a); ``loosen`` never draws one."""
    along = corners[2] - corners[1]  # from the corners[0..1] end to the other
    grown = corners.copy()
    if rng.random() < 0.5:
        grown[2:] += along * rng.uniform(0.1, 0.4)
    else:
        grown[:2] -= along * rng.uniform(0.1, 0.4)
    return grown


def build_model() -> Any:
    """Three convolution blocks (40 x 64 -> 5 x 8), then the map flattened into a small linear head:
    where things lie in the crop is the answer, so it is not pooled away."""
    from torch import nn

    height, width = CROP_SHAPE
    return nn.Sequential(
        halving_block(3, 16), halving_block(16, 32), halving_block(32, 48),
        nn.Conv2d(48, 64, 3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 16, 1), nn.ReLU(),
        nn.Flatten(), nn.Linear(16 * (height // 8) * (width // 8), 64), nn.ReLU(), nn.Linear(64, 8),
    )  # fmt: skip


def match_boxes(
    boxes: list[np.ndarray], tiles: list[np.ndarray], width: int, height: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each box over a face-up tile (IoU >= MATCH_IOU with the tile, or with what of it shows when
    the frame cuts it), with that tile's corners."""
    shown = [as_found(tile, width, height) for tile in tiles]
    kept, targets = [], []
    for box in boxes:
        ious = [
            max(quad_iou(box, tile), quad_iou(box, seen) if seen is not None else 0.0)
            for tile, seen in zip(tiles, shown, strict=True)
        ]
        if ious and max(ious) >= MATCH_IOU:
            kept.append(box)
            targets.append(tiles[int(np.argmax(ious))])
    return kept, targets


def scene_boxes(job: tuple[int, RefinerRecipe]) -> tuple[np.ndarray, np.ndarray]:
    """Crops and corner offsets from one rendered hand."""
    seed, recipe = job
    image, label = render(make_scene("hand", seed, FULL), SCENE_SIZE, FULL)
    face_up = [tile for tile in label["tiles"] if tile["pose"] == FACE_UP]
    tiles = [np.array(tile["corners"], np.float32) for tile in face_up]
    return taught_boxes(image, tiles, [tile["cut"] for tile in face_up], recipe, np.random.default_rng(seed))


def taught_boxes(
    image: np.ndarray, tiles: list[np.ndarray], cuts: list[bool], recipe: RefinerRecipe, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Crops and corner offsets of the detector's face-up boxes in ``image`` and of loosened copies of
    its face-up ``tiles`` (those ``cuts`` says the frame cuts, as found there), each over its tile."""
    height, width = image.shape[:2]
    boxes = found_face_up(image, PROPOSAL_CONFIDENCE)
    for tile, cut in zip(tiles, cuts, strict=True):
        seen = as_found(tile, width, height) if cut else tile
        if seen is None:  # too little of it shows to be found
            continue
        boxes += [loosen(seen, rng) for _ in range(recipe.cut_copies if cut else recipe.loosened)]
        if not cut and rng.random() < recipe.overrun_share:
            boxes.append(overrun(loosen(tile, rng), rng))
    kept, targets = match_boxes(boxes, tiles, width, height)
    offsets = [corners_to_offsets(box, tile) for box, tile in zip(kept, targets, strict=True)]
    near = [index for index, offset in enumerate(offsets) if np.abs(offset).max() <= FARTHEST]
    crops = crop_boxes(image, [kept[index] for index in near])
    return crops, np.array([offsets[index] for index in near], np.float32).reshape(-1, 8)


def synthetic_boxes(recipe: RefinerRecipe) -> tuple[np.ndarray, np.ndarray]:
    """The scenes' boxes (``scene_boxes``)."""
    jobs = [(recipe.seed * 100_000 + index, recipe) for index in range(recipe.scenes)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        made = pool.imap(scene_boxes, jobs, chunksize=8)
        parts = list(tqdm(made, total=len(jobs), desc="rendering", unit="scene", disable=not jobs))
    return np.concatenate([crops for crops, _ in parts]), np.concatenate([offsets for _, offsets in parts])


def train(crops: np.ndarray, offsets: np.ndarray, recipe: RefinerRecipe, checkpoint: Checkpoint | None = None) -> Any:
    """Smooth L1 on the offsets (in box lengths), with ``models.train.smallnet.photometric`` (no flips:
    they would move the corners)."""
    import torch
    from torch import nn

    def loss(said: Any, targets: Any) -> Any:
        return nn.functional.smooth_l1_loss(said, targets, beta=0.02)

    build: Any = build_model
    if recipe.start_from:
        build = smallnet.continued_from(Path(recipe.start_from), build, crops, recipe.seed)
    return fit(
        build, crops, torch.from_numpy(offsets), loss, images_only(photometric),
        recipe, checkpoint,
    )  # fmt: skip


def export_onnx(model: Any, path: Path) -> Path:
    """ONNX with input ``crops`` ``(n, 3, 40, 64)`` float 0-1 BGR and output ``(n, 8)`` offsets."""
    return smallnet.export_onnx(model, path, "crops", *CROP_SHAPE)


def corner_errors(model: Any, crops: np.ndarray, offsets: np.ndarray) -> dict[str, Any]:
    """How far the corners lie from the tile's, as a share of the box's length, before and after."""
    said = predict(model, crops)

    def worst_corner(error: np.ndarray) -> np.ndarray:
        return np.linalg.norm(error.reshape(-1, 4, 2), axis=2).max(axis=1)

    before, after = worst_corner(offsets), worst_corner(offsets - said)

    def both(measure: Any) -> dict[str, float]:
        return {"box": round(float(measure(before)), 4), "refined": round(float(measure(after)), 4)}

    return {
        "boxes": len(crops),
        "worst_corner_median": both(np.median),
        "worst_corner_p95": both(lambda error: np.quantile(error, 0.95)),
        "worst_corner_over_0.1": both(lambda error: (error > 0.1).mean()),
    }


def real_boxes() -> tuple[np.ndarray, np.ndarray]:
    """The detector's boxes on the labelled real photos with their tiles' offsets (measuring only)."""
    from datasets.real import iter_images, pip_labelled

    crops, offsets = [], []
    for label, image in iter_images(pip_labelled()):
        tiles = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
        height, width = image.shape[:2]
        kept, targets = match_boxes(found_face_up(image, PROPOSAL_CONFIDENCE), tiles, width, height)
        crops.append(crop_boxes(image, kept))
        offsets += [corners_to_offsets(box, tile) for box, tile in zip(kept, targets, strict=True)]
    return np.concatenate(crops), np.array(offsets, np.float32)


def train_and_export(out_dir: Path, recipe: RefinerRecipe, resume: bool = False) -> dict[str, Any]:
    """Render, find, train, export, and write the card; ``resume``: go on from the epochs an
    unfinished run saved in ``out_dir`` (``models.train.smallnet.Checkpoint``)."""
    from datasets.real import real_root
    from models import DETECTOR

    if recipe.start_from and not Path(recipe.start_from).is_file():
        raise FileNotFoundError(f"no refiner to start from at {recipe.start_from}")
    checkpoint = Checkpoint.beside(out_dir, resume)

    start = time.perf_counter()
    boxes_from = smallnet.described(DETECTOR, "models/tile-detector/model.onnx")
    crops, offsets = synthetic_boxes(recipe)
    held, used = held_out(len(crops), recipe.seed)
    model = train(crops[used], offsets[used], recipe, checkpoint)
    export_onnx(model, out_dir / "model.onnx")
    seconds = time.perf_counter() - start
    metrics: dict[str, Any] = {"synthetic_held_out": corner_errors(model, crops[held], offsets[held])}
    if real_root() is not None:
        metrics["real_boxes"] = corner_errors(model, *real_boxes())
    card = {
        "model": "model.onnx",
        "task": "where are the tile's four top-face corners in this box's crop? (8 offsets, box lengths)",
        "input": (
            f"(n, 3, {CROP_SHAPE[0]}, {CROP_SHAPE[1]}) float 0-1, BGR, the box rectified with a wide margin "
            f"(vision/detect/refine.py; long side {LONG_PX} px)"
        ),
        "recipe": asdict(recipe),
        "data": (
            f"{len(crops)} boxes from {recipe.scenes} synthetic hand scenes (seeds {recipe.seed * 100_000}-"
            f"{recipe.seed * 100_000 + recipe.scenes - 1}, generator as of training): the bundled detector's boxes "
            f"(confidence >= {PROPOSAL_CONFIDENCE}), loosened and overrun true tiles, tiles cut by the frame as found"
        ),
        "boxes_from": boxes_from,
        "training_seconds": round(seconds),
        "metrics": metrics,
        "real_photos_used": "for measuring only (the detector's boxes on ../shared/real), never for training",
    }
    return smallnet.write_card(out_dir, card, recipe.start_from)
