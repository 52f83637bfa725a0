"""The tile detector at run time: an Ultralytics OBB model exported to ONNX, run by onnxruntime.

Pre- and post-processing follow Ultralytics exactly (letterbox to a square padded with
grey 114, RGB scaled to 0-1; output ``(1, 4 + classes + 1, anchors)`` holding centre,
size, class scores and angle in the letterboxed frame), so the exported model finds
what the trained one found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import short_edge_first, xywhr_to_corners
from vision.onnx_session import cpu_session, model_card
from vision.sampling import halved_towards


@dataclass(frozen=True)
class Proposals:
    """Every box the looks proposed, before suppression: where its centre lies and how surely it is of
    each class (what the boxes kept were chosen from)."""

    centres: np.ndarray
    """``(m, 2)`` float32 pixels."""
    scores: np.ndarray
    """``(m, classes)`` float32."""


NO_PROPOSALS = Proposals(np.zeros((0, 2), np.float32), np.zeros((0, 1), np.float32))


@dataclass(frozen=True)
class Detections:
    corners: np.ndarray
    """``(n, 4, 2)`` float32 pixel corners; corners[0]->corners[1] a short edge."""
    scores: np.ndarray
    """``(n,)`` float32 class confidence."""
    classes: np.ndarray
    """``(n,)`` int class index (see the model card's names)."""
    proposals: Proposals = NO_PROPOSALS
    """What they were chosen from."""

    def __len__(self) -> int:
        return len(self.scores)


@dataclass(frozen=True)
class Letterbox:
    scale: float
    pad_x: float
    pad_y: float


FACE_UP_CLASS = 0
"""The detector's class of face-up tiles (``datasets.synth.dataset.OBB_CLASSES``); the next two are face-down
and standing tiles."""
TILE_CLASSES = 3
"""The first classes are a tile's poses; a table detector's later ones are other things (markers, the hub)."""
LETTERBOX_GREY = 114


@dataclass(frozen=True)
class View:
    """The photo as the detector sees it: shrunk to fit its square input, not yet padded (what the
    photo's exposure is judged on too: ``vision.exposure``)."""

    shrunk: np.ndarray
    """The photo resized, keeping its aspect ratio, to fit ``size`` x ``size``."""
    box: Letterbox
    """Where ``shrunk`` lies in the padded square."""
    size: int


def view_of(image_bgr: np.ndarray, size: int, halved: bool = False) -> View:
    """The photo resized keeping its aspect ratio to fit ``size`` x ``size``, centred (Ultralytics'
    letterbox, its padding left to ``padded_blob``); ``halved``: averaged down by halves first
    (``vision.sampling.halved_towards``), then shrunk bilinearly the rest of the way."""
    times = 1
    if halved:  # trimmed by a few pixels at most, its pixels the photo's scaled about the origin
        image_bgr, times = halved_towards(image_bgr, size)
    height, width = image_bgr.shape[:2]
    scale = min(size / height, size / width)
    new_w, new_h = round(width * scale), round(height * scale)
    shrunk = cv2.resize(image_bgr, (new_w, new_h), interpolation=cv2.INTER_LINEAR) if scale != 1 else image_bgr
    pad_x, pad_y = (size - new_w) / 2, (size - new_h) / 2
    top, left = round(pad_y - 0.1), round(pad_x - 0.1)
    return View(shrunk, Letterbox(scale / times, left, top), size)


def padded_blob(view: View) -> np.ndarray:
    """``(1, 3, size, size)`` float32 RGB scaled to 0-1, the view centred on grey 114: exactly
    ``cv2.dnn.blobFromImage(padded, 1 / 255, swapRB=True)`` of the padded square, in a third of its
    time (1 ms at 448 px, a look's largest cost after the model), without drawing the padding first."""
    blob = np.full((1, 3, view.size, view.size), LETTERBOX_GREY, np.float32)
    (height, width), top, left = view.shrunk.shape[:2], int(view.box.pad_y), int(view.box.pad_x)
    for channel, plane in enumerate(reversed(cv2.split(view.shrunk))):
        blob[0, channel, top : top + height, left : left + width] = plane
    blob *= np.float32(1 / 255)
    return blob


Look = tuple[np.ndarray, Letterbox]
"""One forward pass: the raw ``(1, 4 + nc + 1, n)`` output and the letterbox it saw the photo through."""


def decode(output: np.ndarray, box: Letterbox, conf: float = 0.25, iou: float = 0.5, max_det: int = 300) -> Detections:
    """Turn the raw ``(1, 4 + nc + 1, n)`` output into detections in the original image's pixels."""
    return decode_looks([(output, box)], conf, iou, max_det)


def decode_looks(looks: list[Look], conf: float = 0.25, iou: float = 0.5, max_det: int = 300) -> Detections:
    """Detections from one or more looks at the same photo, in its pixels: the boxes of all the
    looks are suppressed together, so a tile found in two looks is kept once, at its best."""
    predictions = np.concatenate([in_photo_pixels(sure_rows(output, conf), box) for output, box in looks])
    scores_all = predictions[:, 4:-1]
    kept = [_suppressed(predictions, first, last, conf, iou) for first, last in _class_groups(scores_all.shape[1])]
    boxes = np.concatenate([group[0] for group in kept])
    scores = np.concatenate([group[1] for group in kept])
    classes = np.concatenate([group[2] for group in kept])
    best = np.argsort(-scores, kind="stable")[:max_det]
    corners = short_edge_first(xywhr_to_corners(boxes[best]))
    proposals = Proposals(predictions[:, :2], scores_all)
    return Detections(corners.astype(np.float32), scores[best].astype(np.float32), classes[best].astype(int), proposals)


def _class_groups(classes: int) -> list[tuple[int, int]]:
    """The tile's poses, one box each, and (a table detector's) other things, each its own: one place
    can hold both, as the engine lies on the hub, and its rows score both."""
    return [(0, min(classes, TILE_CLASSES))] + [(kind, kind + 1) for kind in range(TILE_CLASSES, classes)]


def _suppressed(
    predictions: np.ndarray, first: int, last: int, conf: float, iou: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``(x, y, w, h, angle)`` boxes, scores and classes of the rows scoring at least ``conf`` for a
    class in ``first:last``, each as its best class there, suppressed among themselves (best first)."""
    group = predictions[:, 4 + first : 4 + last]
    classes = first + group.argmax(axis=1)
    scores = group.max(axis=1, initial=0.0)
    sure = scores >= conf
    boxes, scores, classes = predictions[sure][:, [0, 1, 2, 3, -1]], scores[sure], classes[sure]
    if not len(boxes):
        return boxes, scores, classes
    in_degrees = np.concatenate([boxes[:, :4], np.degrees(boxes[:, 4:])], axis=1).tolist()
    rotated = [((x, y), (w, h), angle) for x, y, w, h, angle in in_degrees]
    chosen = np.array(cv2.dnn.NMSBoxesRotated(rotated, scores.tolist(), conf, iou), dtype=int).reshape(-1)
    chosen = chosen[np.argsort(-scores[chosen], kind="stable")]
    return boxes[chosen], scores[chosen], classes[chosen]


def only_sure_and_large(look: Look, least_score: float, least_long_side_px: float) -> Look:
    """The look with only its boxes scoring at least ``least_score`` (for any class) whose longer
    side is at least ``least_long_side_px`` in the photo."""
    output, box = look
    longer = np.maximum(output[0, 2], output[0, 3]) / box.scale
    sure = output[0, 4:-1].max(axis=0) >= least_score
    return output[:, :, sure & (longer >= least_long_side_px)], box


def sure_rows(output: np.ndarray, conf: float) -> np.ndarray:
    """The ``(n, 4 + nc + 1)`` rows of a raw output scoring at least ``conf`` for some class: only
    these are mapped to the photo (a look has thousands of anchors, a few hundred above 0.04)."""
    rows = output[0].T
    return rows[rows[:, 4:-1].max(axis=1) >= conf]


def in_photo_pixels(predictions: np.ndarray, box: Letterbox) -> np.ndarray:
    """``(n, 4 + nc + 1)`` rows with their centre and size taken from the letterbox to the photo."""
    mapped = predictions.copy()
    mapped[:, :2] = (predictions[:, :2] - np.array([box.pad_x, box.pad_y], np.float32)) / box.scale
    mapped[:, 2:4] = predictions[:, 2:4] / box.scale
    return mapped


class OBBDetector:
    """Load once, call per image; ``card.json`` beside the model gives the class names.

    The image size: a model exported at a fixed size always runs at it; one exported with a
    dynamic size runs at ``imgsz`` when given, else at the size it was trained at (the card's).
    """

    def __init__(
        self,
        model_path: Path,
        imgsz: int | None = None,
        conf: float = 0.25,
        iou: float = 0.5,
        halved: bool | None = None,
    ) -> None:
        self.session = cpu_session(model_path, "detector")
        card = model_card(model_path)
        self.names: list[str] = card.get("names", ["tile"])
        self.input_name = self.session.get_inputs()[0].name
        fixed = self.session.get_inputs()[0].shape[2]  # an int for a fixed-size export, else a name
        self.dynamic = not isinstance(fixed, int)
        if not self.dynamic:
            self.imgsz = int(fixed)
        else:
            self.imgsz = imgsz or int(card.get("recipe", {}).get("imgsz", 640))
        self.conf, self.iou = conf, iou
        self.halved = bool(card.get("recipe", {}).get("halved_view", False)) if halved is None else halved
        """Whether the photo is averaged down by halves before it is shrunk to the input (``view_of``):
        as the model learnt its images (its card's recipe says; older cards: not)."""

    def __call__(self, image_bgr: np.ndarray) -> Detections:
        return self.decode([self.look(image_bgr)])

    def view(self, image_bgr: np.ndarray, imgsz: int | None = None) -> View:
        """The photo as a look at the detector's size, or at ``imgsz`` (a model exported with a
        dynamic size only), sees it."""
        if imgsz is not None and not self.dynamic and imgsz != self.imgsz:
            raise ValueError(f"this detector was exported at a fixed {self.imgsz} px and cannot look at {imgsz} px")
        return view_of(image_bgr, imgsz or self.imgsz, self.halved)

    def look(self, image_bgr: np.ndarray, imgsz: int | None = None, view: View | None = None) -> Look:
        """One forward pass over the photo at the detector's size, or at ``imgsz`` (see ``view``),
        where its tiles are seen as many pixels smaller; ``view``: the photo's view, made already."""
        view = view or self.view(image_bgr, imgsz)
        (output,) = self.session.run(None, {self.input_name: padded_blob(view)})
        return output, view.box

    def look_within(self, image_bgr: np.ndarray, region: tuple[int, int, int, int]) -> Look:
        """One forward pass over the part ``(x0, y0, x1, y1)`` of the photo, its tiles seen larger; the
        look's letterbox takes its boxes to the whole photo's pixels, so it decodes with other looks."""
        x0, y0, x1, y1 = region
        output, box = self.look(image_bgr[y0:y1, x0:x1])
        return output, Letterbox(box.scale, box.pad_x - x0 * box.scale, box.pad_y - y0 * box.scale)

    def decode(self, looks: list[Look]) -> Detections:
        return decode_looks(looks, self.conf, self.iou)
