"""The kept model-choice benchmarks' own logic: the readings by eye, and a candidate model in any
bundled one's place. (The threshold sweeps' tests went with them: benchmarks/HISTORY.md, issue 72.)"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def test_read_by_eye_compares_tiles_as_bags_and_its_readings_are_well_formed():
    from benchmarks.read_by_eye import READINGS, compare
    from datasets.real import real_root

    row = compare([[3, 3], [4, 3], [1, 6]], [(3, 3), (0, 1), (0, 1), (3, 4)])
    assert (row["right"], row["extra"], row["missed"]) == (2, [(0, 1), (0, 1)], [(1, 6)])
    assert (row["total"], row["read_total"]) == (20, 15)
    photos = json.loads(READINGS.read_text())["photos"]
    assert len({photo["path"] for photo in photos}) == len(photos) >= 10
    assert all(0 <= pips <= 18 for photo in photos for tile in photo["tiles"] for pips in tile)
    root = real_root()
    if root is not None:  # the readings name photos that are there
        assert all((root / photo["path"]).is_file() for photo in photos)


def test_benchmarks_take_a_candidate_in_any_models_place_and_name_only_the_candidates():
    from benchmarks.candidates import BUNDLED, add_model_arguments, candidate_flags, chosen_models

    parser = argparse.ArgumentParser()
    add_model_arguments(parser)
    assert chosen_models(parser.parse_args([])) == BUNDLED
    models = chosen_models(parser.parse_args(["--refiner", "out/refiner-view/model.onnx"]))
    assert models["refiner"] == Path("out/refiner-view/model.onnx") and models["verifier"] == BUNDLED["verifier"]
    assert candidate_flags(models) == " --refiner out/refiner-view/model.onnx"
