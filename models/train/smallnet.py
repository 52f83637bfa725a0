"""The small CNNs (the pip counter, the tile verifier and the box refiner): their shape, training
loop (resumable: ``Checkpoint``), augmentation and ONNX export. Training only (torch, the train
extra); run time reads the ONNX.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from tqdm import tqdm

from vision.onnx_session import repository_path


def small_cnn(widths: Sequence[int], outputs: int, strided_stem: bool = False) -> Any:
    """Convolution, batch norm, ReLU and 2x pooling for each of ``widths[:-1]``, one more
    convolution to ``widths[-1]``, global average pooling and a linear layer to ``outputs``.

    ``strided_stem``: the first convolution steps two pixels instead of being pooled after, so it
    works out a quarter of the positions (at full resolution, over only three channels, it is the
    slowest layer for its arithmetic). Its weights keep their shapes and places, so a network
    exported without it can be rebuilt with it (``from_onnx``) and trained on from there."""
    from torch import nn

    channels = (3, *widths[:-1])
    strided = [strided_stem and index == 0 for index in range(len(channels) - 1)]
    return nn.Sequential(
        *[halving_block(a, b, steps) for a, b, steps in zip(channels[:-1], channels[1:], strided, strict=True)],
        nn.Conv2d(widths[-2], widths[-1], 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(widths[-1], outputs),
    )


def halving_block(inputs: int, outputs: int, strided: bool = False) -> Any:
    """Convolution, batch norm and ReLU, the map then halved: by 2x max pooling, or (``strided``) by the
    convolution stepping two pixels. Either way the same four layers hold the same weights."""
    from torch import nn

    stride, pool = (2, nn.Identity()) if strided else (1, nn.MaxPool2d(2))
    return nn.Sequential(*conv_block(inputs, outputs, stride), pool)


def conv_block(inputs: int, outputs: int, stride: int = 1) -> list[Any]:
    """A 3x3 convolution, batch norm and ReLU."""
    from torch import nn

    return [nn.Conv2d(inputs, outputs, 3, stride=stride, padding=1), nn.BatchNorm2d(outputs), nn.ReLU()]


def held_out(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded shuffle of ``count`` examples split into a tenth held out for measuring and the rest
    to train on: ``(held, used)`` indices."""
    order = np.random.default_rng(seed).permutation(count)
    return order[: count // 10], order[count // 10 :]


def as_batch(images_uint8: np.ndarray) -> Any:
    """``(n, H, W, 3)`` uint8 images as the ``(n, 3, H, W)`` float 0-1 tensor the networks take."""
    import torch

    return torch.from_numpy(images_uint8).permute(0, 3, 1, 2).float() / 255


def predict(model: Any, images_uint8: np.ndarray, chunk: int = 512) -> np.ndarray:
    """The model's outputs for ``(n, H, W, 3)`` uint8 images, ``chunk`` at a time."""
    import torch

    with torch.no_grad():
        starts = range(0, len(images_uint8), chunk)
        parts = [model(as_batch(images_uint8[start : start + chunk])).numpy() for start in starts]
    return np.concatenate(parts)


CHECKPOINT = "checkpoint.pt"
"""An unfinished run's state, beside the model it is training (gone once the run finishes)."""


@dataclass(frozen=True)
class Checkpoint:
    """Where a run keeps its state after every epoch, and whether to go on from what is there."""

    path: Path
    resume: bool = False

    @classmethod
    def beside(cls, out_dir: Path, resume: bool) -> Checkpoint:
        """The checkpoint in ``out_dir``, refused at once (before any rendering) when an unfinished
        run left one there and ``resume`` is not asked for: starting over would lose it."""
        checkpoint = cls(out_dir / CHECKPOINT, resume)
        if checkpoint.path.exists() and not resume:
            raise FileExistsError(
                f"an unfinished run left {checkpoint.path}: --resume goes on from it, or delete it to start over"
            )
        return checkpoint


class Schedule(Protocol):
    """How long and how fast a model learns; every recipe has these fields."""

    @property
    def epochs(self) -> int: ...
    @property
    def batch(self) -> int: ...
    @property
    def max_lr(self) -> float: ...
    @property
    def seed(self) -> int: ...


@dataclass(frozen=True)
class Plan:
    """A ``Schedule`` on its own (tests; recipes are schedules themselves)."""

    epochs: int
    batch: int
    max_lr: float
    seed: int


def fit(
    build: Callable[[], Any],
    images_uint8: np.ndarray,
    targets: Any,
    loss: Callable[[Any, Any], Any],
    augment: Callable[[Any, Any], Any],
    schedule: Schedule,
    checkpoint: Checkpoint | None = None,
) -> Any:
    """Build (after seeding) and train a model on ``(n, H, W, 3)`` uint8 images with AdamW and a
    one-cycle ``schedule``; ``augment(batch, targets, generator)`` changes each batch and its targets alike
    (``images_only`` for targets that do not turn with the image); the model comes back in
    eval mode. With a ``checkpoint`` every finished epoch is saved there (model, optimiser,
    schedule and random state), so a run that stops goes on from its last epoch exactly as it would
    have (``resume``); the file is removed once training ends."""
    import torch

    epochs, batch, max_lr, seed = schedule.epochs, schedule.batch, schedule.max_lr, schedule.seed
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    images = as_batch(images_uint8)
    model = build()
    optimiser = torch.optim.AdamW(model.parameters(), lr=max_lr / 1.5, weight_decay=1e-4)
    steps = epochs * ((len(images) + batch - 1) // batch)
    one_cycle = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=max_lr, total_steps=steps)
    generator = torch.Generator().manual_seed(seed)
    run = {"epochs": epochs, "batch": batch, "max_lr": max_lr, "seed": seed, "images": tuple(images.shape)}
    done = 0
    if checkpoint is not None and checkpoint.resume and checkpoint.path.exists():
        state = torch.load(checkpoint.path, weights_only=False)
        if state["run"] != run:
            raise ValueError(
                f"{checkpoint.path} is from another run ({state['run']}, this one {run}): delete it to start over"
            )
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        one_cycle.load_state_dict(state["schedule"])
        generator.set_state(state["generator"])
        done = state["epoch"]
    model.train()
    for epoch in tqdm(range(done, epochs), desc="training", unit="epoch", initial=done, total=epochs):
        order = torch.randperm(len(images), generator=generator)
        for start in range(0, len(images), batch):
            picked = order[start : start + batch]
            inputs, wanted = augment(images[picked], targets[picked], generator)
            value = loss(model(inputs), wanted)
            optimiser.zero_grad()
            value.backward()
            optimiser.step()
            one_cycle.step()
        if checkpoint is not None:
            state = {
                "run": run, "epoch": epoch + 1, "model": model.state_dict(), "optimiser": optimiser.state_dict(),
                "schedule": one_cycle.state_dict(), "generator": generator.get_state(),
            }  # fmt: skip
            checkpoint.path.parent.mkdir(parents=True, exist_ok=True)
            partial = checkpoint.path.with_suffix(".partial")
            torch.save(state, partial)
            os.replace(partial, checkpoint.path)  # a crash while saving leaves the last whole one
    if checkpoint is not None:
        checkpoint.path.unlink(missing_ok=True)
    return model.eval()


def images_only(augment: Callable[[Any, Any], Any]) -> Callable[[Any, Any, Any], tuple[Any, Any]]:
    """An augmentation of images alone (``augment(batch, generator)``) as ``fit`` takes one: the targets
    (a class, a flag, offsets) stay as they are."""

    def paired(batch: Any, targets: Any, generator: Any) -> tuple[Any, Any]:
        return augment(batch, generator), targets

    return paired


def flips(batch: Any, generator: Any, transpose: bool = False) -> Any:
    """Mirror left-right and up-down, each half the time (and swap the axes, for square inputs)."""
    import torch

    if torch.rand(1, generator=generator) < 0.5:
        batch = batch.flip(3)
    if torch.rand(1, generator=generator) < 0.5:
        batch = batch.flip(2)
    if transpose and torch.rand(1, generator=generator) < 0.5:
        batch = batch.transpose(2, 3)
    return batch


def flipped_photometric(batch: Any, generator: Any) -> Any:
    """``flips`` (both ways) then ``photometric``: the box crops' augmentation (verifier, verdict)."""
    return photometric(flips(batch, generator), generator)


def photometric(batch: Any, generator: Any) -> Any:
    """``(n, 3, H, W)`` float 0-1 images with random contrast, brightness, colour cast, grey,
    blur and noise, each image drawn on its own. The renderer has one look and real photos
    others: a first tile verifier, trained with brightness jitter only (and tight boxes, and
    half the scenes), turned away 29 of 253 real tiles; with this (and the rest), 8."""
    import torch
    from torch import nn

    n = len(batch)

    def rand(*shape: int) -> Any:
        return torch.rand(*shape, generator=generator)

    mean = batch.mean(dim=(1, 2, 3), keepdim=True)
    batch = (batch - mean) * (0.7 + 0.6 * rand(n, 1, 1, 1)) + mean
    batch = batch * (0.5 + 0.9 * rand(n, 1, 1, 1)) * (0.85 + 0.3 * rand(n, 3, 1, 1))
    grey = rand(n) < 0.2
    batch[grey] = batch[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    blurred = rand(n) < 0.3
    batch[blurred] = nn.functional.avg_pool2d(batch[blurred], 3, stride=1, padding=1, count_include_pad=False)
    batch = batch + torch.randn(batch.shape, generator=generator) * 0.03 * rand(n, 1, 1, 1)
    return batch.clamp(0, 1)


def glossy_patches(batch: Any, generator: Any, share: float) -> Any:
    """``(n, 3, H, W)`` float 0-1 images, ``share`` of them under a specular reflection: a few
    bright blotches with ragged edges and dark gaps (a lamp or window mirrored in a glossy face),
    laid on as light is (screen blending), so pips under them fade but still show. The renderer's
    glare is one soft ellipse; real glossy tiles mirror patchier light, in which a counter trained
    without this saw 3 or 16 pips on a blank half, so unsurely that the tile was left out
    (IMG_6210.jpg in ../shared/real, in six of benchmarks/real_variants.py's variants). Nothing
    is drawn from ``generator`` at ``share`` 0."""
    import torch
    from torch import nn

    if share <= 0:
        return batch
    n, _, height, width = batch.shape

    def rand(*shape: int) -> Any:
        return torch.rand(*shape, generator=generator)

    def noise(cells: int, mode: str) -> Any:
        return nn.functional.interpolate(rand(n, 1, cells, cells), size=(height, width), mode=mode, align_corners=False)

    blotches = (noise(4, "bicubic") > 0.65 + 0.2 * rand(n, 1, 1, 1)).float()
    gaps = (noise(10, "bilinear") > 0.25 + 0.35 * rand(n, 1, 1, 1)).float()
    light = nn.functional.avg_pool2d(blotches * gaps, 3, stride=1, padding=1, count_include_pad=False)
    strength = (0.4 + 0.45 * rand(n, 1, 1, 1)) * (rand(n, 1, 1, 1) < share).float()
    return (1 - (1 - batch) * (1 - strength * light)).clamp(0, 1)


def export_onnx(model: Any, path: Path, input_name: str, height: int, width: int) -> Path:
    """ONNX with input ``input_name`` ``(n, 3, height, width)`` float 0-1 BGR and output ``logits``."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    example = torch.rand(2, 3, height, width)
    torch.onnx.export(
        model, example, str(path), input_names=[input_name], output_names=["logits"],
        dynamic_axes={input_name: {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False,
    )  # fmt: skip
    return path


def from_onnx(path: Path, build: Callable[[], Any], calibration_uint8: np.ndarray) -> Any:
    """The network of ``build()`` with the weights of its ONNX export at ``path`` (eval mode), for going on
    training a bundled model whose checkpoint is gone.

    The export folds each batch norm into the convolution before it, so every convolution takes the
    folded weight and bias back, in order, and each batch norm is set to give back what it is given:
    its running statistics are those of its input over ``calibration_uint8`` (``(n, H, W, 3)``
    training images) and its scale and shift undo them. So eval mode reproduces the export, and
    training mode, which normalises by each batch's own statistics, starts near it rather than from a
    jolt. The last layer may have more outputs than the export (an answer the network is to learn
    anew): the export's are copied and each new one starts from no weights and a bias of NEW_ANSWER,
    so it is unlikely until it is learnt. Raises ValueError naming any other layer whose shape does not
    match. Only the layers the export's first output is worked out from are taken: a box refiner's
    export with a verdict (``models.train.verdict``) rebuilds into the refiner alone."""
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    graph = onnx.load(str(path)).graph
    weights = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    exported = [node for node in feeding(graph, graph.output[0].name) if node.op_type in ("Conv", "Gemm")]
    model = build().eval()
    layers = [module for module in model.modules() if isinstance(module, nn.Conv2d | nn.Linear)]
    if len(layers) != len(exported):
        raise ValueError(f"{path} has {len(exported)} convolutions and linear layers, the network {len(layers)}")
    for index, (layer, node) in enumerate(zip(layers, exported, strict=True)):
        for parameter, name in zip((layer.weight, layer.bias), node.input[1:3], strict=True):
            value = torch.from_numpy(weights[name].copy())
            grown = index == len(layers) - 1 and value.shape[1:] == parameter.shape[1:] and len(value) < len(parameter)
            if grown:
                extra = torch.full(
                    (len(parameter) - len(value), *value.shape[1:]), NEW_ANSWER if value.ndim == 1 else 0.0
                )
                value = torch.cat([value, extra.to(value.dtype)])
            if value.shape != parameter.shape:
                shapes = f"{tuple(value.shape)}, the network's {tuple(parameter.shape)}"
                raise ValueError(f"{path}: layer {index} ({name}) is {shapes}")
            parameter.data = value
    norms = [module for module in model.modules() if isinstance(module, nn.BatchNorm2d)]
    for norm in norms:  # as given, first, so each norm's input is the export's
        norm.running_mean.zero_()
        norm.running_var.fill_(1 - norm.eps)
        norm.weight.data.fill_(1.0)
        norm.bias.data.zero_()
    seen: dict[int, list[Any]] = {}

    def keep(module: Any, inputs: tuple[Any, ...]) -> None:
        seen.setdefault(id(module), []).append(inputs[0])

    hooks = [norm.register_forward_pre_hook(keep) for norm in norms]
    with torch.no_grad():
        model(as_batch(calibration_uint8))
    for hook in hooks:
        hook.remove()
    for norm in norms:
        given = torch.cat(seen[id(norm)])
        mean, var = given.mean(dim=(0, 2, 3)), given.var(dim=(0, 2, 3), unbiased=False)
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(var)
        norm.weight.data = torch.sqrt(var + norm.eps)
        norm.bias.data = mean.clone()
    return model


def feeding(graph: Any, output: str) -> list[Any]:
    """The nodes of an ONNX ``graph`` (in its order) that ``output`` is worked out from."""
    needed, kept = {output}, []
    for node in reversed(graph.node):  # an ONNX graph lists its nodes in an order they can run in
        if needed & set(node.output):
            kept.append(node)
            needed |= set(node.input)
    return kept[::-1]


NEW_ANSWER = -4.0
"""The bias a new output of a network rebuilt from its export starts from (``from_onnx``): its logit
below the others', so that the answers learnt before keep their probabilities at first."""
CALIBRATION = 2048
"""Training images whose statistics set the batch norms of a network rebuilt from its export."""


def continued_from(path: Path, build: Callable[[], Any], images_uint8: np.ndarray, seed: int) -> Callable[[], Any]:
    """A builder of ``build()``'s network with the weights of the export at ``path`` (``from_onnx``), its
    batch norms calibrated on CALIBRATION of ``images_uint8`` drawn with ``seed``: for ``fit`` to go on
    training a bundled model."""
    calibration = images_uint8[np.random.default_rng(seed).permutation(len(images_uint8))[:CALIBRATION]]
    return functools.partial(from_onnx, path, build, calibration)


def described(path: Path, shown: str | None = None) -> str:
    """``PATH, sha256 DIGEST`` (its first 16 hex digits; ``shown`` in place of the path, which is
    otherwise given from the repository's root where it lies inside it): which model file a card means."""
    return f"{shown or repository_path(path)}, sha256 {hashlib.sha256(path.read_bytes()).hexdigest()[:16]}"


def write_card(out_dir: Path, card: dict[str, Any], start_from: str = "") -> dict[str, Any]:
    """Write a model's ``card`` beside it (``out_dir/card.json``), dated, and naming the model it went on
    training from (``start_from``; none: trained from nothing); the card as written."""
    card = {**card, "trained_on": time.strftime("%Y-%m-%d")}
    if start_from:
        card["started_from"] = described(Path(start_from))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    return card
