"""Writing synthetic sets to disk, and exporting labelled sets for training.

A set is a folder of ``NNNNN.jpg`` images, each with a ``NNNNN.jpg.gt.json`` label
beside it (the schema of ../shared/real, extended), a ``manifest.json`` that says
how to make it again, and ``preview/contact_sheet.jpg`` with the labels drawn on (in a folder of its
own, so that a command given the set's folder, ``hubcam score DIR`` say, meets only the set's photos).
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from datasets.labels import FACE_DOWN, FACE_UP, STANDING, LabelledImage
from datasets.real import read_image
from datasets.synth.scene import FULL, SceneOptions, make_scene, render
from vision.draw import GREEN, RED, contact_sheet, draw_tile, thickness_for
from vision.read.halves import rectify
from vision.sampling import halved_towards

CONTACT_SHEET = Path("preview") / "contact_sheet.jpg"
"""Where in a set's folder its contact sheet goes."""

GENERATOR_VERSION = 14
"""Bump when a change to the renderer changes what a seed draws."""

OBB_CLASSES = {FACE_UP: 0, FACE_DOWN: 1, STANDING: 2}
MARKER_CLASS, HUB_CLASS = 3, 4
OBB_NAMES = ["tile", "tile_face_down", "tile_standing", "marker", "hub"]
"""The table detector's classes; the hand detector (trained before markers and hubs were labelled)
knows the first three."""


def image_seed(set_seed: int, index: int) -> int:
    """Each image's own seed: sets with different seeds share no scenes."""
    return set_seed * 1_000_003 + index


def _render_one(job: tuple[str, int, int, tuple[int, int], str, SceneOptions]) -> str:
    kind, seed, index, size_px, out_dir, options = job
    image, label = render(make_scene(kind, image_seed(seed, index), options), size_px, options)
    name = f"{index:05d}.jpg"
    cv2.imwrite(str(Path(out_dir) / name), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    label = {"image": name, **label}
    (Path(out_dir) / f"{name}.gt.json").write_text(json.dumps(label) + "\n")
    return name


def write_set(
    kind: str,
    count: int,
    seed: int,
    out_dir: Path,
    size_px: tuple[int, int] = (1280, 960),
    workers: int = 2,
    progress: bool = True,
    options: SceneOptions = FULL,
) -> list[str]:
    """Render ``count`` scenes of ``kind`` into ``out_dir``; images already there are kept (resumable).

    ``options`` other than the full renderer (for measuring what a choice is worth) are
    recorded in the manifest."""
    if kind not in ("hand", "table"):
        raise ValueError(f"invalid kind: {kind!r} (expected hand or table)")
    if count < 1:
        raise ValueError(f"invalid count: {count} (expected at least 1)")
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "kind": kind, "count": count, "seed": seed, "size_px": list(size_px), "generator": GENERATOR_VERSION,
    }  # fmt: skip
    if options != FULL:
        manifest["options"] = dataclasses.asdict(options)
    manifest_path = out_dir / "manifest.json"
    manifest = json.loads(json.dumps(manifest))  # as it reads back: the options' tuples become lists
    if manifest_path.exists() and recorded_manifest(manifest_path) != manifest:
        raise ValueError(f"{out_dir} holds a different set ({manifest_path}); choose another folder")
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    todo = [
        (kind, seed, index, size_px, str(out_dir), options)
        for index in range(count)
        if not (out_dir / f"{index:05d}.jpg.gt.json").exists()  # the label is written last: its presence means done
    ]
    names = [f"{index:05d}.jpg" for index in range(count)]
    run_jobs(_render_one, todo, workers, tqdm(total=len(todo), desc=f"rendering {kind} scenes", unit="image",
                                              disable=not progress))  # fmt: skip
    write_contact_sheet(out_dir, names[:16])
    return names


def run_jobs(render: Callable[[Any], Any], todo: list[Any], workers: int, bar: tqdm) -> None:
    """``render`` each job of ``todo``, in ``workers`` spawned processes where more than one, ticking ``bar``."""
    if workers > 1 and len(todo) > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for _ in pool.imap_unordered(render, todo):
                bar.update()
    else:
        for job in todo:
            render(job)
            bar.update()
    bar.close()


def write_contact_sheet(folder: Path, names: Sequence[str]) -> None:
    """The first images of a set with their labels drawn on: green counted tiles, red the others."""
    images, captions = [], []
    for name in names:
        image = cv2.imread(str(folder / name))
        label = json.loads((folder / f"{name}.gt.json").read_text())
        thickness = thickness_for(image)
        for tile in label["tiles"]:
            counted = tile.get("pose", FACE_UP) == FACE_UP
            text = f"{tile['pips'][0]}-{tile['pips'][1]}" if counted else ""
            draw_tile(image, np.array(tile["corners"]), text, GREEN if counted else RED, thickness)
        images.append(image)
        captions.append(f"{name} {len(label['tiles'])} tiles, total {label['total_pips']}")
    (folder / CONTACT_SHEET).parent.mkdir(exist_ok=True)
    cv2.imwrite(str(folder / CONTACT_SHEET), contact_sheet(images, captions), [cv2.IMWRITE_JPEG_QUALITY, 85])


