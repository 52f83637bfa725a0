"""Loaders for the real photos in ``../shared/real`` (see its README).

Three label formats: hubcam's hand-checked ``<image>.gt.json`` files, Pascal VOC
boxes (with the pose classes of the karthikVenkataramana set), and YOLO boxes.
Pixel coordinates follow ``cv2.imread``, which applies the EXIF orientation; the
``.gt.json`` labels were made that way, and ``check_size`` catches a mismatch.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.labels import FACE_DOWN, FACE_UP, STANDING, LabelledImage, LabelledTile
from vision.photo import PHOTO_SUFFIXES

DEFAULT_ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "real"

# The karthikVenkataramana set's classes (its README): A face down, B face up, C-F standing.
VOC_POSES = {"A": FACE_DOWN, "B": FACE_UP, "C": STANDING, "D": STANDING, "E": STANDING, "F": STANDING}


class LabelError(ValueError):
    """A label file that cannot be read; the message names the file and the field."""


def real_root(root: Path | None = None) -> Path | None:
    """The real-photo folder if it exists: ``root``, else ``../shared/real`` beside the repository."""
    path = root if root is not None else DEFAULT_ROOT
    return path if path.is_dir() else None


def load_gt_json(label_path: Path) -> LabelledImage:
    """One ``<image>.gt.json`` file (schema in ../shared/real/README.md; synthetic sets add
    ``pose``, ``cut``, ``flags``, ``hub``, ``engine`` and ``trains``)."""
    try:
        data = json.loads(label_path.read_text(encoding="utf-8"))
        image = label_from_json(data, label_path.with_name(data["image"]), label_path.parent.name)
    except (OSError, ValueError, KeyError, TypeError, IndexError) as error:
        raise LabelError(f"{label_path}: cannot read label ({type(error).__name__}: {error})") from None
    stated = image.extra.get("total_pips")
    if stated is not None and stated != image.total_pips:
        raise LabelError(f"{label_path}: total_pips is {stated} but the tiles add up to {image.total_pips}")
    return image


def washed_out_halves(tile: dict[str, Any]) -> tuple[bool, bool]:
    """A label's ``hidden`` (generator 13 on), else neither half."""
    first, second = tile.get("hidden", (False, False))
    return bool(first), bool(second)


def label_from_json(data: dict[str, Any], image_path: Path, source: str) -> LabelledImage:
    """A label in the ``.gt.json`` schema as a LabelledImage (raises KeyError, ValueError on bad data)."""
    tiles = tuple(
        LabelledTile(
            corners=np.array(tile["corners"], dtype=np.float32),
            pips=(int(tile["pips"][0]), int(tile["pips"][1])),
            unreadable=bool(tile.get("unreadable", False)),
            pose=str(tile.get("pose", FACE_UP)),
            cut=bool(tile.get("cut", False)),
            hidden=washed_out_halves(tile),
        )
        for tile in data["tiles"]
    )
    extra = {
        key: data[key]
        for key in ("notes", "total_pips", "hub", "engine", "trains", "markers", "kind", "set")
        if key in data
    }
    return LabelledImage(
        path=image_path,
        width=int(data["width"]),
        height=int(data["height"]),
        tiles=tiles,
        source=source,
        chains=tuple(tuple(int(index) for index in chain) for chain in data.get("chains", [])),
        flags=tuple(data.get("flags", [])),
        extra=extra,
    )


def load_folder(folder: Path) -> list[LabelledImage]:
    """Every ``*.gt.json`` label under a folder (a synthetic set, or one set of real photos)."""
    if not folder.is_dir():
        raise LabelError(f"{folder}: no such folder")
    return [load_gt_json(path) for path in sorted(folder.rglob("*.gt.json"))]


