"""Training the tile verifier (torch, the train extra) and exporting it to ONNX.

Boxes come from synthetic hands the detector never trained on, of three kinds:

- what the bundled detector proposes there at a low confidence (its own mistakes are
  the ones that matter);
- boxes a detector makes on real photos and rarely on synthetic ones: over the near
  halves of two touching tiles, over one half, shifted along a tile, turned across it,
  stretched over two tiles end to end, beside a tile where the next one would lie (a hole
  in a grid of tiles looked like a dark tile to the first verifier), on bare table;
- the true tiles with their corners a little off.

Each box is labelled by what it covers, never by how it was made: a tile when its IoU
with a face-up tile is at least POSITIVE_IOU, not a tile below NEGATIVE_IOU, left out
between. Crops are cut with ``vision.detect.verify`` exactly as at run time.
"""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from datasets.labels import FACE_DOWN, FACE_UP, STANDING
from datasets.synth.redrawn import Label
from datasets.synth.scene import FULL, SceneOptions, make_scene, render
from models.train import smallnet
from models.train.counter import loosen
from models.train.smallnet import (
    Checkpoint,
    fit,
    flipped_photometric,
    held_out,
    images_only,
    predict,
    small_cnn,
)
from vision.detect.verify import CROP_SHAPE, crop_boxes
from vision.geometry import halves_of, quad_iou, short_edge_first

Cropper = Callable[[np.ndarray, list[np.ndarray]], np.ndarray]
"""How boxes are cut from a photo for learning: ``(image, boxes) -> (n, ...)`` uint8 crops."""
POSITIVE_IOU, NEGATIVE_IOU = 0.7, 0.4
TRAINING_PROPOSAL_CONFIDENCE = 0.05
"""Low, so that the detector's doubtful boxes are among the proposals too (the bundled verifier
learned from these; the pipeline proposes down to vision.pipeline.PROPOSAL_CONFIDENCE, 0.04)."""
SCENE_SIZE = (1280, 960)
LOOSENED_COPIES = 2
"""Copies of each true tile with its corners a little off: a detector's boxes on real photos are
looser than on the synthetic hands it trained on, and a verifier that saw only tight boxes
turned real tiles away (a first try with tight boxes, brightness jitter only and half the scenes:
29 of 253 real tiles below 0.5)."""


@dataclass(frozen=True)
class VerifierRecipe:
    scenes: int = 1600
    epochs: int = 8
    seed: int = 5
    """Scenes are drawn from seeds seed * 100_000 + index (no hubcam synth set shares them)."""
    batch: int = 128
    max_lr: float = 3e-3
    widths: tuple[int, ...] = (16, 32, 48, 64)
    """The network's channels (models.train.smallnet.small_cnn): it runs on every proposal of every photo."""
    standing_scenes: int = 0
    """Extra scenes, each with up to STANDING_SCENE's standing tiles among the face-up ones and the
    camera tilted up to its steeper bound, so that boxes over standing tiles' faces, seen nearly
    square-on, are among what is not a tile: the detector's proposals there and boxes round each
    standing tile (seeds from seed * 100_000 + 50_000)."""
    bright_scenes: int = 0
    """Extra scenes whose sets are all bright (saturated bodies, pips of one colour) with letters
    printed on their backs (``BRIGHT_SCENE``; seeds from seed * 100_000 + 70_000): a verifier taught
    only ivory, white, cream and dark tiles has never seen a pink one."""
    printed_backs: float | None = None
    """The share of sets with printed backs in the ``scenes`` (None: the generator's
    own, ``datasets.synth.styles.PRINTED_BACKS``). The bundled verifier learnt generator 11's backs (letters
    along the tile over dots); one taught generator 12's too (letters across it over a bar of stars,
    like a blank tile's divider in a 64 x 40 crop) turned away real blank tiles (benchmarks/HISTORY.md); 0
    teaches none."""
    face_down: bool = False
    """Boxes round every face-down tile (as labelled, and loosened) are among what is not a tile:
    a printed back's letters and dots pass for a face to a detector that has not learnt them."""
    start_from: str = ""
    """A verifier's ONNX export to go on training from (``models.train.smallnet.from_onnx``), not from nothing."""
    proposals_from: str = ""
    """The detector whose proposals are learnt from (an ONNX export); empty: the bundled one."""