def export_yolo_obb(
    labels: Sequence[LabelledImage], out_dir: Path, val_share: float = 0.1, halved_towards_px: int | None = None
) -> Path:
    """An Ultralytics OBB dataset: images and ``class x1 y1 ... x4 y4`` (normalised) labels, and data.yaml.

    Every k-th image goes to validation (k = 1 / val_share), so the split is fixed and never empty;
    with ``val_share`` 0 the training images also serve as validation. Whatever an earlier export
    left in ``out_dir`` is removed first: a model must train on exactly the sets its card names.
    The images are linked, or, given ``halved_towards_px``, written (PNG) averaged down by halves
    towards that size (``vision.sampling.halved_towards``), so that a detector learns them as the
    pipeline shows it photos when its card says ``halved_view`` (Ultralytics shrinks the rest of the
    way bilinearly, as the pipeline does).
    """
    for folder in ("images", "labels"):  # links and label files made from the sets, nothing else
        shutil.rmtree(out_dir / folder, ignore_errors=True)
    for split in ("train", "val"):
        (out_dir / "images" / split).mkdir(parents=True, exist_ok=True)
        (out_dir / "labels" / split).mkdir(parents=True, exist_ok=True)
    period = max(2, round(1 / val_share)) if val_share > 0 else 0
    for index, label in enumerate(tqdm(labels, desc="exporting OBB", unit="image")):
        split = "val" if period and index % period == period - 1 else "train"
        stem = f"{label.source}_{label.path.stem}".replace("/", "_")
        suffix = label.path.suffix.lower() if halved_towards_px is None else ".png"  # written: lossless
        target = out_dir / "images" / split / f"{stem}{suffix}"
        if not target.exists():  # the same image named twice: once is enough
            if halved_towards_px is None:
                target.symlink_to(label.path.resolve())
            else:
                cv2.imwrite(str(target), halved_towards(read_image(label.path), halved_towards_px)[0])
        boxes = [(OBB_CLASSES[tile.pose], tile.corners) for tile in label.tiles]
        boxes += [(MARKER_CLASS, np.array(marker["corners"])) for marker in label.extra.get("markers", [])]
        hub = label.extra.get("hub")
        if hub and "corners" in hub:
            boxes.append((HUB_CLASS, np.array(hub["corners"])))
        lines = []
        for kind, corners in boxes:
            points = np.clip(corners / np.array([label.width, label.height], np.float32), 0.0, 1.0)
            lines.append(" ".join([str(kind), *(f"{value:.6f}" for value in points.reshape(-1))]))
        (out_dir / "labels" / split / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    data = out_dir / "data.yaml"
    names = "\n".join(f"  {index}: {name}" for index, name in enumerate(OBB_NAMES))
    val = "images/val" if period else "images/train"
    data.write_text(f"path: {out_dir.resolve()}\ntrain: images/train\nval: {val}\nnames:\n{names}\n")
    return data


def tile_crops(
    image_bgr: np.ndarray, label: LabelledImage, half_px: int = 64
) -> Iterator[tuple[np.ndarray, tuple[int, int]]]:
    """Each counted tile rectified to ``(half_px, 2 * half_px)``, pips[0] half on the left."""
    for tile in label.tiles:
        if tile.counted and tile.pips is not None:
            yield rectify(image_bgr, tile.corners, half_px), tile.pips


def export_crops(labels: Sequence[LabelledImage], out_dir: Path, half_px: int = 64) -> Path:
    """Rectified tile crops and half crops with their pip counts, for the pip reader (CSV indexes)."""
    tiles_dir, halves_dir = out_dir / "tiles", out_dir / "halves"
    tiles_dir.mkdir(parents=True, exist_ok=True)
    halves_dir.mkdir(parents=True, exist_ok=True)
    tile_rows, half_rows = ["file,source,pips_a,pips_b"], ["file,source,pips"]
    for label in tqdm(labels, desc="exporting crops", unit="image"):
        image = cv2.imread(str(label.path))
        if image is None:
            continue
        for number, (crop, pips) in enumerate(tile_crops(image, label, half_px)):
            stem = f"{label.source}_{label.path.stem}_{number:03d}".replace("/", "_")
            cv2.imwrite(str(tiles_dir / f"{stem}.png"), crop)
            tile_rows.append(f"tiles/{stem}.png,{label.name},{pips[0]},{pips[1]}")
            for half, count in enumerate(pips):
                part = crop[:, :half_px] if half == 0 else cv2.rotate(crop[:, half_px:], cv2.ROTATE_180)
                cv2.imwrite(str(halves_dir / f"{stem}_{half}.png"), part)
                half_rows.append(f"halves/{stem}_{half}.png,{label.name},{count}")
    (out_dir / "tiles.csv").write_text("\n".join(tile_rows) + "\n")
    (out_dir / "halves.csv").write_text("\n".join(half_rows) + "\n")
    return out_dir


def recorded_manifest(path: Path) -> dict[str, Any]:
    """A set's manifest as written, its options completed with the defaults of any added since
    (a set drawn before an option existed was drawn as its default draws)."""
    manifest: dict[str, Any] = json.loads(path.read_text())
    if "options" in manifest:
        defaults = json.loads(json.dumps(dataclasses.asdict(FULL)))
        manifest["options"] = {**defaults, **manifest["options"]}
    return manifest


def manifest_of(folder: Path) -> dict[str, Any] | None:
    path = folder / "manifest.json"
    return json.loads(path.read_text()) if path.exists() else None
