"""The tile verifier: its crops, the suppression after it, the boxes it is trained on, and the bundled model."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.eval.metrics import polygon_iou
from datasets.labels import FACE_UP
from datasets.synth.scene import FULL, make_scene, render
from models import VERIFIER
from models.train.verifier import NEGATIVE_IOU, POSITIVE_IOU, hard_boxes, label_boxes, rectangle
from vision.detect.verify import (
    CROP_SHAPE,
    MARGIN_PX,
    TILE_PX,
    TileVerifier,
    Weighing,
    choose_tiles,
    choose_verified,
    crop_box,
    crop_boxes,
    may_overlap,
    side_ratios,
    suppress,
)


def test_a_crop_holds_the_box_with_its_end_on_the_left_and_a_margin_round_it():
    image = np.zeros((200, 200, 3), np.uint8)
    image[80:121, 50:131] = 100  # the tile
    image[80:121, 50:55] = 255  # a mark at its left end
    corners = np.array([[50, 120], [50, 80], [130, 80], [130, 120]], np.float32)  # corners[0..1] on the left
    crop = crop_box(image, corners)
    assert crop.shape == (*CROP_SHAPE, 3)
    inside = crop[MARGIN_PX : MARGIN_PX + TILE_PX, MARGIN_PX : MARGIN_PX + 2 * TILE_PX]
    assert inside[:, :2].mean() > 200 and inside[:, -4:].mean() == pytest.approx(100, abs=5)
    assert crop[: MARGIN_PX - 2].mean() < 5 and crop[:, -(MARGIN_PX - 2) :].mean() < 5  # the table round it
    turned = crop_box(image, np.roll(corners, 2, axis=0))  # the other end first: the mark goes right
    assert turned[MARGIN_PX : MARGIN_PX + TILE_PX, -MARGIN_PX - 2 : -MARGIN_PX].mean() > 200
    assert crop_boxes(image, []).shape == (0, *CROP_SHAPE, 3)


def test_a_square_box_stays_square_in_its_crop():
    image = np.zeros((200, 200, 3), np.uint8)
    image[80:121, 80:121] = 255  # a square: one half of a tile, say
    crop = crop_box(image, np.array([[80, 120], [80, 80], [120, 80], [120, 120]], np.float32))
    bright = np.argwhere(crop[:, :, 0] > 128)
    rows, columns = np.ptp(bright[:, 0]) + 1, np.ptp(bright[:, 1]) + 1
    assert columns == pytest.approx(2 * TILE_PX, abs=2) and rows >= min(2 * TILE_PX, CROP_SHAPE[0]) - 2


def test_suppression_keeps_the_best_of_overlapping_boxes_and_every_separate_one():
    a = rectangle(np.array([50, 50], np.float32), np.array([1, 0], np.float32), 40, 20)
    a_moved = a + np.float32([4, 0])
    far = a + np.float32([100, 0])
    kept = suppress(np.stack([a, a_moved, far]), np.array([0.5, 0.9, 0.4], np.float32), 0.3)
    assert list(kept) == [1, 2]
    assert len(suppress(np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32), 0.3)) == 0


def random_boxes(rng: np.random.Generator, count: int) -> np.ndarray:
    """Tiles near one another, some of them proposed several times a little moved or turned, or
    (one box in four) over one half only."""
    boxes = []
    for _ in range(count):
        centre = rng.uniform(0, 300, 2).astype(np.float32)
        along = np.array([np.cos(angle := rng.uniform(0, np.pi)), np.sin(angle)], np.float32)
        for _ in range(rng.integers(1, 4)):
            moved = centre + rng.normal(0, 6, 2).astype(np.float32)
            length = 20 if rng.uniform() < 0.25 else 40
            boxes.append(rectangle(moved, along + rng.normal(0, 0.1, 2).astype(np.float32), length, 20))
    return np.stack(boxes)


@pytest.mark.parametrize("seed", range(40))
def test_asking_the_verifier_lazily_keeps_exactly_what_asking_about_every_box_keeps(seed):
    rng = np.random.default_rng(seed)
    corners = random_boxes(rng, 12)
    scores = rng.uniform(0.04, 1, len(corners))
    said = rng.uniform(0, 1, len(corners)) ** rng.choice([0.3, 1, 3], len(corners))
    asked: list[int] = []

    def verify(boxes: np.ndarray) -> np.ndarray:
        assert not set(boxes) & set(asked)  # never the same box twice
        asked.extend(boxes)
        return said[boxes]

    weighing = Weighing(0.5, 0.2, 0.3, trusted=rng.choice([0.6, 0.8, 1.0]), trusted_shape=rng.choice([0.0, 1.5]))
    everything, combined = choose_tiles(corners, scores, said, weighing)
    lazily, lazy_scores = choose_verified(corners, scores, verify, weighing)
    assert sorted(lazily) == sorted(everything)
    assert list(lazy_scores) == sorted(lazy_scores, reverse=True)  # best first
    for box, score in zip(lazily, lazy_scores, strict=True):
        if box in asked:
            assert score == pytest.approx(combined[box])
        else:  # settled unasked: a box the detector is trusted about, at the detector's score
            assert weighing.trusts(scores, corners)[box] and score == pytest.approx(scores[box])


def test_a_trusted_box_that_nothing_could_outscore_is_never_verified():
    tile = rectangle(np.array([50, 50], np.float32), np.array([1, 0], np.float32), 40, 20)
    corners = np.stack([tile, tile + np.float32([3, 0]), tile + np.float32([200, 0]), tile + np.float32([203, 0])])
    asked: list[int] = []

    def verify(boxes: np.ndarray) -> np.ndarray:
        asked.extend(boxes)
        return np.full(len(boxes), 0.95)

    # 0.9 against its near duplicate's bound sqrt(0.5): settled; 0.8 against sqrt(0.7): asked
    kept, scores = choose_verified(corners, np.array([0.9, 0.5, 0.8, 0.7]), verify, Weighing(0.5, 0.2, 0.3, 0.7))
    assert list(kept) == [0, 2] and asked == [2]
    assert scores == pytest.approx([0.9, np.sqrt(0.8 * 0.95)])


@pytest.mark.parametrize("seed", range(20))
def test_boxes_that_may_overlap_include_every_pair_that_does(seed):
    rng = np.random.default_rng(seed)
    corners = random_boxes(rng, 10)
    near = may_overlap(corners, 0.3)
    for i, j in zip(*np.nonzero(~near), strict=True):
        if i != j:
            assert polygon_iou(corners[i], corners[j]) <= 0.3 + 1e-6
    assert not near.diagonal().any()


def test_near_duplicates_of_a_confirmed_tile_are_never_verified():
    tile = rectangle(np.array([50, 50], np.float32), np.array([1, 0], np.float32), 40, 20)
    corners = np.stack([tile, tile + np.float32([3, 0]), tile + np.float32([0, 2]), tile + np.float32([200, 0])])
    asked: list[int] = []

    def verify(boxes: np.ndarray) -> np.ndarray:
        asked.extend(boxes)
        return np.full(len(boxes), 0.95)

    kept, _ = choose_verified(corners, np.array([0.9, 0.6, 0.5, 0.7]), verify, Weighing(0.5, 0.2, 0.3))
    assert list(kept) == [0, 3] and sorted(asked) == [0, 3]


def test_a_box_the_detector_is_sure_of_keeps_its_score_when_the_verifier_doubts_it():
    tile = rectangle(np.array([50, 50], np.float32), np.array([1, 0], np.float32), 40, 20)
    corners = np.stack([tile, tile + np.float32([100, 0]), tile + np.float32([200, 0])])
    scores, said = np.array([0.85, 0.75, 0.85]), np.array([0.01, 0.01, 0.9])
    kept, combined = choose_tiles(corners, scores, said, Weighing(0.5, 0.2, 0.3, trusted=0.8))
    assert sorted(kept) == [0, 2]  # the doubted box the detector was not sure enough of is dropped
    assert combined[0] == pytest.approx(0.85)  # the verifier lowers no trusted box ...
    assert combined[2] == pytest.approx(np.sqrt(0.85 * 0.9))  # ... and still raises one
    untrusting, _ = choose_tiles(corners, scores, said, Weighing(0.5, 0.2, 0.3))
    assert list(untrusting) == [2]


def test_a_square_box_the_detector_is_sure_of_gives_way_to_the_tile_under_it():
    # a box over one half of a tile, which the detector is surer of than of the whole tile's box
    tile = rectangle(np.array([50, 50], np.float32), np.array([1, 0], np.float32), 40, 20)
    half = rectangle(np.array([40, 50], np.float32), np.array([1, 0], np.float32), 20, 20)
    corners = np.stack([half, tile])
    scores, said = np.array([0.75, 0.53]), np.array([0.0, 1.0])
    trusting, _ = choose_tiles(corners, scores, said, Weighing(0.5, 0.2, 0.3, trusted=0.7))
    assert list(trusting) == [0]  # kept at its own 0.75 over the tile's sqrt(0.53) ~ 0.73
    by_shape = Weighing(0.5, 0.2, 0.3, trusted=0.7, trusted_shape=np.sqrt(2))
    kept, _ = choose_tiles(corners, scores, said, by_shape)
    assert list(kept) == [1]
    lazily, _ = choose_verified(corners, scores, lambda boxes: said[boxes], by_shape)
    assert list(lazily) == [1]
    assert list(by_shape.trusts(scores, corners)) == [False, False]
    assert list(by_shape.trusts(np.array([0.9, 0.9]), corners)) == [False, True]


def test_side_ratios_are_two_for_a_tile_and_one_for_a_half():
    tile = rectangle(np.array([50, 50], np.float32), np.array([1, 1], np.float32), 40, 20)
    half = rectangle(np.array([50, 50], np.float32), np.array([0, 1], np.float32), 20, 20)
    assert side_ratios(np.stack([tile, half])) == pytest.approx([2.0, 1.0])


def test_a_box_below_the_least_keepable_score_is_never_kept():
    weighing = Weighing(0.5, 0.2, 0.3, trusted=0.7)
    least = weighing.least_keepable()
    assert weighing.bound(np.array([least]))[0] == pytest.approx(weighing.keep)
    below = np.array([least * 0.99])
    assert weighing.combine(below, np.ones(1), np.ones(1, bool))[0] < weighing.keep  # even the verifier sure of it


def test_a_rectangle_starts_with_a_short_edge():
    quad = rectangle(np.array([10, 10], np.float32), np.array([0, 3], np.float32), 40, 20)
    assert np.linalg.norm(quad[1] - quad[0]) == pytest.approx(20)
    assert np.linalg.norm(quad[2] - quad[1]) == pytest.approx(40)
    assert quad.mean(axis=0) == pytest.approx([10, 10])


def test_boxes_are_labelled_by_what_they_cover_and_doubtful_ones_left_out():
    tile = rectangle(np.array([100, 100], np.float32), np.array([1, 0], np.float32), 80, 40)
    near = tile + np.float32([4, 0])
    half_off = tile + np.float32([40, 0])  # IoU 1/3
    doubtful = tile + np.float32([20, 0])  # IoU 0.6
    kept, labels = label_boxes([near, half_off, doubtful], [tile])
    assert polygon_iou(near, tile) >= POSITIVE_IOU and polygon_iou(half_off, tile) < NEGATIVE_IOU
    assert labels == [1, 0] and np.array_equal(kept[1], half_off)


def test_two_touching_tiles_give_boxes_that_straddle_them():
    along = np.array([1, 0], np.float32)
    top = rectangle(np.array([100, 100], np.float32), along, 80, 40)
    below = rectangle(np.array([100, 140], np.float32), along, 80, 40)  # touching along a long edge
    boxes = hard_boxes([top, below], np.random.default_rng(0), 400, 300)
    upright = [box for box in boxes if abs(box[1] - box[0])[0] > 30]  # short edge across x: a vertical box
    straddles = [box for box in upright if 60 < box.mean(axis=0)[0] < 140 and 115 < box.mean(axis=0)[1] < 125]
    assert straddles and all(max(polygon_iou(box, top), polygon_iou(box, below)) < NEGATIVE_IOU for box in straddles)
    hole = rectangle(np.array([100, 180], np.float32), along, 80, 40)  # where a third tile would lie below
    assert max(polygon_iou(box, hole) for box in boxes) > 0.9


@pytest.mark.skipif(not VERIFIER.exists(), reason="no bundled tile verifier")
def test_the_bundled_verifier_tells_tiles_from_boxes_that_are_not_one():
    image, label = render(make_scene("hand", 4242, FULL), (1280, 960), FULL)
    tiles = [np.array(tile["corners"], np.float32) for tile in label["tiles"] if tile["pose"] == FACE_UP]
    others, _ = label_boxes(hard_boxes(tiles, np.random.default_rng(1), 1280, 960), tiles)
    verifier = TileVerifier(VERIFIER)
    said_tiles, said_others = verifier(image, tiles), verifier(image, others)
    assert (said_tiles > 0.5).mean() >= 0.9 and (said_others < 0.5).mean() >= 0.9


def test_a_missing_verifier_model_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="tile verifier"):
        TileVerifier(tmp_path / "nothing.onnx")


def test_photometric_augmentation_keeps_shape_and_range_and_follows_its_seed():
    torch = pytest.importorskip("torch")
    from models.train.smallnet import photometric

    batch = torch.rand(16, 3, 8, 12)
    first = photometric(batch.clone(), torch.Generator().manual_seed(3))
    again = photometric(batch.clone(), torch.Generator().manual_seed(3))
    assert first.shape == batch.shape and float(first.min()) >= 0 and float(first.max()) <= 1
    assert torch.equal(first, again) and not torch.allclose(first, batch, atol=0.01)


def test_the_held_out_tenth_is_seeded_and_apart_from_what_is_trained_on():
    from models.train.smallnet import held_out

    held, used = held_out(57, seed=3)
    assert len(held) == 5 and sorted([*held, *used]) == list(range(57))
    again, _ = held_out(57, seed=3)
    other, _ = held_out(57, seed=4)
    assert list(again) == list(held) and list(other) != list(held)


def test_glossy_patches_only_lighten_keep_pips_darker_and_draw_nothing_at_share_zero():
    torch = pytest.importorskip("torch")
    from models.train.smallnet import glossy_patches

    body, pip = 0.75, 0.1
    batch = torch.full((64, 3, 48, 48), body)
    batch[:, :, 20:28, 20:28] = pip
    generator = torch.Generator().manual_seed(5)
    state = generator.get_state()
    assert glossy_patches(batch, generator, 0.0) is batch and torch.equal(generator.get_state(), state)
    lit = glossy_patches(batch.clone(), generator, 1.0)
    assert (lit >= batch - 1e-6).all() and float(lit.max()) <= 1
    changed = (lit - batch).abs().amax(dim=(1, 2, 3)) > 0.05
    assert changed.float().mean() > 0.5  # most halves get a reflection somewhere
    plain = glossy_patches(torch.full_like(batch, body), torch.Generator().manual_seed(5), 1.0)  # the same light
    lit_again = glossy_patches(batch.clone(), torch.Generator().manual_seed(5), 1.0)
    fade = plain[:, :, 20:28, 20:28] - lit_again[:, :, 20:28, 20:28]
    assert float(fade.min()) > 0.1 * (body - pip)  # under the brightest light a pip still shows
    again = glossy_patches(batch.clone(), torch.Generator().manual_seed(5), 0.5)
    some = (again - batch).abs().amax(dim=(1, 2, 3)) > 0.05
    assert 0 < some.float().mean() < changed.float().mean()


def test_a_box_mostly_inside_a_better_one_is_covered_and_neighbours_are_not():
    from vision.detect.verify import covered_by_better

    tile = np.array([[0, 40], [0, 0], [80, 0], [80, 40]], np.float32)
    over_one_half = np.array([[50, 35], [50, 5], [100, 5], [100, 35]], np.float32)  # 0.6 of it inside the tile
    neighbour = tile + np.float32([82, 0])  # laid end to end beside it
    covered = covered_by_better(np.stack([tile, neighbour, over_one_half]), 0.5)
    assert covered.tolist() == [False, False, True]
    assert not covered_by_better(np.stack([tile, neighbour, over_one_half]), 0.7).any()
    assert covered_by_better(np.stack([over_one_half, tile]), 0.5).tolist() == [False, False]  # the better one stays
    assert covered_by_better(tile[None], 0.5).tolist() == [False]


def test_a_box_over_much_of_a_better_one_is_the_same_tile_again_when_an_iou_is_given():
    from vision.detect.verify import covered_by_better

    tile = np.array([[0, 40], [0, 0], [80, 0], [80, 40]], np.float32)
    moved_along = tile + np.float32([36, 0])  # 0.55 of it on the tile: IoU 0.38
    neighbour = tile + np.float32([0, 42])  # side by side
    boxes = np.stack([tile, neighbour, moved_along])
    assert not covered_by_better(boxes, 0.6).any()
    assert covered_by_better(boxes, 0.6, iou=0.3).tolist() == [False, False, True]
    assert not covered_by_better(boxes, 0.6, iou=0.4).any()


def test_face_down_tiles_add_their_boxes_as_not_tiles_and_change_nothing_else():
    from datasets.labels import FACE_DOWN
    from models.train.verifier import LOOSENED_COPIES, scene_boxes

    seed = next(s for s in range(200) if any(tile.pose == FACE_DOWN for tile in make_scene("hand", s).tiles))
    face_down = sum(tile.pose == FACE_DOWN for tile in make_scene("hand", seed).tiles)
    plain_crops, plain_labels = scene_boxes(seed)
    crops, labels = scene_boxes(seed, face_down=True)
    assert (labels == 0).sum() - (plain_labels == 0).sum() == face_down * (1 + LOOSENED_COPIES)
    assert (labels == 1).sum() == (plain_labels == 1).sum()
    assert np.array_equal(crops[: len(plain_crops)], plain_crops)  # the same boxes first, in the same order