STANDING_SCENE = dataclasses.replace(FULL, standing_share=1.0, most_standing=6, max_tilt_deg=60.0)
"""The extra scenes' options (``VerifierRecipe.standing_scenes``): real photos taken from low down
show standing tiles' faces as plainly as lying ones' (karthikVenkataramana's robot camera:
benchmarks/box_labelled.py)."""
BRIGHT_SCENE = dataclasses.replace(FULL, bright_sets=1.0, printed_backs=1.0)
"""The options of ``VerifierRecipe.bright_scenes``."""


def rectangle(centre: np.ndarray, along: np.ndarray, length: float, width: float) -> np.ndarray:
    """The ``(4, 2)`` corners of a rectangle, short edge first."""
    along = along / max(float(np.linalg.norm(along)), 1e-6)
    across = np.array([-along[1], along[0]], np.float32)
    a, c = along * length / 2, across * width / 2
    return short_edge_first(np.array([centre - a - c, centre - a + c, centre + a + c, centre + a - c], np.float32))


def hard_boxes(tiles: list[np.ndarray], rng: np.random.Generator, width: int, height: int) -> list[np.ndarray]:
    """Boxes that cover parts of tiles the way wrong detections do on real photos."""
    boxes: list[np.ndarray] = []
    halves = [(index, half) for index, quad in enumerate(tiles) for half in halves_of(quad)]
    for quad in tiles:
        short = float(np.linalg.norm(quad[1] - quad[0]))
        along = quad[2] - quad[1]
        length = float(np.linalg.norm(along))
        centre = quad.mean(axis=0)
        shift = along * rng.choice([-1, 1]) * rng.uniform(0.3, 0.6)
        boxes.append(rectangle(centre + shift, along, length, short))  # shifted along the tile
        boxes.append(rectangle(centre, np.array([-along[1], along[0]]), length, short))  # turned across
        boxes.append(rectangle(centre, along, length * rng.uniform(1.7, 2.2), short))  # two tiles end to end
        half = halves_of(quad)[int(rng.integers(2))]
        boxes.append(rectangle(half.mean(axis=0), along, short * rng.uniform(0.9, 1.3), short))
        across = (quad[1] - quad[0]) / max(short, 1e-6)
        for step in (along, -along, across * short, -across * short):  # where a neighbour would lie
            boxes.append(rectangle(centre + step, along, length, short))
    for i, (tile_a, half_a) in enumerate(halves):  # straddles: near halves of two tiles
        for tile_b, half_b in halves[i + 1 :]:
            if tile_a == tile_b:
                continue
            a, b = half_a.mean(axis=0), half_b.mean(axis=0)
            short = float(np.linalg.norm(half_a[1] - half_a[0]))
            if 0.6 * short < np.linalg.norm(b - a) < 1.4 * short:
                boxes.append(rectangle((a + b) / 2, b - a, 2 * short, short))
    for _ in range(3):  # bare table or whatever lies there, at a tile's size
        if tiles:
            short = float(np.linalg.norm(tiles[0][1] - tiles[0][0]))
            centre = rng.uniform([0, 0], [width, height]).astype(np.float32)
            boxes.append(rectangle(centre, rng.normal(size=2).astype(np.float32), 2 * short, short))
    return boxes


_detectors: dict[tuple[float, str], Any] = {}


def found_face_up(
    image: np.ndarray, confidence: float = TRAINING_PROPOSAL_CONFIDENCE, detector: str = ""
) -> list[np.ndarray]:
    """The face-up boxes of ``detector`` (an ONNX export; empty: the bundled one) down to
    ``confidence``, as the pipeline looks (loaded once per worker process): what the small models
    after it learn from."""
    from models import DETECTOR
    from vision.detect.onnx_obb import FACE_UP_CLASS, OBBDetector
    from vision.pipeline import DETECTOR_SIZE, PROPOSAL_NMS_IOU

    key = (confidence, detector)
    if key not in _detectors:
        path = Path(detector) if detector else DETECTOR
        _detectors[key] = OBBDetector(path, DETECTOR_SIZE, conf=confidence, iou=PROPOSAL_NMS_IOU)
    found = _detectors[key](image)
    return list(found.corners[found.classes == FACE_UP_CLASS])


def label_boxes(boxes: list[np.ndarray], tiles: list[np.ndarray]) -> tuple[list[np.ndarray], list[int]]:
    """The boxes clearly one tile (1) or clearly not (0), and their labels."""
    kept, labels = [], []
    for box in boxes:
        best = max((quad_iou(box, tile) for tile in tiles), default=0.0)
        if best >= POSITIVE_IOU or best < NEGATIVE_IOU:
            kept.append(box)
            labels.append(int(best >= POSITIVE_IOU))
    return kept, labels


