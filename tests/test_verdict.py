"""The box refiner's verdict: one crop and one run of one network for whether a box is one tile and
where the tile lies (``vision.detect.refine.BoxRefiner.judge``, ``models.train.verdict``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from datasets.labels import FACE_UP
from datasets.synth.scene import FULL, make_scene, render
from models import REFINER, VERIFIER
from models.train.verifier import rectangle
from vision.detect.refine import CROP_SHAPE, OFFSETS, BoxRefiner
from vision.pipeline import HandScorer


@pytest.fixture(scope="module")
def hand() -> tuple[np.ndarray, list[np.ndarray]]:
    image, label = render(make_scene("hand", 4242, FULL), (1280, 960), FULL)
    return image, [np.array(tile["corners"], np.float32) for tile in label["tiles"] if tile["pose"] == FACE_UP]


def turned_across(tile: np.ndarray) -> np.ndarray:
    """A tile-sized box turned across the tile: over half of it and what lies beside it."""
    along = tile[2] - tile[1]
    length = float(np.linalg.norm(along))
    return rectangle(tile.mean(axis=0), np.array([-along[1], along[0]]), length, length / 2)


def test_the_bundled_refiner_says_which_boxes_are_tiles_and_places_them_as_it_refines(hand):
    image, tiles = hand
    refiner = BoxRefiner(REFINER)
    assert refiner.judges
    across = [turned_across(tile) for tile in tiles]
    placed: dict[bytes, np.ndarray] = {}
    said = refiner.judge(image, tiles + across, placed)
    assert said.shape == (2 * len(tiles),) and ((0 <= said) & (said <= 1)).all()
    assert (said[: len(tiles)] > 0.5).mean() > 0.9 and (said[len(tiles) :] < 0.5).mean() > 0.8
    refined = refiner(image, tiles + across)  # afresh: the same corners as judging placed
    assert len(placed) == 2 * len(tiles)
    for box, tile in zip(tiles + across, refined, strict=True):
        assert np.allclose(placed[box.tobytes()], tile, atol=1e-3)


def test_a_box_placed_already_is_not_run_again(hand, monkeypatch):
    image, tiles = hand
    refiner = BoxRefiner(REFINER)
    fresh = refiner(image, tiles[1:2])[0]
    marker = np.full((4, 2), -1.0, np.float32)
    runs: list[int] = []
    offsets = refiner.offsets
    monkeypatch.setattr(refiner, "offsets", lambda crops: runs.append(len(crops)) or offsets(crops))
    got = refiner(image, tiles[:2], {tiles[0].tobytes(): marker})
    assert np.array_equal(got[0], marker) and np.allclose(got[1], fresh, atol=1e-4)
    assert runs == [1]  # only the box not placed
    assert refiner(image, tiles[:1], {tiles[0].tobytes(): marker})[0] is marker and runs == [1]


def test_the_pipeline_runs_the_refiner_once_for_both_answers_and_reads_as_if_it_ran_twice(hand, monkeypatch):
    image, _ = hand
    scorer = HandScorer()
    asked: list[list[str]] = []
    session = scorer.refiner.session
    run = session.run

    class Counted:
        def run(self, outputs: list[str], feed: dict[str, np.ndarray]) -> list[np.ndarray]:
            asked.append(list(outputs))
            return run(outputs, feed)

        def get_outputs(self) -> object:
            return session.get_outputs()

    monkeypatch.setattr(scorer.refiner, "session", Counted())
    once = scorer(image)
    assert asked and all(len(outputs) == 2 for outputs in asked)  # never run for the offsets alone
    assert scorer.verifier is scorer.refiner
    called = BoxRefiner.__call__
    monkeypatch.setattr(BoxRefiner, "__call__", lambda self, image, corners, placed=None: called(self, image, corners))
    twice = scorer(image)
    assert [OFFSETS] in asked  # now the boxes were refined afresh ...
    assert once.total == twice.total and len(once.tiles) == len(twice.tiles)  # ... to the same tiles
    for a, b in zip(once.tiles, twice.tiles, strict=True):
        assert a.pips == b.pips and np.allclose(a.corners, b.corners, atol=1e-3)


def test_a_refiner_without_a_verdict_cannot_stand_in_for_the_verifier(hand):
    image, tiles = hand
    plain = BoxRefiner(VERIFIER)  # an export of crops -> logits with no 'tile' output
    assert not plain.judges
    with pytest.raises(ValueError, match="no verdict"):
        plain.judge(image, tiles, {})
    with pytest.raises(ValueError, match="no verdict"):
        HandScorer(refiner=VERIFIER)
    HandScorer(refiner=VERIFIER, verifier=VERIFIER)  # with a verifier of its own it is fine


def small_refiner(path: Path) -> Path:
    """A refiner network with random weights, exported as the bundled one is."""
    import torch

    from models.train import smallnet
    from models.train.refiner import build_model

    torch.manual_seed(0)
    return smallnet.export_onnx(build_model().eval(), path, "crops", *CROP_SHAPE)


def test_teaching_the_verdict_leaves_the_refiners_offsets_as_they_were(tmp_path):
    pytest.importorskip("torch")
    from models.train import verdict as train_verdict

    source = small_refiner(tmp_path / "refiner.onnx")
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 100, (96, *CROP_SHAPE, 3), dtype=np.uint8)
    crops[::2] += 150  # bright crops are "tiles"
    labels = np.arange(96) % 2 == 0
    recipe = train_verdict.VerdictRecipe(epochs=8, batch=16, max_lr=3e-3)
    model = train_verdict.train(source, crops, labels.astype(np.float32), recipe)
    joint = train_verdict.export_onnx(model, tmp_path / "joint.onnx")
    assert train_verdict.offsets_moved(source, joint, crops) < 1e-5
    assert BoxRefiner(joint).judges
    verdicts = train_verdict.verdicts(model, crops)
    assert verdicts[labels].min() > verdicts[~labels].max()  # it learnt, on the shared features, what it was taught


def test_a_refiner_with_a_verdict_rebuilds_into_the_refiner_alone(tmp_path):
    pytest.importorskip("torch")
    from models.train import smallnet
    from models.train import verdict as train_verdict
    from models.train.refiner import build_model

    crops = np.random.default_rng(1).integers(0, 255, (8, *CROP_SHAPE, 3), dtype=np.uint8)
    judging = train_verdict.judging(build_model().eval(), 16)
    joint = train_verdict.export_onnx(judging, tmp_path / "joint.onnx")
    rebuilt = smallnet.from_onnx(joint, build_model, crops)  # the verdict's own layers left out
    exported = BoxRefiner(joint).offsets(crops)
    assert np.allclose(smallnet.predict(rebuilt, crops), exported, atol=1e-5)


def test_cli_train_verdict_gives_its_recipe_what_it_is_asked(monkeypatch, tmp_path):
    pytest.importorskip("torch")
    from api.cli import lab_train, main
    from models.train.verdict import VerdictRecipe

    asked = []
    monkeypatch.setattr(lab_train, "trained", lambda export, out, recipe, resume: asked.append((out, recipe)) or 0)
    args = ["--scenes", "10", "--bright-scenes", "5", "--epochs", "2", "--seed", "3", "--start-from", "r.onnx"]
    assert main(["train", "verdict", *args, "--out", str(tmp_path)]) == 0
    assert main(["train", "verdict"]) == 0
    (out, recipe), (bundled, default) = asked
    assert (out, recipe.scenes, recipe.bright_scenes, recipe.epochs, recipe.seed) == (tmp_path, 10, 5, 2, 3)
    assert recipe.refiner == "r.onnx"
    assert bundled == Path("models/box-refiner") and default == VerdictRecipe()
