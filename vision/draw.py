"""Drawing labels and predictions on images (always on a copy), and contact sheets."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

GREEN, MAGENTA, RED, WHITE, BLACK = (60, 200, 60), (200, 60, 220), (40, 40, 230), (255, 255, 255), (0, 0, 0)


def draw_tile(
    image_bgr: np.ndarray, corners: np.ndarray, text: str, colour: tuple[int, int, int], thickness: int
) -> None:
    """A tile's outline, a dot on its corners[0] (the pips[0] end), and its reading."""
    points = np.round(corners).astype(np.int32)
    cv2.polylines(image_bgr, [points], True, colour, thickness, cv2.LINE_AA)
    cv2.circle(image_bgr, tuple(int(v) for v in points[:2].mean(axis=0)), thickness * 2, colour, -1)
    if text:
        label_text(image_bgr, text, corners.mean(axis=0), colour, thickness)


def label_text(image_bgr: np.ndarray, text: str, at: np.ndarray, colour: tuple[int, int, int], thickness: int) -> None:
    scale = thickness * 0.4
    (width, height), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    x, y = int(at[0] - width / 2), int(at[1] + height / 2)
    cv2.putText(image_bgr, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, BLACK, thickness + 2, cv2.LINE_AA)
    cv2.putText(image_bgr, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA)


def banner(image_bgr: np.ndarray, text: str, thickness: int) -> None:
    """``text`` in white on a black strip in the photo's top left corner (what a photo adds up to)."""
    scale = thickness * 0.5
    (width, height), baseline = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    pad = 4 * thickness
    cv2.rectangle(image_bgr, (0, 0), (width + 2 * pad, height + baseline + 2 * pad), BLACK, -1)
    cv2.putText(image_bgr, text, (pad, pad + height), cv2.FONT_HERSHEY_SIMPLEX, scale, WHITE, thickness, cv2.LINE_AA)


def thickness_for(image_bgr: np.ndarray) -> int:
    return max(1, round(max(image_bgr.shape[:2]) / 500))


def contact_sheet(
    images: Sequence[np.ndarray], captions: Sequence[str], cell_px: int = 400, columns: int = 4
) -> np.ndarray:
    """Images shrunk into a grid of ``cell_px`` squares, each with a caption."""
    rows = max(1, -(-len(images) // columns))
    sheet = np.full((rows * (cell_px + 24), columns * cell_px, 3), 32, np.uint8)
    for index, (image, caption) in enumerate(zip(images, captions, strict=True)):
        row, column = divmod(index, columns)
        scale = cell_px / max(image.shape[:2])
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        top, left = row * (cell_px + 24), column * cell_px
        sheet[top : top + small.shape[0], left : left + small.shape[1]] = small
        cv2.putText(sheet, caption[:60], (left + 4, top + cell_px + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.45, WHITE, 1)
    return sheet


TRAIN_COLOURS = ((230, 160, 40), (60, 200, 230), (200, 60, 220), (60, 200, 60), (40, 120, 250), (250, 90, 160))


def draw_layout(image_bgr: np.ndarray, centres: np.ndarray, hub: tuple[tuple[float, float], float] | None,
                trains: Sequence[Sequence[int]], engine: int | None, thickness: int) -> None:  # fmt: skip
    """A table's hub (a circle), and each train as a line from the engine through its tiles' centres
    (``centres``: ``(n, 2)`` of every tile), numbered at its open end."""
    if hub is not None:
        (x, y), radius = hub
        cv2.circle(image_bgr, (int(x), int(y)), int(radius), WHITE, thickness, cv2.LINE_AA)
    for number, train in enumerate(trains):
        colour = TRAIN_COLOURS[number % len(TRAIN_COLOURS)]
        path = ([] if engine is None else [centres[engine]]) + [centres[tile] for tile in train]
        points = np.round(np.array(path)).astype(np.int32)
        cv2.polylines(image_bgr, [points], False, colour, thickness * 2, cv2.LINE_AA)
        label_text(image_bgr, str(number + 1), points[-1].astype(float), colour, thickness)


def draw_markers(
    image_bgr: np.ndarray, corners: Sequence[np.ndarray], trains: Sequence[int | None], thickness: int
) -> None:
    """Train markers as boxes in their train's colour (``draw_layout``'s), white where they mark none."""
    for quad, train in zip(corners, trains, strict=True):
        colour = WHITE if train is None else TRAIN_COLOURS[train % len(TRAIN_COLOURS)]
        cv2.polylines(image_bgr, [np.round(quad).astype(np.int32)], True, colour, thickness, cv2.LINE_AA)
        label_text(image_bgr, "M" if train is None else f"M{train + 1}", np.max(quad, axis=0), colour, thickness)