def scene_boxes(
    seed: int,
    options: SceneOptions = FULL,
    standing: bool = False,
    face_down: bool = False,
    detector: str = "",
    crop: Cropper = crop_boxes,
) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels (1: one tile) from one rendered hand; ``standing``, ``face_down``: boxes round
    the standing or face-down tiles too (as labelled, and loosened), which are never one face-up
    tile; ``detector``: whose proposals (``found_face_up``); ``crop``: how the boxes are cut (default:
    as the verifier's are)."""
    rng = np.random.default_rng(seed)
    image, label = render(make_scene("hand", seed, options), SCENE_SIZE, options)
    return labelled_boxes(image, label, rng, standing, face_down, detector, crop)


def labelled_boxes(
    image: np.ndarray,
    label: Label,
    rng: np.random.Generator,
    standing: bool,
    face_down: bool,
    detector: str,
    crop: Cropper = crop_boxes,
) -> tuple[np.ndarray, np.ndarray]:
    """``scene_boxes``' crops and labels from one image and its label."""
    tiles = [np.array(tile["corners"], np.float32) for tile in label["tiles"] if tile["pose"] == FACE_UP]
    loosened = [loosen(quad, rng) for quad in tiles for _ in range(LOOSENED_COPIES)]
    size = (label["width"], label["height"])
    boxes = found_face_up(image, detector=detector) + hard_boxes(tiles, rng, *size) + loosened
    others = {STANDING} if standing else set()
    others |= {FACE_DOWN} if face_down else set()
    for pose in sorted(others):  # in a fixed order, so that the random draws are the same every run
        lying = [np.array(tile["corners"], np.float32) for tile in label["tiles"] if tile["pose"] == pose]
        boxes += lying + [loosen(quad, rng) for quad in lying for _ in range(LOOSENED_COPIES)]
    kept, labels = label_boxes(boxes, tiles)
    return crop(image, kept), np.array(labels, np.int64)


def synthetic_boxes(recipe: VerifierRecipe, crop: Cropper = crop_boxes) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels from the recipe's ``scenes`` hands, ``standing_scenes`` (``STANDING_SCENE``),
    and ``bright_scenes`` (``BRIGHT_SCENE``), with its
    ``face_down`` boxes and its detector's proposals, cut by ``crop`` (a module-level function: the
    scenes are rendered in other processes)."""
    shared = {"face_down": recipe.face_down, "detector": recipe.proposals_from, "crop": crop}
    standing = functools.partial(scene_boxes, options=STANDING_SCENE, standing=True, **shared)
    usual = FULL
    if recipe.printed_backs is not None:
        usual = dataclasses.replace(usual, printed_backs=recipe.printed_backs)
    kinds = (
        (functools.partial(scene_boxes, options=usual, **shared), 0, recipe.scenes),
        (standing, 50_000, recipe.standing_scenes),
        (functools.partial(scene_boxes, options=BRIGHT_SCENE, **shared), 70_000, recipe.bright_scenes),
    )
    parts = []
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        for make, offset, count in kinds:
            drawn = [recipe.seed * 100_000 + offset + index for index in range(count)]
            made = pool.imap(make, drawn, chunksize=8)
            parts += list(tqdm(made, total=len(drawn), desc="rendering", unit="scene", disable=not drawn))
    return np.concatenate([crops for crops, _ in parts]), np.concatenate([labels for _, labels in parts])


def build_model(widths: tuple[int, ...] = VerifierRecipe.widths) -> Any:
    return small_cnn(widths, 1)


def train(crops: np.ndarray, labels: np.ndarray, recipe: VerifierRecipe, checkpoint: Checkpoint | None = None) -> Any:
    """Train with flips both ways (a tile is a tile however it is turned) and
    ``models.train.smallnet.photometric``."""
    import torch
    from torch import nn

    def loss(logits: Any, targets: Any) -> Any:
        return nn.functional.binary_cross_entropy_with_logits(logits.reshape(-1), targets)

    build = functools.partial(build_model, recipe.widths)
    if recipe.start_from:
        build = smallnet.continued_from(Path(recipe.start_from), build, crops, recipe.seed)
    return fit(
        build, crops, torch.from_numpy(labels).float(), loss,
        images_only(flipped_photometric),
        recipe, checkpoint,
    )  # fmt: skip


def export_onnx(model: Any, path: Path) -> Path:
    """ONNX with input ``crops`` ``(n, 3, 40, 64)`` float 0-1 BGR and output ``logits`` ``(n, 1)``."""
    return smallnet.export_onnx(model, path, "crops", *CROP_SHAPE)


def accuracy(model: Any, crops: np.ndarray, labels: np.ndarray) -> dict[str, Any]:
    """Share right at probability 0.5, for tiles and for the rest."""
    return acceptance(predict(model, crops).reshape(-1) > 0, labels)


def acceptance(said: np.ndarray, labels: np.ndarray) -> dict[str, Any]:
    """The share of tiles (label 1) ``said`` (bool: one tile) accepts and of the rest it rejects."""
    tiles, rest = labels == 1, labels == 0
    return {
        "tiles_accepted": round(float(said[tiles].mean()), 4) if tiles.any() else None,
        "others_rejected": round(float((~said[rest]).mean()), 4) if rest.any() else None,
        "tiles": int(tiles.sum()),
        "others": int(rest.sum()),
    }


def real_boxes(crop: Cropper = crop_boxes) -> tuple[np.ndarray, np.ndarray]:
    """The detector's proposals on the labelled real photos, labelled by IoU, cut by ``crop`` (default: as
    the verifier's are; for measuring only)."""
    from datasets.real import iter_images, pip_labelled

    crops, labels = [], []
    for label, image in iter_images(pip_labelled()):
        tiles = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
        kept, said = label_boxes(found_face_up(image), tiles)
        crops.append(crop(image, kept))
        labels += said
    return np.concatenate(crops), np.array(labels, np.int64)


