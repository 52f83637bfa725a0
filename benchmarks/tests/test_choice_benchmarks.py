"""The choice benchmarks' own logic on hand-made photos: what they leave out, what they choose,
and what they keep of earlier runs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from vision.data.labels import LabelledImage, LabelledTile
from vision.observation import Observation, Sighting


def tile(x: float, y: float, length: float = 80.0) -> np.ndarray:
    """A lying tile's corners seen from straight above: ``length`` x half as wide, corners[0..1] its left end."""
    return np.array([[x, y + length / 2], [x, y], [x + length, y], [x + length, y + length / 2]], np.float32)


def hand_with_a_part_box() -> tuple[LabelledImage, Observation]:
    """Four tiles read right, and a box over one half of the third, read as a double and counted."""
    places = [(0, 0), (100, 0), (200, 0), (300, 0)]
    pips = [(1, 2), (3, 4), (5, 6), (0, 1)]
    tiles = tuple(LabelledTile(tile(x, y), p) for (x, y), p in zip(places, pips, strict=True))
    label = LabelledImage(Path("hand.jpg"), 1000, 800, tiles)
    part = tile(200, 0, 40.0)  # a 2:1 box a quarter of a tile's area, over the 5-end
    read = [Sighting(tile(x, y), p, 0.9) for (x, y), p in zip(places, pips, strict=True)]
    return label, Observation((*read, Sighting(part, (2, 3), 0.5)))


def test_the_size_test_leaves_out_a_box_over_part_of_a_tile_and_is_chosen_for_it():
    from benchmarks.odd_shapes import measure, sweep

    photos = [hand_with_a_part_box()]
    assert measure(photos, 0.2, None)["exact_totals"] == 0  # the part box's 5 pips counted
    assert measure(photos, 0.2, 0.3) == {"exact_totals": 1, "photos": 1, "true_tiles_left_out": 0}
    result = sweep(photos, [], [None, 0.3, 0.5, 0.7], "low", bound=0.2)
    assert result["chosen"] == "0.3"  # 0.3 to 0.7 tie with the most: the loosest (leaving out least)
    assert result["rows"]["never"]["synthetic"]["exact_totals"] == 0


def test_detector_realism_keeps_earlier_rows_of_the_same_recipe_only(tmp_path, monkeypatch):
    import benchmarks.detector_realism as realism
    from vision.train.detector import Recipe

    recipe = Recipe(imgsz=320, epochs=20)
    earlier = {
        "date": "2026-11-30",
        "recipe": {"scenes": 1200, "epochs": 20, "imgsz": 320, "seed": recipe.seed},
        "variants": {"full": {"training_minutes": 95.8}, "flat_tiles": {"training_minutes": 90.0}},
    }
    results = tmp_path / "detector_realism.json"
    results.write_text(json.dumps(earlier))
    monkeypatch.setattr(realism, "RESULTS", results)
    kept = realism.earlier_rows(recipe, 1200, ["flat_tiles"])
    assert kept == {"full": {"training_minutes": 95.8, "measured": "2026-11-30"}}  # flat_tiles is measured again
    assert realism.earlier_rows(recipe, 600, ["flat_tiles"]) == {}  # another scene count: nothing kept
    monkeypatch.setattr(realism, "RESULTS", tmp_path / "absent.json")
    assert realism.earlier_rows(recipe, 1200, []) == {}


def test_wrong_halves_are_tallied_by_the_count_they_hold():
    from benchmarks.reader_confidence import wrong_by_count
    from vision.read.pip_reader import BEYOND_FRAME, Reading

    pips = [(16, 3), (12, 0), (17, 1)]
    tiles = [LabelledTile(tile(100 * place, 0), both) for place, both in enumerate(pips)]
    readings = [
        Reading((15, 3), (0.8, 1.0)),  # 16 read 15 and counted at 0.5
        Reading((12, 0), (1.0, 1.0)),
        Reading((14, 1), (0.3, 1.0)),  # 17 read 14, but too unsure to be counted
    ]
    tally = wrong_by_count([(0, tiles, readings)], threshold=0.5)
    assert tally["16-18"] == (2, 2, 1)
    assert tally["0-6"] == (3, 0, 0)
    assert tally["10-12"] == (1, 0, 0)
    cut = [Reading((15, 3), (0.8, 1.0), BEYOND_FRAME), *readings[1:]]  # the frame cuts the first tile: not read
    assert wrong_by_count([(0, tiles, cut)], threshold=0.5)["16-18"] == (1, 1, 0)


def test_read_by_eye_compares_tiles_as_bags_and_its_readings_are_well_formed():
    from benchmarks.read_by_eye import READINGS, compare
    from vision.data.real import real_root

    row = compare([[3, 3], [4, 3], [1, 6]], [(3, 3), (0, 1), (0, 1), (3, 4)])
    assert (row["right"], row["extra"], row["missed"]) == (2, [(0, 1), (0, 1)], [(1, 6)])
    assert (row["total"], row["read_total"]) == (20, 15)
    photos = json.loads(READINGS.read_text())["photos"]
    assert len({photo["path"] for photo in photos}) == len(photos) >= 10
    assert all(0 <= pips <= 18 for photo in photos for tile in photo["tiles"] for pips in tile)
    root = real_root()
    if root is not None:  # the readings name photos that are there
        assert all((root / photo["path"]).is_file() for photo in photos)


def choosing_rows(**exact: tuple[int, int]) -> dict[str, dict]:
    """``detector_choice`` rows: each candidate's exact totals on a usual and a steep set of 100 photos."""
    return {
        name: {
            "choosing": {
                "usual": {"exact_totals": usual, "photos": 100},
                "steep": {"exact_totals": steep, "photos": 100},
            }
        }
        for name, (usual, steep) in exact.items()
    }


def test_a_detector_is_chosen_only_ahead_overall_and_not_behind_on_any_choosing_set():
    from benchmarks.detector_choice import choose

    assert choose(choosing_rows(bundled=(90, 60), steep=(90, 75)), "bundled") == "steep"
    assert choose(choosing_rows(bundled=(90, 60), steep=(85, 75)), "bundled") == "bundled"  # the usual photos lose 5
    assert choose(choosing_rows(bundled=(90, 60), steep=(89, 75)), "bundled") == "steep"  # 1 in 100: within the tie
    assert choose(choosing_rows(bundled=(90, 60), steep=(90, 61)), "bundled") == "bundled"  # ahead by a tie only
    rows = choosing_rows(bundled=(90, 60), a=(90, 70), b=(91, 80))
    assert choose(rows, "bundled") == "b"


def test_benchmarks_take_a_candidate_in_any_models_place_and_name_only_the_candidates():
    from benchmarks.candidates import BUNDLED, add_model_arguments, candidate_flags, chosen_models

    parser = argparse.ArgumentParser()
    add_model_arguments(parser)
    assert chosen_models(parser.parse_args([])) == BUNDLED
    models = chosen_models(parser.parse_args(["--refiner", "out/refiner-view/model.onnx"]))
    assert models["refiner"] == Path("out/refiner-view/model.onnx") and models["verifier"] == BUNDLED["verifier"]
    assert candidate_flags(models) == " --refiner out/refiner-view/model.onnx"
