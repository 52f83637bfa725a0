"""The evaluation metrics on hand-made cases whose answers are known."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.eval.metrics import (
    match_tiles,
    polygon_iou,
    score_image,
    square,
    summarise,
    wilson,
)
from datasets.labels import FACE_DOWN, LabelledImage, LabelledTile
from vision.observation import Observation, Reason, Sighting


def tile_box(x: float, y: float, turned: bool = False) -> np.ndarray:
    """A 100x50 tile lying flat; corners[0..1] on its left end (or its right end when turned)."""
    corners = np.array([[x, y + 50], [x, y], [x + 100, y], [x + 100, y + 50]], dtype=np.float32)
    return np.roll(corners, 2, axis=0) if turned else corners


def labelled(*tiles: LabelledTile, chains=()) -> LabelledImage:
    return LabelledImage(Path("hand.jpg"), 1000, 800, tuple(tiles), "made", chains=tuple(chains))


def test_polygon_iou_of_known_overlaps():
    assert polygon_iou(square(0, 0, 2), square(0, 0, 2)) == pytest.approx(1.0)
    assert polygon_iou(square(0, 0, 2), square(1, 0, 2)) == pytest.approx(1 / 3)
    assert polygon_iou(square(0, 0, 2), square(5, 5, 2)) == 0.0
    diamond = np.array([[1, 0], [2, 1], [1, 2], [0, 1]], dtype=np.float32)
    assert polygon_iou(square(0, 0, 2), diamond) == pytest.approx(0.5)


def test_matching_is_one_to_one_and_needs_half_overlap():
    label = [square(0, 0, 10), square(100, 0, 10)]
    predicted = [square(1, 0, 10), square(0, 2, 10), square(106, 0, 10)]
    # Both first two overlap label 0 well; only the better is kept. The third overlaps label 1 by 4/16.
    assert match_tiles(label, predicted) == [(0, 0)]


def test_a_perfect_reading_scores_perfectly():
    label = labelled(LabelledTile(tile_box(0, 0), (6, 3)), LabelledTile(tile_box(200, 0), (5, 5)))
    prediction = Observation((Sighting(tile_box(2, 1), (6, 3)), Sighting(tile_box(200, 0), (5, 5))))
    score = score_image(label, prediction)
    assert (score.matched, score.halves_right, score.halves, score.tiles_exact) == (2, 4, 4, 2)
    assert score.total_label == 19 and score.total_predicted == 19 and score.total_exact
    assert score.failed_stage == "none"


def test_a_tile_read_right_but_turned_round_loses_its_halves_not_the_tile():
    label = labelled(LabelledTile(tile_box(0, 0), (6, 3)))
    turned = Observation((Sighting(tile_box(0, 0, turned=True), (6, 3)),))
    score = score_image(label, turned)
    assert (score.halves_right, score.tiles_exact, score.total_exact) == (0, 1, True)
    assert score.failed_stage == "pips"
    right_way = Observation((Sighting(tile_box(0, 0, turned=True), (3, 6)),))
    assert score_image(label, right_way).halves_right == 2


def test_one_wrong_half_and_a_missed_tile():
    label = labelled(LabelledTile(tile_box(0, 0), (6, 3)), LabelledTile(tile_box(200, 0), (2, 1)))
    prediction = Observation((Sighting(tile_box(0, 0), (6, 4)),))
    score = score_image(label, prediction)
    assert (score.labelled, score.matched, score.halves_right, score.halves, score.tiles_exact) == (2, 1, 1, 2, 0)
    assert (score.total_label, score.total_predicted) == (12, 10)
    assert score.failed_stage == "detection"


def test_unreadable_tiles_count_for_detection_only_and_face_down_ones_are_not_to_be_found():
    label = labelled(
        LabelledTile(tile_box(0, 0), (6, 3)),
        LabelledTile(tile_box(200, 0), (1, 1), unreadable=True),
        LabelledTile(tile_box(400, 0), pose=FACE_DOWN),
    )
    assert label.total_pips == 9
    prediction = Observation(
        (Sighting(tile_box(0, 0), (6, 3)), Sighting(tile_box(200, 0), None, reason=Reason.READ_UNSURE))
    )
    score = score_image(label, prediction)
    assert (score.labelled, score.matched, score.tiles_read, score.halves) == (2, 2, 1, 2)
    assert score.total_predicted == 9 and score.total_exact
    on_the_face_down_tile = Observation((*prediction.tiles, Sighting(tile_box(400, 0), (2, 2))))
    score = score_image(label, on_the_face_down_tile)
    assert (score.predicted, score.matched) == (3, 2)  # a false find
    assert score.total_predicted == 13 and not score.total_exact


def test_chains_match_in_either_direction_through_the_tile_matching():
    label = labelled(*(LabelledTile(tile_box(120 * i, 0), (i, i + 1)) for i in range(3)), chains=[(0, 1, 2)])
    tiles = tuple(Sighting(tile_box(120 * i, 0), (i, i + 1)) for i in (2, 1, 0))  # listed in reverse
    assert score_image(label, Observation(tiles, chains=((0, 1, 2),))).chains_right == 1
    assert score_image(label, Observation(tiles, chains=((0, 1),))).chains_right == 0
    assert score_image(label, Observation(tiles)).chains_right is None


def test_wilson_interval_known_values():
    low, high = wilson(9, 10)
    assert low == pytest.approx(0.5958, abs=1e-4) and high == pytest.approx(0.9821, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 10)[0] == pytest.approx(0.0)


def test_summary_adds_up_over_images():
    good = score_image(labelled(LabelledTile(tile_box(0, 0), (6, 3))), Observation((Sighting(tile_box(0, 0), (6, 3)),)))
    bad = score_image(labelled(LabelledTile(tile_box(0, 0), (2, 2))), Observation((Sighting(tile_box(0, 0), (2, 1)),)))
    summary = summarise([good, bad])
    rates = {rate.name: rate for rate in summary["rates"]}
    assert (rates["tile recall"].successes, rates["tile recall"].trials) == (2, 2)
    assert (rates["per-half accuracy"].successes, rates["per-half accuracy"].trials) == (3, 4)
    assert rates["exact photo total"].value == 0.5
    assert summary["mean_abs_total_error"] == 0.5
    assert summary["failed_stage"] == {"none": 1, "pips": 1}


def test_readable_tiles_called_unsure_and_halves_read_surely_but_wrong_are_kept_apart():
    label = labelled(
        LabelledTile(tile_box(0, 0), (6, 3)),
        LabelledTile(tile_box(200, 0), (2, 1)),
        LabelledTile(tile_box(400, 0), (5, 5)),
    )
    prediction = Observation(
        (
            Sighting(tile_box(0, 0), (6, 4)),  # sure, one half wrong
            Sighting(tile_box(200, 0), (2, 2), reason=Reason.READ_UNSURE),  # unsure: wrong, but not sure-wrong
            Sighting(tile_box(400, 0), (5, 5)),
        )
    )
    score = score_image(label, prediction)
    assert (score.tiles_unsure, score.halves_sure, score.halves_sure_wrong) == (1, 4, 1)
    rates = {rate.name: rate for rate in summarise([score])["rates"]}
    assert (rates["readable tiles called unsure"].successes, rates["readable tiles called unsure"].trials) == (1, 3)
    assert rates["halves read surely but wrong"].value == 0.25


def test_rates_by_set_keep_each_sets_images_apart():
    from benchmarks.eval.run import by_set, summary_markdown

    good = score_image(labelled(LabelledTile(tile_box(0, 0), (6, 3))), Observation((Sighting(tile_box(0, 0), (6, 3)),)))
    missed = score_image(labelled(LabelledTile(tile_box(0, 0), (2, 2))), Observation(()))
    table = by_set([("a", good), ("b", missed), ("a", good)])
    assert table["a"]["images"] == 2 and table["a"]["tile recall"] == [2, 2]
    assert table["a"]["exact photo total"] == [2, 2]
    assert table["b"]["tile recall"] == [0, 1] and table["b"]["tile precision"] == [0, 0]
    document = {"title": "t", "images": 3, "rates": {}, "mean_abs_total_error": None, "mean_timings_ms": {},
                "failed_stage": {}, "by_set": table}  # fmt: skip
    assert "| b | 1 | 0/1 | n/a | n/a | 0/1 |" in summary_markdown(document)
