"""Trainable weights rebuilt from an exported detector, for when its ``.pt`` is lost (train extra).

An Ultralytics ONNX export folds each batch norm into the convolution before it, so the
file holds one weight and one bias per convolution, named as in the model's state dict.
Built from the same yaml, the model takes those back exactly: each convolution gets the
folded weight, and its batch norm is set to add the folded bias back. Any running
statistics reproduce the export in eval mode; those measured on training images also make
training mode (which normalises by the batch's own statistics) start where the export is,
so a fine-tune begins from the shipped detector rather than from a jolt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from models.train.ultralytics_offline import offline_ultralytics


def folded_weights(onnx_path: Path) -> dict[str, np.ndarray]:
    """Every initializer of the export by name (``model.3.conv.weight``, ``model.3.conv.bias``, ...)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(onnx_path)).graph
    return {init.name: numpy_helper.to_array(init).copy() for init in graph.initializer}


def rebuild(
    onnx_path: Path, names: list[str], calibration: list[np.ndarray], model_yaml: str = "yolo11n-obb.yaml"
) -> Any:
    """The detector of ``onnx_path`` as a trainable OBB model of ``model_yaml`` (eval mode, float32).

    ``calibration``: ``(3, S, S)`` float 0-1 RGB letterboxed images (``padded_blob(view_of(...))[0]``,
    as the detector sees a photo at run time), whose convolution outputs set
    the batch norms' running statistics. Raises ValueError naming what did not match."""
    import torch
    from ultralytics.nn.modules import Conv
    from ultralytics.nn.tasks import OBBModel

    offline_ultralytics()
    weights = folded_weights(onnx_path)
    model = OBBModel(model_yaml, nc=len(names), verbose=False).float().eval()
    model.names = dict(enumerate(names))
    used = set()
    folded = [(name, module) for name, module in model.named_modules() if isinstance(module, Conv)]
    for name, module in folded:
        module.conv.weight.data = _take(weights, f"{name}.conv.weight", module.conv.weight, used)
    inside_folded = {id(module.conv) for _, module in folded}
    plain = [
        (name, module) for name, module in model.named_modules()
        if isinstance(module, torch.nn.Conv2d) and id(module) not in inside_folded
    ]  # fmt: skip  # the heads' last layers, and the fixed distribution-to-distance one
    for name, module in plain:  # a class head may have grown: its new classes start as built
        module.weight.data = _take(weights, f"{name}.weight", module.weight, used, grown=True)
        if module.bias is not None:
            module.bias.data = _take(weights, f"{name}.bias", module.bias, used, grown=True)
    biases = [_take(weights, f"{name}.conv.bias", module.bn.bias, used) for name, module in folded]
    means, variances = _conv_statistics(model, [module for _, module in folded], biases, calibration)
    for (_, module), bias, mean, variance in zip(folded, biases, means, variances, strict=True):
        bn = module.bn
        bn.running_mean.data, bn.running_var.data = mean, variance
        # BN(y) = (y - mean) / sqrt(var + eps) * gamma + beta; with these it is y + bias.
        bn.weight.data = torch.sqrt(variance + bn.eps)
        bn.bias.data = bias + mean
    left = sorted(set(weights) - used)
    if left:
        raise ValueError(f"{onnx_path}: weights the {model_yaml} model has no place for: {', '.join(left[:5])}")
    return model


def _take(weights: dict[str, np.ndarray], name: str, like: Any, used: set[str], grown: bool = False) -> Any:
    """The export's ``name`` shaped as ``like``; ``grown``: it may have fewer output channels (a class
    head of a model with more classes), which fill ``like``'s first ones, the rest kept."""
    import torch

    if name not in weights:
        raise ValueError(f"the export has no {name}: not a detector of this model yaml with these classes")
    value = torch.from_numpy(weights[name]).float()
    used.add(name)
    if tuple(value.shape) == tuple(like.shape):
        return value
    if grown and value.shape[1:] == like.shape[1:] and value.shape[0] < like.shape[0]:
        taken = like.detach().clone().float()
        taken[: value.shape[0]] = value
        return taken
    raise ValueError(f"{name} is {tuple(value.shape)} in the export, {tuple(like.shape)} in the model")


def _conv_statistics(
    model: Any, convs: list[Any], biases: list[Any], images: list[np.ndarray]
) -> tuple[list[Any], list[Any]]:
    """Per-channel mean and variance of each convolution's output (before its batch norm) over
    ``images``, the norms meanwhile only adding the folded biases (the exported network exactly)."""
    import torch

    for module, bias in zip(convs, biases, strict=True):  # gamma 1, mean 0, var 1 - eps: y + bias
        bn = module.bn
        bn.weight.data.fill_(1.0), bn.running_mean.data.zero_(), bn.running_var.data.fill_(1.0 - bn.eps)
        bn.bias.data = bias.clone()
    sums = [torch.zeros(m.conv.out_channels, dtype=torch.float64) for m in convs]
    squares = [torch.zeros_like(s) for s in sums]
    counts = [0] * len(convs)

    def recorder(index: int) -> Any:
        def record(_module: Any, _inputs: Any, output: Any) -> None:
            values = output.detach().double().transpose(0, 1).reshape(output.shape[1], -1)
            sums[index] += values.sum(1)
            squares[index] += (values**2).sum(1)
            counts[index] += values.shape[1]

        return record

    hooks = [module.conv.register_forward_hook(recorder(i)) for i, module in enumerate(convs)]
    try:
        with torch.no_grad():
            for image in images:
                model(torch.from_numpy(image[None]).float())
    finally:
        for hook in hooks:
            hook.remove()
    means = [(s / n).float() for s, n in zip(sums, counts, strict=True)]
    variances = [(q / n - (s / n) ** 2).clamp_min(1e-8).float() for s, q, n in zip(sums, squares, counts, strict=True)]
    return means, variances


def save_checkpoint(model: Any, path: Path, source: Path, imgsz: int) -> Path:
    """Write ``model`` where Ultralytics takes starting weights from (``pretrained=path``)."""
    import time

    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    checkpoint = {
        "model": model, "epoch": -1, "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "train_args": {"task": "obb", "imgsz": imgsz}, "rebuilt_from": str(source),
    }  # fmt: skip
    torch.save(checkpoint, path)
    return path
