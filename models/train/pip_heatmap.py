"""Training the pip-centre heatmap counter (issue 67) on the CPU, in resumable runs.

The network is fully convolutional: 3x3 convolutions at full size and on a 24 x 24 map, then on a 12 x 12
one, enlarged again and added to the 24 x 24 map (a small U-Net), so each place of a 48 px half's 24 x 24
map sees about 41 px: a pip and its neighbours. (Dilated convolutions would see as far, but ran 5-10 times
slower than plain ones on this CPU with torch 2.14: 32 channels at 24 x 24.) A 1x1 head gives how likely
each place is a pip's centre, taught by CenterNet's focal loss on a Gaussian round each centre
(``targets``). The count is the number of peaks (``vision.read.pip_peaks``).

The halves come from the cache ``datasets.synth.pip_halves`` renders once; grain, specks, blur, glare,
lost resolution, colour and turns are drawn here, new every epoch. Every epoch is checkpointed (model,
optimiser, epoch, random state, curve) to ``checkpoint.pt`` beside the model, and the ONNX and its card are
written again, so a run stopped anywhere loses at most one epoch and ``--resume`` goes on from it:

    nice -n 10 .venv/bin/python -m models.train.pip_heatmap --epochs 30 --hours 1.5
    nice -n 10 .venv/bin/python -m models.train.pip_heatmap --resume --epochs 60 --hours 1.5
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from datasets.synth.dataset import GENERATOR_VERSION
from datasets.synth.pip_halves import BACK, CACHE_ROOT, CACHE_VERSION, CUTS, HALF, SPLITS, PipHalves, load_split
from models.train.smallnet import glossy_patches
from vision.read.pip_peaks import STEP, THRESHOLD, UNSURE_BAND, count_peaks

OUT_DIR = Path("models/pip-heatmap")
CHECKPOINT = "checkpoint.pt"
MOST_PIPS = 40
"""The most pip centres a cached crop holds (a slid box can show both halves of a double-18)."""
FIRST_BIAS = -2.19
"""The head's first bias: every place a pip's centre at 0.1 (CenterNet's start)."""
BLOB = 0.8
"""The Gaussian's spread round each centre, in map places (a double-18 half's pips are 3-4 places apart)."""


@dataclass(frozen=True)
class Recipe:
    epochs: int = 30
    """Epochs in the plan; the learning rate falls along a cosine over them (a resumed run may raise it)."""
    epoch_halves: int = 16_000
    """Halves an epoch learns from, drawn without repeats from the cache's crops (with repeats only when it holds
    fewer): epochs stay alike while the cache grows, and a checkpoint comes every few minutes."""
    batch: int = 128
    lr: float = 2e-3
    weight_decay: float = 1e-4
    seed: int = 67
    widths: tuple[int, int, int] = (16, 24, 40)
    """The channels of the stem (48 x 48), of the fine map (24 x 24) and of the coarse one (12 x 12)."""
    coarse_convs: int = 3
    train_shards: int = 0
    """How many of the cache's training shards to learn from (0: all there are, looked for again before every
    epoch, so a run can start while the cache is still being rendered; each epoch's count is on the curve)."""
    glossy: float = 0.25
    specks: float = 0.5
    grain: float = 0.6
    blur: float = 0.25
    coarse: float = 0.2
    """Share of halves drawn at a lower resolution and enlarged again (small tiles in the photo)."""
    grey: float = 0.1
    warmup_batches: int = 300


def build_model(recipe: Recipe = Recipe()) -> Any:
    """The heatmap network (``Recipe.widths``, ``Recipe.coarse_convs``)."""
    from torch import nn

    def block(inputs: int, outputs: int, stride: int = 1) -> Any:
        return nn.Sequential(
            nn.Conv2d(inputs, outputs, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(outputs),
            nn.ReLU(inplace=True),
        )

    stem, fine, coarse = recipe.widths

    class PipHeatmap(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fine = nn.Sequential(block(3, stem), block(stem, fine, 2), block(fine, fine))
            self.coarse = nn.Sequential(
                block(fine, coarse, 2), *[block(coarse, coarse) for _ in range(recipe.coarse_convs)]
            )
            self.up = nn.Conv2d(coarse, fine, 1)
            self.fuse = block(fine, fine)
            self.head = nn.Conv2d(fine, 1, 1)
            nn.init.constant_(self.head.bias, FIRST_BIAS)

        def forward(self, halves: Any) -> Any:
            near = self.fine(halves)
            around = nn.functional.interpolate(self.up(self.coarse(near)), scale_factor=2, mode="nearest")
            return self.head(self.fuse(near + around))

    return PipHeatmap()


class Probabilities:
    """The exported graph: the logits' sigmoid (``vision.read.pip_peaks`` reads probabilities)."""

    def __new__(cls, model: Any) -> Any:
        import torch
        from torch import nn

        class Wrapped(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, halves: Any) -> Any:
                return torch.sigmoid(self.model(halves))

        return Wrapped()


def receptive_field(recipe: Recipe = Recipe()) -> int:
    """Half pixels each place sees: the stem 3, the fine map's two convolutions +2 and +4, the coarse map's
    stepping one +4 and each of its own +8, and the fusing convolution after the coarse map is enlarged +4."""
    return 3 + 2 + 4 + 4 + 8 * recipe.coarse_convs + 4


def targets(points: Any, real: Any, side: int) -> Any:
    """``(n, 1, side, side)`` CenterNet targets from ``(n, k, 2)`` centres in half pixels (``real`` marks
    which are centres): a Gaussian of BLOB places round each, exactly 1 at the place each rounds to."""
    import torch

    places = (points - (STEP - 1) / 2) / STEP
    places = places.clamp(0, side - 1)
    grid = torch.arange(side, dtype=torch.float32)
    along_x = torch.exp(-((grid[None, None, :] - places[..., :1]) ** 2) / (2 * BLOB**2))  # (n, k, side)
    along_y = torch.exp(-((grid[None, None, :] - places[..., 1:]) ** 2) / (2 * BLOB**2))
    bumps = along_y[:, :, :, None] * along_x[:, :, None, :] * real[:, :, None, None]
    wanted = bumps.amax(dim=1) if bumps.shape[1] else torch.zeros(len(points), side, side)
    rounded = places.round().long()
    n_index = torch.arange(len(points))[:, None].expand_as(real)
    wanted[n_index[real], rounded[..., 1][real], rounded[..., 0][real]] = 1.0
    return wanted[:, None]


def focal_loss(found: Any, wanted: Any) -> Any:
    """CenterNet's focal loss on logits ``found`` against ``targets``' ``wanted``, per pip centre."""
    import torch
    from torch import nn

    centre = wanted >= 1 - 1e-6
    height = torch.sigmoid(found)
    on = (1 - height) ** 2 * nn.functional.logsigmoid(found)
    off = (1 - wanted) ** 4 * height**2 * nn.functional.logsigmoid(-found)
    return -(torch.where(centre, on, off)).sum() / centre.sum().clamp(min=1)


def turned(images: Any, points: Any, generator: Any) -> tuple[Any, Any]:
    """Each half mirrored either way and its axes swapped, each half the time, its centres with it (a count is
    the same however a half lies: real sets lay some counts across)."""
    import torch

    n, _, side, _ = images.shape
    last = side - 1
    for flip in range(3):
        chosen = torch.rand(n, generator=generator) < 0.5
        if not chosen.any():
            continue
        if flip == 0:
            images[chosen] = images[chosen].flip(3)
            points[chosen, :, 0] = last - points[chosen, :, 0]
        elif flip == 1:
            images[chosen] = images[chosen].flip(2)
            points[chosen, :, 1] = last - points[chosen, :, 1]
        else:
            images[chosen] = images[chosen].transpose(2, 3)
            points[chosen] = points[chosen].flip(2)
    return images, points


def spoilt(images: Any, recipe: Recipe, generator: Any) -> Any:
    """``(n, 3, px, px)`` float 0-1 halves with what photos do to them, each drawn on its own: colour, light
    and contrast, grey, lost resolution, blur, specks (dust, crumbs, printing flecks: a pixel or two, smaller
    than any pip), grain and glossy glare."""
    import torch
    from torch import nn

    n, _, side, _ = images.shape

    def rand(*shape: int) -> Any:
        return torch.rand(*shape, generator=generator)

    def some(share: float) -> Any:
        return rand(n) < share

    mean = images.mean(dim=(1, 2, 3), keepdim=True)
    images = (images - mean) * (0.6 + 0.7 * rand(n, 1, 1, 1)) + mean
    images = images * (0.55 + 0.8 * rand(n, 1, 1, 1)) * (0.85 + 0.3 * rand(n, 3, 1, 1))
    grey = some(recipe.grey)
    images[grey] = images[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    coarse = some(recipe.coarse)
    if coarse.any():
        size = int(side * (0.45 + 0.35 * float(rand(1))))
        small = nn.functional.interpolate(images[coarse], size=(size, size), mode="area")
        images[coarse] = nn.functional.interpolate(small, size=(side, side), mode="bilinear", align_corners=False)
    blurred = some(recipe.blur)
    if blurred.any():
        images[blurred] = nn.functional.avg_pool2d(images[blurred], 3, stride=1, padding=1, count_include_pad=False)
    specked = some(recipe.specks)
    if specked.any():
        density = 0.012 * rand(n, 1, 1, 1)
        dots = (rand(n, 1, side, side) < density).float()
        wide = rand(n, 1, 1, 1) < 0.4  # some specks 2 x 2
        dots = torch.where(wide, nn.functional.max_pool2d(dots, 2, stride=1, padding=1)[..., :side, :side], dots)
        ink = torch.where(rand(n, 1, 1, 1) < 0.7, 0.05 + 0.3 * rand(n, 3, 1, 1), 0.7 + 0.3 * rand(n, 3, 1, 1))
        strength = dots * (0.4 + 0.6 * rand(n, 1, side, side)) * specked[:, None, None, None].float()
        images = images * (1 - strength) + ink * strength
    noisy = some(recipe.grain)
    images = (
        images + torch.randn(images.shape, generator=generator) * 0.06 * rand(n, 1, 1, 1) * noisy[:, None, None, None]
    )
    return glossy_patches(images.clamp(0, 1), generator, recipe.glossy)


@dataclass(frozen=True)
class Split:
    """A cache split held as tensors: images ``(n, 3, px, px)`` uint8, centres padded to MOST_PIPS."""

    images: Any
    points: Any
    real: Any
    counts: np.ndarray
    roles: np.ndarray

    @classmethod
    def of(cls, crops: PipHalves) -> Split:
        import torch

        points, real = crops.padded_points(MOST_PIPS)
        images = torch.from_numpy(np.ascontiguousarray(crops.halves.transpose(0, 3, 1, 2)))
        return cls(images, torch.from_numpy(points), torch.from_numpy(real), crops.counts.astype(np.int64), crops.roles)


def heatmaps(model: Any, images_uint8: Any, chunk: int = 1024) -> np.ndarray:
    """``(n, h, w)`` probabilities for ``(n, 3, px, px)`` uint8 tensors (eval mode)."""
    import torch

    model.eval()
    with torch.no_grad():
        parts = [
            torch.sigmoid(model(images_uint8[s : s + chunk].float() / 255))[:, 0].numpy()
            for s in range(0, len(images_uint8), chunk)
        ]
    return np.concatenate(parts)


def measured(model: Any, split: Split, most: int = 3000) -> dict[str, Any]:
    """Per-half counting on ``split``'s HALF crops (the first ``most``): right (unsure ones count as wrong),
    unsure share, right among the sure, and the loss."""
    import torch

    halves = np.flatnonzero(split.roles == HALF)
    picked = halves[:: max(1, len(halves) // most)][:most]  # spread over every scene of the split
    maps = heatmaps(model, split.images[picked])
    counts, unsure = count_peaks(maps, THRESHOLD, UNSURE_BAND)
    wanted = split.counts[picked]
    right = (counts == wanted) & ~unsure
    sure = ~unsure
    with torch.no_grad():
        logits = torch.logit(torch.from_numpy(maps).clamp(1e-6, 1 - 1e-6))[:, None]
        losses = [
            float(
                focal_loss(
                    logits[s : s + 512],
                    targets(split.points[picked[s : s + 512]], split.real[picked[s : s + 512]], maps.shape[-1]),
                )
            )
            * len(logits[s : s + 512])
            for s in range(0, len(picked), 512)
        ]
        loss = sum(losses) / max(len(picked), 1)
    high = wanted >= 13
    return {
        "halves": len(picked),
        "right": round(float(right.mean()), 4),
        "unsure": round(float(unsure.mean()), 4),
        "right_when_sure": round(float((counts == wanted)[sure].mean()) if sure.any() else 0.0, 4),
        "right_13_18": round(float(right[high].mean()) if high.any() else 0.0, 4),
        "loss": round(loss, 4),
    }


def learning_rate(recipe: Recipe, step: int, epochs_done: float) -> float:
    """Linear warm-up over the first batches, then a cosine from ``lr`` to a twentieth of it over the plan's
    epochs (by epochs done, so a cache that grows between epochs does not move it)."""
    if step < recipe.warmup_batches:
        return recipe.lr * (step + 1) / recipe.warmup_batches
    done = min(epochs_done / recipe.epochs, 1.0)
    return recipe.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * done)))


def export_onnx(model: Any, path: Path, half_px: int) -> Path:
    """ONNX (opset 17, as ``models.train.smallnet.export_onnx``) with input ``halves`` ``(n, 3, px, px)`` float
    0-1 BGR and output ``heatmap`` ``(n, 1, px / 2, px / 2)`` probabilities."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    model.eval()
    partial = path.with_suffix(".partial.onnx")
    torch.onnx.export(
        Probabilities(model), torch.rand(2, 3, half_px, half_px), str(partial), input_names=["halves"],
        output_names=["heatmap"], dynamic_axes={"halves": {0: "n"}, "heatmap": {0: "n"}}, opset_version=17,
        dynamo=False,
    )  # fmt: skip
    os.replace(partial, path)
    return path


def write_card(out_dir: Path, recipe: Recipe, state: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    parameters = sum(
        int(np.prod(value.shape))
        for key, value in state["model"].items()
        if "running" not in key and "num_batches" not in key
    )
    card = {
        "model": "model.onnx",
        "task": f"a heatmap of pip centres on one half; the count is its peaks at {THRESHOLD} or higher "
        f"(vision/read/pip_peaks.py), a peak within {UNSURE_BAND[0]}-{UNSURE_BAND[1]} makes the half unsure",
        "input": "(n, 3, 48, 48) float 0-1, BGR, the tile's end on the left (vision/read/halves.py)",
        "output": "heatmap (n, 1, 24, 24), probabilities: place j's centre is half pixel 2j + 0.5",
        "parameters": parameters,
        "receptive_field_px": receptive_field(recipe),
        "recipe": asdict(recipe),
        "data": data,
        "epochs_done": state["epoch"],
        "training_seconds": round(state["seconds"]),
        "curve": state["curve"],
        "held_out": "val: the training looks' scenes never trained on; unseen: UNSEEN_MAKERS (layouts held out of "
        "all training, datasets.synth.pips.HELD_OUT), never trained on; both on HALF crops, unsure counted wrong",
        "resume": "nice -n 10 .venv/bin/python -m models.train.pip_heatmap --resume --epochs N --hours H",
        "trained_on": time.strftime("%Y-%m-%d"),
    }
    (out_dir / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    return card


def train(
    out_dir: Path, recipe: Recipe, cache: Path, resume: bool, hours: float, log_every: int = 50
) -> dict[str, Any]:
    import torch

    torch.set_num_threads(2)
    checkpoint = out_dir / CHECKPOINT
    state: dict[str, Any] | None = None
    if checkpoint.exists():
        if not resume:
            raise FileExistsError(f"{checkpoint} holds a run: --resume goes on from it, or move it away to start over")
        state = torch.load(checkpoint, weights_only=False)
        kept = Recipe(**{**state["recipe"], "widths": tuple(state["recipe"]["widths"])})
        free = ("epochs", "train_shards")
        changed = {
            k: (v, getattr(recipe, k)) for k, v in asdict(kept).items() if k not in free and v != getattr(recipe, k)
        }
        if changed:
            raise ValueError(f"{checkpoint} was trained with another recipe (field: kept, asked): {changed}")
        recipe = dataclasses.replace(kept, epochs=recipe.epochs)
    elif resume:
        raise FileNotFoundError(f"no checkpoint to resume at {checkpoint}")
    from datasets.synth.pip_halves import shard_paths

    val, unseen = Split.of(load_split(cache, "val")), Split.of(load_split(cache, "unseen"))
    training, data = None, {}

    def shards_now() -> int:
        there = len(shard_paths(cache, "train"))
        return min(there, recipe.train_shards) if recipe.train_shards else there

    def loaded(shards: int) -> tuple[Split, dict[str, Any]]:
        crops = load_split(cache, "train", shards)
        print(f"learning from {len(crops)} training crops ({shards} shards); {len(val.roles)} val, "
              f"{len(unseen.roles)} unseen crops measured", flush=True)  # fmt: skip
        return Split.of(crops), {
            "cache": f"{cache} ({CACHE_VERSION}; python -m datasets.synth.pip_halves), generator {GENERATOR_VERSION}",
            "first_seeds": {split: base for split, (base, _) in SPLITS.items()},
            "mixes": {split: {part.name: part.share for part in mix} for split, (_, mix) in SPLITS.items()},
            "cuts_per_tile": CUTS,
            "train_shards": shards,
            "train_crops": len(crops),
            "train_halves": int((crops.roles == HALF).sum()),
            "train_backs": int((crops.roles == BACK).sum()),
            "val_halves": int((val.roles == HALF).sum()),
            "unseen_halves": int((unseen.roles == HALF).sum()),
        }

    torch.manual_seed(recipe.seed)
    model = build_model(recipe)
    optimiser = torch.optim.AdamW(model.parameters(), lr=recipe.lr, weight_decay=recipe.weight_decay)
    generator = torch.Generator().manual_seed(recipe.seed)
    if state:
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        generator.set_state(state["generator"])
    else:
        state = {"epoch": 0, "step": 0, "seconds": 0.0, "curve": []}
    deadline = time.perf_counter() + hours * 3600
    epoch_seconds = 0.0
    while state["epoch"] < recipe.epochs:
        if epoch_seconds and time.perf_counter() + epoch_seconds > deadline:
            print(f"stopping before epoch {state['epoch'] + 1}: it would pass the {hours} h limit", flush=True)
            break
        began = time.perf_counter()
        if training is None or shards_now() != data["train_shards"]:
            training, data = loaded(shards_now())
        side = training.images.shape[-1] // STEP
        steps_per_epoch = (recipe.epoch_halves + recipe.batch - 1) // recipe.batch
        model.train()
        passes = (recipe.epoch_halves + len(training.roles) - 1) // len(training.roles)
        order = torch.cat([torch.randperm(len(training.roles), generator=generator) for _ in range(passes)])
        order = order[: recipe.epoch_halves]
        total, seen, tick = 0.0, 0, time.perf_counter()
        for index, start in enumerate(range(0, len(order), recipe.batch)):
            picked = order[start : start + recipe.batch]
            images = training.images[picked].float() / 255
            images, points = turned(images, training.points[picked].clone(), generator)
            images = spoilt(images, recipe, generator)
            wanted = targets(points, training.real[picked], side)
            for group in optimiser.param_groups:
                group["lr"] = learning_rate(recipe, state["step"], state["epoch"] + index / steps_per_epoch)
            loss = focal_loss(model(images), wanted)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            state["step"] += 1
            total += float(loss.detach()) * len(picked)
            seen += len(picked)
            if (index + 1) % log_every == 0:
                rate = log_every * recipe.batch / (time.perf_counter() - tick)
                print(f"epoch {state['epoch'] + 1} batch {index + 1}/{steps_per_epoch} loss {total / seen:.4f} "
                      f"{rate:.0f} halves/s lr {optimiser.param_groups[0]['lr']:.2e}", flush=True)  # fmt: skip
                tick = time.perf_counter()
        train_seconds = time.perf_counter() - began
        point = {
            "epoch": state["epoch"] + 1,
            "loss": round(total / max(seen, 1), 4),
            "halves_per_s": round(seen / train_seconds, 1),
            "train_crops": len(training.roles),
            "val": measured(model, val),
            "unseen": measured(model, unseen),
        }
        state["epoch"] += 1
        state["curve"].append(point)
        epoch_seconds = time.perf_counter() - began
        state["seconds"] += epoch_seconds
        state.update(
            model=model.state_dict(), optimiser=optimiser.state_dict(), generator=generator.get_state(),
            recipe=asdict(recipe),
        )  # fmt: skip
        out_dir.mkdir(parents=True, exist_ok=True)
        partial = checkpoint.with_suffix(".partial")
        torch.save(state, partial)
        os.replace(partial, checkpoint)  # a crash while saving leaves the last whole one
        export_onnx(model, out_dir / "model.onnx", int(training.images.shape[-1]))
        write_card(out_dir, recipe, state, data)
        print(json.dumps(point), flush=True)
    return state


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch loads: spinning threads lose on a shared CPU
    parser = argparse.ArgumentParser(description="train the pip-centre heatmap counter (issue 67)")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--cache", type=Path, default=CACHE_ROOT)
    parser.add_argument("--epochs", type=int, default=Recipe.epochs)
    parser.add_argument("--hours", type=float, default=1.5, help="stop before an epoch that would pass this")
    parser.add_argument("--resume", action="store_true", help="go on from the checkpoint in --out")
    parser.add_argument("--lr", type=float, default=Recipe.lr)
    parser.add_argument("--batch", type=int, default=Recipe.batch)
    parser.add_argument("--seed", type=int, default=Recipe.seed)
    parser.add_argument("--epoch-halves", type=int, default=Recipe.epoch_halves, help="halves an epoch learns from")
    parser.add_argument("--train-shards", type=int, default=0, help="learn from the first N shards (0: all)")
    args = parser.parse_args(argv)
    recipe = Recipe(
        epochs=args.epochs, lr=args.lr, batch=args.batch, seed=args.seed, train_shards=args.train_shards,
        epoch_halves=args.epoch_halves,
    )  # fmt: skip
    state = train(args.out, recipe, args.cache, args.resume, args.hours)
    print(f"{state['epoch']} of {recipe.epochs} epochs done; checkpoint {args.out / CHECKPOINT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