def train_and_export(out_dir: Path, recipe: VerifierRecipe, resume: bool = False) -> dict[str, Any]:
    """Render, propose, train, export, and write the card; ``resume``: go on from the epochs an
    unfinished run saved in ``out_dir`` (``models.train.smallnet.Checkpoint``)."""
    from datasets.real import real_root
    from models import DETECTOR

    for path, what in ((recipe.start_from, "verifier to start from"), (recipe.proposals_from, "detector")):
        if path and not Path(path).is_file():
            raise FileNotFoundError(f"no {what} at {path}")
    checkpoint = Checkpoint.beside(out_dir, resume)
    start = time.perf_counter()
    crops, labels = synthetic_boxes(recipe)
    held, used = held_out(len(crops), recipe.seed)
    model = train(crops[used], labels[used], recipe, checkpoint)
    export_onnx(model, out_dir / "model.onnx")
    seconds = time.perf_counter() - start
    metrics: dict[str, Any] = {"synthetic_held_out": accuracy(model, crops[held], labels[held])}
    if real_root() is not None:
        metrics["real_proposals"] = accuracy(model, *real_boxes())
    card = {
        "model": "model.onnx",
        "task": "is this box exactly one face-up tile? (one logit)",
        "input": (
            f"(n, 3, {CROP_SHAPE[0]}, {CROP_SHAPE[1]}) float 0-1, BGR, the box rectified with a margin "
            "(vision/detect/verify.py)"
        ),
        "recipe": asdict(recipe),
        "data": (
            f"{len(crops)} boxes ({int(labels.sum())} tiles) from {recipe.scenes} synthetic hand scenes "
            f"(seeds {recipe.seed * 100_000}-{recipe.seed * 100_000 + recipe.scenes - 1}, generator as of training)"
            + (f" and {recipe.standing_scenes} with standing tiles (STANDING_SCENE)" if recipe.standing_scenes else "")
            + (f" and {recipe.bright_scenes} of bright sets (BRIGHT_SCENE)" if recipe.bright_scenes else "")
            + ": "
            "the detector's proposals, straddles, halves, shifted, turned and stretched boxes, "
            "loosened true tiles" + (", boxes round face-down tiles" if recipe.face_down else "")
        ),
        "proposals_from": (
            smallnet.described(Path(recipe.proposals_from))
            if recipe.proposals_from
            else smallnet.described(DETECTOR, "models/tile-detector/model.onnx")
        ),
        "labels": f"tile: IoU >= {POSITIVE_IOU} with a face-up tile; not: IoU < {NEGATIVE_IOU}; between: left out",
        "training_seconds": round(seconds),
        "metrics": metrics,
        "real_photos_used": "for measuring only (the detector's proposals on ../shared/real), never for training",
    }
    return smallnet.write_card(out_dir, card, recipe.start_from)
