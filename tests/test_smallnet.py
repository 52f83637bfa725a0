"""Training the small CNNs: a run that stops goes on from its last epoch as if it had not stopped.

These need torch (the train extra) and are skipped without it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from models.train.smallnet import (
    CHECKPOINT,
    NEW_ANSWER,
    Checkpoint,
    Plan,
    as_batch,
    continued_from,
    described,
    export_onnx,
    fit,
    from_onnx,
    predict,
    small_cnn,
    write_card,
)
from vision.onnx_session import cpu_session

torch = pytest.importorskip("torch")


class Stopped(Exception):
    """Stands for a crash (or Ctrl-C) part way through a run."""


def data() -> tuple[np.ndarray, Any]:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (24, 16, 16, 3), dtype=np.uint8)
    return images, torch.from_numpy(rng.integers(0, 3, 24))


def run(checkpoint: Checkpoint | None, stop_at_batch: int | None = None) -> Any:
    images, targets = data()
    batches = [0]

    def augment(batch: Any, targets: Any, generator: Any) -> tuple[Any, Any]:
        batches[0] += 1
        if batches[0] == stop_at_batch:
            raise Stopped
        return batch * (0.8 + 0.4 * torch.rand(len(batch), 1, 1, 1, generator=generator)), targets

    return fit(
        lambda: small_cnn((4, 8), 3), images, targets, torch.nn.functional.cross_entropy, augment,
        Plan(epochs=3, batch=8, max_lr=3e-3, seed=0), checkpoint,
    )  # fmt: skip


def weights(model: Any) -> list[np.ndarray]:
    return [value.detach().numpy().copy() for value in model.state_dict().values()]


def test_a_stopped_run_resumed_ends_where_an_unbroken_run_does(tmp_path: Path) -> None:
    unbroken = weights(run(None))
    with pytest.raises(Stopped):
        run(Checkpoint.beside(tmp_path, resume=False), stop_at_batch=8)  # in the third epoch (3 batches each)
    assert (tmp_path / CHECKPOINT).exists()
    with pytest.raises(FileExistsError, match="--resume"):
        Checkpoint.beside(tmp_path, resume=False)  # starting over would lose the two epochs done
    resumed = weights(run(Checkpoint.beside(tmp_path, resume=True)))
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(unbroken, resumed, strict=True))
    assert not (tmp_path / CHECKPOINT).exists()  # a finished run leaves none behind


def test_a_checkpoint_from_another_run_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Stopped):
        run(Checkpoint.beside(tmp_path, resume=False), stop_at_batch=5)
    images, targets = data()
    with pytest.raises(ValueError, match="another run"):
        fit(
            lambda: small_cnn((4, 8), 3), images, targets, torch.nn.functional.cross_entropy, lambda b, t, g: (b, t),
            Plan(epochs=4, batch=8, max_lr=3e-3, seed=0), Checkpoint.beside(tmp_path, resume=True),
        )  # fmt: skip


def test_a_network_rebuilt_from_its_export_computes_what_the_export_does(tmp_path: Path) -> None:
    """The export folds batch norms into convolutions; rebuilt, eval mode equals the export and training
    mode (each batch's own statistics) starts near it; a network of another shape is refused."""
    pytest.importorskip("onnx")
    torch.manual_seed(1)
    trained = small_cnn((4, 8, 8), 3)
    for norm in (module for module in trained.modules() if isinstance(module, torch.nn.BatchNorm2d)):
        norm.running_mean.uniform_(-0.5, 0.5)  # statistics far from a fresh norm's, as training leaves them
        norm.running_var.uniform_(0.2, 3.0)
        norm.weight.data.uniform_(0.5, 2.0)
        norm.bias.data.uniform_(-0.5, 0.5)
    path = export_onnx(trained.eval(), tmp_path / "model.onnx", "images", 16, 16)
    images = np.random.default_rng(0).integers(0, 256, (64, 16, 16, 3), dtype=np.uint8)
    session = cpu_session(path, "exported network")  # as run time opens models (one shared thread pool)
    (exported,) = session.run(None, {"images": as_batch(images).numpy()})
    rebuilt = from_onnx(path, lambda: small_cnn((4, 8, 8), 3), images)
    assert np.allclose(predict(rebuilt, images), exported, atol=1e-4)
    with torch.no_grad():
        in_training = rebuilt.train()(as_batch(images)).numpy()
    assert np.allclose(in_training, exported, atol=1e-3)  # the batch is the calibration: its statistics
    with pytest.raises(ValueError, match="layer"):
        from_onnx(path, lambda: small_cnn((4, 16, 8), 3), images)
    continued = continued_from(path, lambda: small_cnn((4, 8, 8), 3), images, seed=0)()  # as the trainers go on
    assert np.allclose(predict(continued, images), exported, atol=1e-4)
    grown = predict(from_onnx(path, lambda: small_cnn((4, 8, 8), 4), images), images)  # a new last answer
    assert np.allclose(grown[:, :3], exported, atol=1e-4) and np.allclose(grown[:, 3], NEW_ANSWER)
    with pytest.raises(ValueError, match="layer"):
        from_onnx(path, lambda: small_cnn((4, 8, 8), 2), images)  # never shrunk


def test_a_strided_stem_steps_where_the_plain_network_pools_and_takes_its_weights(tmp_path: Path) -> None:
    """The strided network's first convolution works out every other position and nothing pools after
    it, so it sees what the plain one sees at the same map sizes; its weights are the plain one's
    shapes, so a plain export rebuilds into it (to go on training from the bundled weights)."""
    pytest.importorskip("onnx")
    torch.manual_seed(2)
    plain, strided = small_cnn((4, 8, 8), 3), small_cnn((4, 8, 8), 3, strided_stem=True)
    shapes = [tuple(weight.shape) for weight in plain.state_dict().values()]
    assert [tuple(weight.shape) for weight in strided.state_dict().values()] == shapes
    first = strided[0][0]
    assert first.stride == (2, 2) and not any(isinstance(layer, torch.nn.MaxPool2d) for layer in strided[0])
    assert sum(isinstance(layer, torch.nn.MaxPool2d) for layer in strided.modules()) == 1  # the second block's
    images = np.random.default_rng(0).integers(0, 256, (16, 16, 16, 3), dtype=np.uint8)
    with torch.no_grad():
        maps = strided[0](as_batch(images))
    assert tuple(maps.shape) == (16, 4, 8, 8)  # as the plain block's pooling leaves them
    path = export_onnx(plain.eval(), tmp_path / "model.onnx", "images", 16, 16)
    rebuilt = from_onnx(path, lambda: small_cnn((4, 8, 8), 3, strided_stem=True), images)
    assert torch.equal(rebuilt[0][0].weight, torch.from_numpy(onnx_weights(path)[0].copy()))


def onnx_weights(path: Path) -> list[np.ndarray]:
    """The weights of an export's convolutions and linear layers, in order."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    named = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    return [named[node.input[1]] for node in graph.node if node.op_type in ("Conv", "Gemm")]


def test_a_model_file_is_described_by_its_path_and_digest(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"weights")
    assert described(path) == f"{path}, sha256 {hashlib.sha256(b'weights').hexdigest()[:16]}"
    assert described(path, "models/x.onnx").startswith("models/x.onnx, sha256 ")


def test_a_card_is_written_dated_and_naming_the_model_it_went_on_from(tmp_path):
    begun = tmp_path / "begun.onnx"
    begun.write_bytes(b"weights")
    out = tmp_path / "run"
    written = write_card(out, {"task": "count"}, str(begun))
    assert json.loads((out / "card.json").read_text()) == written
    assert written["task"] == "count" and written["trained_on"][:2] == "20"
    assert written["started_from"] == described(begun)
    assert "started_from" not in write_card(out, {"task": "count"})
