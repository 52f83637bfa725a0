"""The box refiner: its crops, what it learns for a box, the boxes it learns from, and the bundled model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.labels import FACE_UP
from datasets.synth.scene import FULL, make_scene, render
from models import REFINER
from models.train.refiner import match_boxes
from models.train.verifier import rectangle
from vision.detect.refine import (
    CROP_SHAPE,
    LONG_PX,
    MARGIN_ALONG,
    OUTSIDE_GREY,
    BoxRefiner,
    box_in_crop,
    corners_to_offsets,
    crop_box,
    crop_boxes,
    offsets_to_corners,
    through_each,
)

TILE = np.array([[50, 120], [50, 80], [130, 80], [130, 120]], np.float32)  # corners[0..1] on the left


def corner_error(a: np.ndarray, b: np.ndarray) -> float:
    """The farthest corner of ``a`` from the nearest one of ``b``, in pixels."""
    return float(max(np.linalg.norm(b - point, axis=1).min() for point in a))


def test_a_crop_holds_the_box_with_a_margin_and_the_outside_of_the_photo_grey():
    image = np.zeros((200, 200, 3), np.uint8)
    image[80:121, 50:131] = 100
    image[80:121, 50:55] = 255  # a mark at the corners[0..1] end
    crop = crop_box(image, TILE)
    assert crop.shape == (*CROP_SHAPE, 3)
    assert crop[15:25, MARGIN_ALONG : MARGIN_ALONG + 2].mean() > 200  # the mark on the left
    assert crop[15:25, MARGIN_ALONG + LONG_PX - 6 : MARGIN_ALONG + LONG_PX - 2].mean() == pytest.approx(100, abs=5)
    assert crop[:, : MARGIN_ALONG - 2].mean() < 5  # the table beyond the box's end
    at_edge = crop_box(image, TILE - np.float32([50, 0]))  # the box at the photo's left edge
    assert at_edge[15:25, : MARGIN_ALONG - 2].mean() == pytest.approx(OUTSIDE_GREY, abs=1)
    assert crop_boxes(image, []).shape == (0, *CROP_SHAPE, 3)


def test_offsets_lead_from_a_box_to_its_tile_and_back_in_the_boxs_corner_order():
    box = rectangle(np.array([95, 100], np.float32), np.array([1, 0.2], np.float32), 100, 40)  # too long
    tile = np.roll(TILE, 1, axis=0)  # its corners in another order
    offsets = corners_to_offsets(box, tile)
    assert offsets.shape == (8,) and np.abs(offsets).max() > 0.05
    found = offsets_to_corners(box, offsets)
    assert corner_error(found, TILE) < 0.01
    # in the box's order: each corner lies nearest the box's corner it came from
    assert all(np.argmin(np.linalg.norm(box - point, axis=1)) == index for index, point in enumerate(found))
    assert np.abs(corners_to_offsets(TILE, TILE)).max() < 1e-4
    assert np.allclose(offsets_to_corners(TILE, np.zeros(8)), TILE, atol=1e-3)


def test_a_box_as_long_as_it_is_wide_stays_square_in_its_crop():
    square = np.array([[80, 120], [80, 80], [120, 80], [120, 120]], np.float32)
    placed = box_in_crop(square)
    assert placed[2, 0] - placed[1, 0] == pytest.approx(LONG_PX)
    assert placed[0, 1] - placed[1, 1] == pytest.approx(min(LONG_PX, CROP_SHAPE[0]))


def test_boxes_learn_the_tile_they_overlap_and_a_cut_tiles_box_learns_the_whole_tile():
    inside = TILE + np.float32([100, 100])
    cut = TILE - np.float32([100, 0])  # 50 px of its 80 beyond the left edge: IoU 0.375 with what shows
    shown = np.array([[0, 120], [0, 80], [30, 80], [30, 120]], np.float32)
    stray = TILE + np.float32([300, 300])
    kept, targets = match_boxes([inside + 3, shown, stray], [inside, cut], 640, 480)
    assert len(kept) == 2 and targets[0] is inside and targets[1] is cut


@pytest.mark.skipif(not REFINER.exists(), reason="no bundled box refiner")
def test_the_bundled_refiner_mends_boxes_run_past_a_tiles_end():
    from models.train.refiner import overrun

    image, label = render(make_scene("hand", 4242, FULL), (1280, 960), FULL)
    tiles = [np.array(tile["corners"], np.float32) for tile in label["tiles"] if tile["pose"] == FACE_UP]
    rng = np.random.default_rng(2)
    boxes = [overrun(tile, rng) for tile in tiles]
    refined = BoxRefiner(REFINER)(image, boxes)
    lengths = [float(np.linalg.norm(tile[2] - tile[1])) for tile in tiles]
    before = [corner_error(box, tile) / length for box, tile, length in zip(boxes, tiles, lengths, strict=True)]
    after = [corner_error(box, tile) / length for box, tile, length in zip(refined, tiles, lengths, strict=True)]
    assert np.median(before) > 0.1 and np.median(after) < 0.08  # 0.29 and about 0.05


def test_points_go_through_each_boxs_own_homography_as_opencv_takes_them():
    rng = np.random.default_rng(3)
    matrices = np.eye(3) + rng.normal(0, 0.05, (5, 3, 3)) * [[10, 10, 100], [10, 10, 100], [0.001, 0.001, 0]]
    points = rng.uniform(0, 64, (5, 4, 2))
    expected = [cv2.perspectiveTransform(quad[None], matrix)[0] for quad, matrix in zip(points, matrices, strict=True)]
    assert np.allclose(through_each(matrices, points), expected, atol=1e-3)


def test_a_missing_refiner_model_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="box refiner"):
        BoxRefiner(tmp_path / "nothing.onnx")
