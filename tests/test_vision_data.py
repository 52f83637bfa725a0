"""Real-photo loaders, synthetic sets on disk, exports, and the synth / export / eval commands."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.cli import main
from benchmarks.eval.run import read_predictions
from datasets.labels import FACE_UP, STANDING
from datasets.real import LabelError, box_labelled, iter_images, load_folder, load_gt_json, pip_labelled, real_root
from datasets.synth.dataset import (
    CONTACT_SHEET,
    HUB_CLASS,
    MARKER_CLASS,
    OBB_CLASSES,
    export_crops,
    export_yolo_obb,
    write_set,
)
from datasets.synth.scene import SceneOptions, make_scene

REAL = real_root()
needs_real = pytest.mark.skipif(REAL is None, reason="../shared/real is not here")


@pytest.fixture(scope="module")
def hand_set(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hands")
    write_set("hand", 3, seed=5, out_dir=folder, workers=1, progress=False)
    return folder


# --- real photos ----------------------------------------------------------------------------


@needs_real
def test_the_labelled_real_photos_load_and_line_up_with_cv2_imread():
    labels = pip_labelled()
    assert len(labels) == 27 and sum(len(label.tiles) for label in labels) == 258
    for label, image in iter_images(labels):  # raises if EXIF orientation were handled differently
        assert image.shape[:2] == (label.height, label.width)
        assert all(tile.pips is not None for tile in label.tiles)


@needs_real
def test_box_labelled_sets_load_with_poses():
    labels = box_labelled()
    assert {label.source for label in labels} == {
        "karthikVenkataramana__Domino-Detection",
        "TAK1EDD1NE__domino-tile-recognition",
    }
    poses = {tile.pose for label in labels for tile in label.tiles}
    assert {"face_up", "face_down", "standing"} <= poses
    assert all(label.total_pips is None for label in labels)


def test_a_label_whose_total_does_not_add_up_is_refused(tmp_path):
    label = {"image": "x.jpg", "width": 10, "height": 10, "total_pips": 5,
             "tiles": [{"pips": [1, 2], "corners": [[0, 0], [0, 1], [2, 1], [2, 0]]}]}  # fmt: skip
    path = tmp_path / "x.jpg.gt.json"
    path.write_text(json.dumps(label))
    with pytest.raises(LabelError, match="total_pips is 5 but the tiles add up to 3"):
        load_gt_json(path)
    path.write_text("{broken")
    with pytest.raises(LabelError, match="cannot read label"):
        load_gt_json(path)


# --- synthetic sets on disk ---------------------------------------------------------------


def test_a_written_set_loads_back_with_its_labels(hand_set):
    labels = load_folder(hand_set)
    assert [label.path.name for label in labels] == ["00000.jpg", "00001.jpg", "00002.jpg"]
    for label, image in iter_images(labels):
        assert image.shape[:2] == (label.height, label.width)
        assert label.total_pips == label.extra["total_pips"]
    assert (hand_set / CONTACT_SHEET).exists()


def test_a_written_set_folder_holds_only_its_photos_for_the_commands_given_it(hand_set):
    """``hubcam score DIR`` on a rendered set scores its photos, not its contact sheet."""
    from api.cli.common import photos_in

    assert [photo.name for photo in photos_in([hand_set])] == ["00000.jpg", "00001.jpg", "00002.jpg"]


def test_writing_a_set_again_resumes_and_refuses_a_different_set(hand_set):
    before = (hand_set / "00001.jpg").stat().st_mtime_ns
    write_set("hand", 3, seed=5, out_dir=hand_set, workers=1, progress=False)
    assert (hand_set / "00001.jpg").stat().st_mtime_ns == before
    with pytest.raises(ValueError, match="holds a different set"):
        write_set("hand", 3, seed=6, out_dir=hand_set, workers=1, progress=False)


def test_a_set_drawn_with_choices_switched_off_resumes_too(tmp_path):
    """Its manifest records the options (tuples, read back as lists): the same set must match."""
    options = SceneOptions(distractors=False)
    write_set("hand", 1, seed=5, out_dir=tmp_path, workers=1, progress=False, options=options)
    write_set("hand", 1, seed=5, out_dir=tmp_path, workers=1, progress=False, options=options)
    with pytest.raises(ValueError, match="holds a different set"):
        write_set("hand", 1, seed=5, out_dir=tmp_path, workers=1, progress=False, options=SceneOptions(glare=False))


def test_yolo_obb_export_writes_normalised_corners_and_classes(hand_set, tmp_path):
    labels = load_folder(hand_set)
    data = export_yolo_obb(labels, tmp_path / "obb", val_share=0.0)
    assert "names:" in data.read_text() and "0: tile" in data.read_text()
    label = labels[0]
    lines = (tmp_path / "obb" / "labels" / "train" / f"{label.source}_{label.path.stem}.txt").read_text().splitlines()
    assert len(lines) == len(label.tiles)
    first = lines[0].split()
    assert int(first[0]) == OBB_CLASSES[label.tiles[0].pose] and len(first) == 9
    corners = np.array(first[1:], float).reshape(4, 2) * (label.width, label.height)
    assert np.allclose(corners, np.clip(label.tiles[0].corners, 0, [label.width, label.height]), atol=0.01)


def test_yolo_obb_export_boxes_a_tables_markers_and_hub_too(tmp_path):
    write_set("table", 2, seed=5, out_dir=tmp_path / "tables", workers=1, progress=False)
    export_yolo_obb(load_folder(tmp_path / "tables"), tmp_path / "obb", val_share=0.0)
    for label in load_folder(tmp_path / "tables"):
        lines = (tmp_path / "obb" / "labels" / "train" / f"{label.source}_{label.path.stem}.txt").read_text()
        classes = [int(line.split()[0]) for line in lines.splitlines()]
        assert classes.count(MARKER_CLASS) == len(label.extra["markers"]) and classes.count(HUB_CLASS) == 1
        assert len(classes) == len(label.tiles) + len(label.extra["markers"]) + 1


def test_yolo_obb_export_can_write_images_halved_as_the_detector_will_see_them(hand_set, tmp_path):
    labels = load_folder(hand_set)
    export_yolo_obb(labels, tmp_path / "obb", val_share=0.0, halved_towards_px=labels[0].width // 3)  # halved once
    image = cv2.imread(str(tmp_path / "obb" / "images" / "train" / f"{labels[0].source}_{labels[0].path.stem}.png"))
    photo = cv2.imread(str(labels[0].path))
    assert image.shape[:2] == (labels[0].height // 2, labels[0].width // 2)
    assert np.abs(image.astype(float) - cv2.resize(photo, image.shape[1::-1], interpolation=cv2.INTER_AREA)).max() <= 1
    assert not (tmp_path / "obb" / "images" / "train" / f"{labels[0].path.name}").exists()


def test_yolo_obb_export_holds_only_the_sets_it_was_given(hand_set, tmp_path):
    labels = load_folder(hand_set)
    export_yolo_obb(labels, tmp_path / "obb", val_share=0.0)
    export_yolo_obb(labels[:1], tmp_path / "obb", val_share=0.0)
    assert len(list((tmp_path / "obb" / "images" / "train").iterdir())) == 1
    assert len(list((tmp_path / "obb" / "labels" / "train").iterdir())) == 1


def test_crops_show_their_tiles_with_pips_zero_on_the_left(hand_set, tmp_path):
    labels = load_folder(hand_set)
    export_crops(labels, tmp_path / "crops")
    rows = (tmp_path / "crops" / "tiles.csv").read_text().splitlines()[1:]
    counted = sum(1 for label in labels for tile in label.tiles if tile.pose == FACE_UP)
    assert len(rows) == counted
    crop = cv2.imread(str(tmp_path / "crops" / rows[0].split(",")[0]))
    assert crop.shape == (64, 128, 3)
    halves = (tmp_path / "crops" / "halves.csv").read_text().splitlines()[1:]
    assert len(halves) == 2 * counted


def test_predictions_file_round_trip(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps(
            {
                "image": "a/x.jpg",
                "tiles": [
                    {
                        "pips": [6, 3],
                        "corners": [[0, 0], [0, 1], [2, 1], [2, 0]],
                        "confidence": 0.9,
                        "reason": "read_unsure",
                    },
                    {"pips": [2, 1], "corners": [[3, 0], [3, 1], [5, 1], [5, 0]], "confidence": 0.8},
                ],
                "total": 3,
                "uncertain": [0],
                "cut_by_frame": [
                    {
                        "pips": None,
                        "corners": [[0, 5], [0, 6], [2, 6], [2, 5]],
                        "confidence": 0.1,
                        "reason": "beyond_frame",
                        "cut": True,
                    },
                ],
            }
        )
        + "\n"  # fmt: skip
    )
    prediction = read_predictions(path)["x.jpg"]
    assert prediction.total == 3 and prediction.tiles[0].uncertain and prediction.tiles[0].pips == (6, 3)
    assert prediction.tiles[0].reason == "read_unsure"
    assert [tile.reason for tile in prediction.cut_by_frame] == ["beyond_frame"] and prediction.cut_by_frame[0].cut
    assert len(prediction.found) == 3 and prediction.total == 3  # found, but neither a tile nor counted
    path.write_text("{not json}\n")
    with pytest.raises(ValueError, match="line 1"):
        read_predictions(path)


# --- commands -------------------------------------------------------------------------------


def test_cli_synth_then_eval_writes_a_report(tmp_path, capsys):
    out = tmp_path / "tables"
    assert main(["synth", "--kind", "table", "--n", "2", "--seed", "1", "--out", str(out), "--workers", "1"]) == 0
    report = tmp_path / "report"
    assert main(["eval", "--set", str(out), "--pipeline", "baseline", "--out", str(report), "--worst", "2"]) == 0
    summary = json.loads((report / "summary.json").read_text())
    assert summary["images"] == 2 and "tile recall" in summary["rates"]
    assert (report / "per_image.csv").read_text().count("\n") == 3
    assert (report / "worst.jpg").exists()
    assert "tile recall" in capsys.readouterr().out


@needs_real
def test_cli_eval_on_the_real_photos(tmp_path):
    assert (
        main(["eval", "--real", "--pipeline", "baseline", "--limit", "3", "--out", str(tmp_path / "r"), "--worst", "0"])
        == 0
    )
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["images"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["synth", "--kind", "hand", "--n", "0", "--out", "x"], "invalid --n"),
        (["synth", "--kind", "hand", "--n", "1", "--out", "x", "--size", "big"], "invalid --size"),
        (["eval", "--set", "/no/such/folder"], "no such folder"),
        (["eval", "--real", "/no/such/folder"], "no real photos"),
        (["export", "crops", "/no/such/folder", "--out", "x"], "no such folder"),
        (["synth", "--kind", "hand", "--n", "1", "--out", "x", "--bright-sets", "2"], "--bright-sets"),
        (["synth", "--kind", "hand", "--n", "1", "--out", "x", "--tilt", "60-50"], "invalid --tilt"),
        (["synth", "--kind", "hand", "--n", "1", "--out", "x", "--tilt", "steep"], "invalid --tilt"),
        (["synth", "--kind", "hand", "--n", "1", "--out", "x", "--tilt", "10-90"], "invalid --tilt"),
    ],
)
def test_cli_vision_commands_refuse_bad_input_clearly(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_train_detector_refuses_a_missing_set_clearly(capsys):
    pytest.importorskip("ultralytics")
    assert main(["train", "detector", "--sets", "/no/such/set"]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and "Traceback" not in err


def test_cli_train_detector_records_a_halved_view_and_a_gentle_rate_in_its_recipe(
    monkeypatch, hand_set, tmp_path, capsys
):
    pytest.importorskip("ultralytics")
    import benchmarks.eval.cards
    import models.train.detector

    asked = []
    monkeypatch.setattr(models.train.detector, "train_detector", lambda *args: asked.append(args) or {"ok": True})
    monkeypatch.setattr(benchmarks.eval.cards, "add_real_metrics", lambda out_dir: None)  # no model to measure
    for extra in ([], ["--halved-view", "--max-lr", "0.0003"]):
        assert main(["train", "detector", "--sets", str(hand_set), "--out", str(tmp_path), *extra]) == 0
    assert [(args[2].halved_view, args[2].lr0) for args in asked] == [(False, None), (True, 0.0003)]


@pytest.mark.parametrize("model", ["pips"])
def test_cli_train_records_a_strided_stem_in_a_small_networks_recipe(monkeypatch, tmp_path, model):
    pytest.importorskip("torch")
    from api.cli import lab_train

    asked = []
    monkeypatch.setattr(lab_train, "trained", lambda export, out, recipe, resume: asked.append(recipe) or 0)
    for extra in ([], ["--strided-stem"]):
        assert main(["train", model, "--out", str(tmp_path), *extra]) == 0
    assert [recipe.strided_stem for recipe in asked] == [False, True]


@pytest.mark.parametrize("model", ["detector", "pips"])
def test_cli_train_refuses_a_learning_rate_out_of_bounds(capsys, hand_set, tmp_path, model):
    assert main(["train", model, "--sets", str(hand_set), "--max-lr", "0", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--max-lr is a learning rate" in err and "Traceback" not in err


@pytest.mark.parametrize("flag", ["--standing-scenes", "--bright-scenes"])
def test_cli_train_verifier_refuses_a_negative_count_of_extra_scenes(capsys, tmp_path, flag):
    pytest.importorskip("torch")
    assert main(["train", "verifier", flag, "-1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{flag} is a number of scenes" in err and "Traceback" not in err


def test_cli_train_verifier_refuses_a_share_of_printed_backs_beyond_one(capsys, tmp_path):
    pytest.importorskip("torch")
    assert main(["train", "verifier", "--printed-backs", "1.5", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--printed-backs is a share of sets" in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())


def test_cli_train_refiner_refuses_a_missing_start(capsys, tmp_path):
    pytest.importorskip("torch")
    missing = tmp_path / "none.onnx"
    assert main(["train", "refiner", "--start-from", str(missing), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "no refiner to start from" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # refused before rendering anything


@pytest.mark.parametrize("flag", ["--back-scenes", "--high-scenes"])
def test_cli_train_pips_refuses_a_negative_count_of_extra_scenes(capsys, tmp_path, flag):
    assert main(["train", "pips", flag, "-2", "--out", str(tmp_path)]) == 2  # refused before any import of torch
    err = capsys.readouterr().err
    assert f"{flag} is a number of scenes" in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())  # nothing rendered or written


def test_hands_have_as_many_standing_tiles_as_their_options_allow():
    def standing(options: SceneOptions, seed: int) -> int:
        return sum(tile.pose == STANDING for tile in make_scene("hand", seed, options).tiles)

    many = SceneOptions(standing_share=1.0, most_standing=6)
    counts = [standing(many, seed) for seed in range(30)]
    assert min(counts) >= 1 and max(counts) <= 6 and max(counts) > 3  # every hand, up to six
    assert all(standing(SceneOptions(standing_share=0.0), seed) == 0 for seed in range(30))


def test_a_hands_tiles_are_as_long_in_the_photo_as_its_options_frame_them():
    from datasets.synth.scene import render

    def median_length(options: SceneOptions) -> float:
        lengths = []
        for seed in range(6):
            _, label = render(make_scene("hand", seed, options), (640, 480), options)
            tiles = [np.array(tile["corners"]) for tile in label["tiles"] if tile["pose"] == FACE_UP]
            lengths += [float(np.linalg.norm(quad[2] - quad[1])) for quad in tiles]
        return float(np.median(lengths))

    small = median_length(SceneOptions(hand_tile_share=(0.05, 0.06)))
    assert 0.04 * 640 < small < 0.07 * 640  # a hand framed wider to fit only makes them smaller
    assert median_length(SceneOptions(hand_tile_share=(0.2, 0.22))) > 2 * small  # large hands are framed to fit


def test_a_set_recorded_before_an_option_existed_resumes_with_its_default(tmp_path):
    options = SceneOptions(distractors=False)
    write_set("hand", 1, seed=5, out_dir=tmp_path, workers=1, progress=False, options=options)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    del manifest["options"]["most_standing"]  # as written before the option was added
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    write_set("hand", 1, seed=5, out_dir=tmp_path, workers=1, progress=False, options=options)
    with pytest.raises(ValueError, match="holds a different set"):
        write_set(
            "hand", 1, seed=5, out_dir=tmp_path, workers=1, progress=False,
            options=SceneOptions(distractors=False, most_standing=4),
        )  # fmt: skip


def test_cli_eval_runs_the_models_it_is_given(tmp_path, capsys):
    """A candidate counter, detector, verifier or refiner takes the bundled one's place; what cannot use it
    says so."""
    from models import COUNTER, DETECTOR, REFINER, VERIFIER

    out = tmp_path / "hands"
    assert main(["synth", "--kind", "hand", "--n", "2", "--seed", "3", "--out", str(out), "--workers", "1"]) == 0
    report = tmp_path / "report"
    args = ["eval", "--set", str(out), "--pipeline", "pips-on-true-corners", "--out", str(report), "--worst", "0"]
    assert main([*args, "--counter", str(COUNTER)]) == 0
    assert main([*args, "--counter", str(tmp_path / "none.onnx")]) == 2
    assert "none.onnx" in capsys.readouterr().err  # the path given is the one opened
    assert main([*args, "--detector", str(DETECTOR)]) == 2
    assert main(["eval", "--set", str(out), "--pipeline", "baseline", "--counter", "x.onnx"]) == 2
    assert main([*args, "--verifier", str(VERIFIER)]) == 2  # the labelled corners need no verifier
    hubcam = ["eval", "--set", str(out), "--out", str(report), "--worst", "0", "--limit", "1"]
    assert main([*hubcam, "--verifier", str(tmp_path / "none.onnx")]) == 2
    assert "none.onnx" in capsys.readouterr().err
    assert main([*hubcam, "--verifier", str(VERIFIER)]) == 0
    assert main([*hubcam, "--pipeline", "hubcam-unverified", "--verifier", str(VERIFIER)]) == 2
    assert main([*hubcam, "--refiner", str(tmp_path / "none.onnx")]) == 2
    assert "none.onnx" in capsys.readouterr().err
    assert main([*hubcam, "--refiner", str(REFINER)]) == 0
    assert main([*hubcam, "--refiner", str(VERIFIER)]) == 2  # a refiner with no verdict, and no verifier given
    assert "no verdict" in capsys.readouterr().err
    assert main([*hubcam, "--pipeline", "hubcam-unrefined", "--refiner", str(REFINER)]) == 2
    assert main([*args, "--refiner", str(REFINER)]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_train_pips_refuses_a_missing_counter_to_start_from(capsys, tmp_path):
    pytest.importorskip("torch")
    assert main(["train", "pips", "--start-from", str(tmp_path / "none.onnx"), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "none.onnx" in err and "Traceback" not in err


@pytest.mark.parametrize("flag", ["--start-from", "--proposals-from"])
def test_cli_train_verifier_refuses_a_missing_model(flag, capsys, tmp_path):
    pytest.importorskip("torch")
    assert main(["train", "verifier", flag, str(tmp_path / "none.onnx"), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "none.onnx" in err and "Traceback" not in err