def load_voc(xml_path: Path) -> LabelledImage:
    """A Pascal VOC file: axis-aligned boxes, with poses where the class names them."""
    try:
        root = ElementTree.parse(xml_path).getroot()
        width = int(root.findtext("size/width", "0"))
        height = int(root.findtext("size/height", "0"))
        tiles = []
        for item in root.iter("object"):
            box = item.find("bndbox")
            if box is None:
                raise ValueError("object without bndbox")
            x0, y0, x1, y1 = (float(box.findtext(name, "nan")) for name in ("xmin", "ymin", "xmax", "ymax"))
            pose = VOC_POSES.get(item.findtext("name", ""), FACE_UP)
            tiles.append(LabelledTile(corners=_box_corners(x0, y0, x1, y1), pose=pose))
    except (OSError, ElementTree.ParseError, ValueError) as error:
        raise LabelError(f"{xml_path}: cannot read VOC label ({error})") from None
    image_path = xml_path.with_name(root.findtext("filename", xml_path.stem + ".jpg"))
    return LabelledImage(image_path, width, height, tuple(tiles), _set_name(xml_path), has_pips=False)


def load_yolo(label_path: Path, image_path: Path) -> LabelledImage:
    """A YOLO label file (``class cx cy w h``, normalised); the image gives the size."""
    height, width = _image_size(image_path)
    try:
        lines = label_path.read_text().splitlines()
    except OSError as error:
        raise LabelError(f"{label_path}: cannot read YOLO label ({error})") from None
    tiles = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            _, cx, cy, w, h = (float(value) for value in line.split()[:5])
        except ValueError:
            raise LabelError(f"{label_path}, line {number}: expected 'class cx cy w h', got {line!r}") from None
        x0, y0 = (cx - w / 2) * width, (cy - h / 2) * height
        tiles.append(LabelledTile(corners=_box_corners(x0, y0, x0 + w * width, y0 + h * height)))
    return LabelledImage(image_path, width, height, tuple(tiles), _set_name(label_path), has_pips=False)


def pip_labelled(root: Path | None = None) -> list[LabelledImage]:
    """Every photo with hand-checked pips (the four ``.gt.json`` sets), sorted by name."""
    base = real_root(root)
    if base is None:
        return []
    return load_folder(base)


def box_labelled(root: Path | None = None) -> list[LabelledImage]:
    """Every photo labelled with boxes only (VOC and YOLO sets)."""
    base = real_root(root)
    if base is None:
        return []
    images = [load_voc(path) for path in sorted(base.glob("*/**/*.xml"))]
    for label_path in sorted(base.glob("*/**/labels/*.txt")):
        image_path = _yolo_image(label_path)
        if image_path is not None:
            images.append(load_yolo(label_path, image_path))
    return images


def read_image(path: Path) -> np.ndarray:
    """The image as ``cv2.imread`` returns it (BGR, EXIF orientation applied); raises on failure."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise LabelError(f"{path}: cannot read image")
    return image


def check_size(label: LabelledImage, image_bgr: np.ndarray) -> None:
    """The label's size must be the decoded image's: else EXIF orientation was handled differently."""
    height, width = image_bgr.shape[:2]
    if (width, height) != (label.width, label.height):
        raise LabelError(f"{label.path}: label says {label.width}x{label.height}, image decodes to {width}x{height}")


def iter_images(labels: list[LabelledImage]) -> Iterator[tuple[LabelledImage, np.ndarray]]:
    for label in labels:
        image = read_image(label.path)
        check_size(label, image)
        yield label, image


def _box_corners(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)


def _image_size(path: Path) -> tuple[int, int]:
    height, width = read_image(path).shape[:2]
    return height, width


def _yolo_image(label_path: Path) -> Path | None:
    images = label_path.parent.parent / "images"
    for suffix in PHOTO_SUFFIXES:
        candidate = images / (label_path.stem + suffix)
        if candidate.exists():
            return candidate
    return None


def _set_name(path: Path) -> str:
    """The folder of ../shared/real that a file lies in."""
    for parent in path.parents:
        if "__" in parent.name:
            return parent.name
    return path.parent.name
