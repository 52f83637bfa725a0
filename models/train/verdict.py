"""Teaching the box refiner a verdict (torch, the train extra): is its box one face-up tile?

The pipeline asked a tile verifier about every box it might keep, and then the box refiner where
each kept box's tile lies: two crops of each box and two networks, about 4 ms of the 1600x1200
hand's 42 in benchmarks/score_bench.py. The refiner's features already tell a tile's edges and
divider from its surroundings, so a small head on them answers the verifier's question, and the
box is cropped and run once for both answers (``vision.detect.refine.BoxRefiner.judge``).

The refiner's layers stay as they are (frozen), so its corners do not change; only the head
learns. Its boxes and labels are the verifier's (``models.train.verifier``: the
detector's proposals, straddles, halves, shifted and turned boxes, loosened true tiles, boxes
round face-down tiles), cropped as the refiner crops them. Each box's target is partly the
bundled verifier's own answer on its own crop (``VerdictRecipe.taught_by``): taught the labels
alone, a first head (a scratch try) accepted 0.985 of the real photos' tiles against the
verifier's 1.000.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.train import smallnet
from models.train.smallnet import Checkpoint, fit, flipped_photometric, held_out, images_only, predict
from models.train.verifier import VerifierRecipe, acceptance, real_boxes, synthetic_boxes
from vision.detect import refine, verify
from vision.onnx_session import probabilities_of

SHARED = 5
"""How many of the refiner's layers the verdict shares (``models.train.refiner.build_model``): its
three halving blocks and its last 3 x 3 convolution with its ReLU, a 64 x 5 x 8 map (sharing only
the blocks, with a convolution of the head's own, told boxes apart better but totalled fewer
hands: benchmarks/HISTORY.md)."""
SHARED_SHAPE = (64, refine.CROP_SHAPE[0] // 8, refine.CROP_SHAPE[1] // 8)
"""The map the head's linear layers take: the refiner's at SHARED."""
VERDICT_TASK = "; and is it one face-up tile? (output 'tile', one logit)"
"""What the card's task gains."""


@dataclass(frozen=True)
class VerdictRecipe:
    scenes: int = 2400
    """The defaults are the bundled verdict's (its card's ``verdict.note`` has the tries before it)."""
    bright_scenes: int = 400
    """Scenes of bright sets with printed backs (``models.train.verifier.BRIGHT_SCENE``)."""
    face_down: bool = True
    """Boxes round face-down tiles are among what is not a tile (as the bundled verifier learnt)."""
    seed: int = 6
    """Scenes are drawn as ``VerifierRecipe``'s are with this seed."""
    epochs: int = 8
    batch: int = 256
    max_lr: float = 3e-3
    hidden: int = 128
    """The head: the shared map flattened, a linear layer to this many, ReLU, one logit."""
    taught_by: float = 0.7
    """The share of each box's target that is the teacher's probability (the rest its label)."""
    teacher: str = ""
    """The tile verifier whose answers are taught (an ONNX export); empty: the bundled one."""
    refiner: str = ""
    """The refiner whose features the verdict is drawn from (an ONNX export); empty: the bundled one."""


def both_crops(image: np.ndarray, boxes: list[np.ndarray]) -> np.ndarray:
    """``(n, 2, 40, 64, 3)``: each box as the refiner crops it, then as the verifier does."""
    if not boxes:
        return np.zeros((0, 2, *refine.CROP_SHAPE, 3), np.uint8)
    return np.stack([refine.crop_boxes(image, boxes), verify.crop_boxes(image, boxes)], axis=1)


def data(recipe: VerdictRecipe) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The refiner's crops, the labels (1: one face-up tile) and the teacher's probabilities."""
    boxes = VerifierRecipe(
        scenes=recipe.scenes, bright_scenes=recipe.bright_scenes, face_down=recipe.face_down, seed=recipe.seed
    )
    crops, labels = synthetic_boxes(boxes, crop=both_crops)
    return crops[:, 0], labels, teacher_says(Path(recipe.teacher) if recipe.teacher else None, crops[:, 1])


def teacher_says(path: Path | None, crops: np.ndarray, chunk: int = 1024) -> np.ndarray:
    """The verifier at ``path`` (None: the bundled one): ``(n,)`` probabilities for its own crops."""
    from models import VERIFIER

    teacher = verify.TileVerifier(path or VERIFIER)
    starts = range(0, len(crops), chunk)
    return np.concatenate([teacher.probabilities(crops[start : start + chunk]) for start in starts])


def judging(refiner: Any, hidden: int) -> Any:
    """The refiner with a verdict head beside its own, branching off after its first SHARED layers:
    ``crops -> (offsets, logit)``. The refiner's layers stay in eval mode
    even while the head trains: in training mode their batch norms would normalise by each batch and
    learn new statistics, and the offsets would change."""
    import torch
    from torch import nn

    with torch.no_grad():
        branched = tuple(refiner[:SHARED](torch.zeros(1, 3, *refine.CROP_SHAPE)).shape[1:])
    if branched != SHARED_SHAPE:
        raise ValueError(f"the refiner's map after {SHARED} layers is {branched}; the head takes {SHARED_SHAPE}")

    class Judging(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.shared, self.place = refiner[:SHARED], refiner[SHARED:]
            self.verdict = nn.Sequential(
                nn.Flatten(), nn.Linear(int(np.prod(SHARED_SHAPE)), hidden), nn.ReLU(), nn.Linear(hidden, 1)
            )

        def train(self, mode: bool = True) -> Judging:
            super().train(mode)
            self.shared.eval()
            self.place.eval()
            return self

        def forward(self, crops: Any) -> tuple[Any, Any]:
            features = self.shared(crops)
            return self.place(features), self.verdict(features)

    return Judging()


def refiner_from(path: Path, crops: np.ndarray, seed: int) -> Any:
    """The refiner's network with its export's weights (``models.train.smallnet.from_onnx``), frozen."""
    from models.train.refiner import build_model

    model = smallnet.continued_from(path, build_model, crops, seed)()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model.eval()


def train(
    refiner: Path, crops: np.ndarray, targets: np.ndarray, recipe: VerdictRecipe, checkpoint: Checkpoint | None = None
) -> Any:
    """The head alone (``judging``), on soft targets, the crops flipped and ``photometric`` as the
    verifier's were."""
    import torch
    from torch import nn

    def loss(said: tuple[Any, Any], wanted: Any) -> Any:
        return nn.functional.binary_cross_entropy_with_logits(said[1].reshape(-1), wanted)

    def build() -> Any:
        return judging(refiner_from(refiner, crops, recipe.seed), recipe.hidden)

    return fit(
        build, crops, torch.from_numpy(targets).float(), loss,
        images_only(flipped_photometric),
        recipe, checkpoint,
    )  # fmt: skip


def verdicts(model: Any, crops: np.ndarray) -> np.ndarray:
    """``(n,)`` probabilities that each crop is one tile (the second of ``judging``'s outputs)."""
    return probabilities_of(predict(lambda batch: model(batch)[1], crops))


def export_onnx(model: Any, path: Path) -> Path:
    """ONNX with input ``crops`` ``(n, 3, 40, 64)`` float 0-1 BGR and outputs ``logits`` ``(n, 8)`` (the
    refiner's offsets) and ``tile`` ``(n, 1)`` (the verdict's logit)."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model, torch.rand(2, 3, *refine.CROP_SHAPE), str(path), input_names=["crops"],
        output_names=[refine.OFFSETS, refine.VERDICT],
        dynamic_axes={"crops": {0: "n"}, refine.OFFSETS: {0: "n"}, refine.VERDICT: {0: "n"}},
        opset_version=17, dynamo=False,
    )  # fmt: skip
    return path


def offsets_moved(before: Path, after: Path, crops: np.ndarray) -> float:
    """The largest difference between two refiner exports' offsets on ``crops`` (in box lengths):
    how far rebuilding and exporting again moved any corner (float rounding only)."""
    from vision.onnx_session import as_input, cpu_session

    said = [
        cpu_session(path, "box refiner").run([refine.OFFSETS], {"crops": as_input(crops)})[0]
        for path in (before, after)
    ]
    return float(np.abs(said[0] - said[1]).max())


def train_and_export(out_dir: Path, recipe: VerdictRecipe, resume: bool = False) -> dict[str, Any]:
    """Render, crop, teach the head, export the refiner with it to ``out_dir/model.onnx``, and write the
    card: the refiner's own, with ``verdict`` added; ``resume``: go on from the epochs an unfinished run
    saved in ``out_dir`` (``models.train.smallnet.Checkpoint``)."""
    from datasets.real import real_root
    from models import REFINER, VERIFIER
    from vision.onnx_session import model_card

    source = Path(recipe.refiner) if recipe.refiner else REFINER
    for path, what in ((source, "box refiner"), (Path(recipe.teacher) if recipe.teacher else VERIFIER, "teacher")):
        if not path.is_file():
            raise FileNotFoundError(f"no {what} at {path}")
    refiner_card, described = model_card(source), smallnet.described(source)  # read before out_dir may replace it
    checkpoint = Checkpoint.beside(out_dir, resume)
    start = time.perf_counter()
    crops, labels, taught = data(recipe)
    held, used = held_out(len(crops), recipe.seed)
    targets = (1 - recipe.taught_by) * labels + recipe.taught_by * taught
    model = train(source, crops[used], targets[used], recipe, checkpoint)
    exported = out_dir / "model.onnx"
    staged = exported.with_name("verdict.onnx.part")  # the refiner may be the file replaced: read it first
    export_onnx(model, staged)
    moved = offsets_moved(source, staged, crops[held[:2048]])
    staged.replace(exported)
    seconds = time.perf_counter() - start
    metrics: dict[str, Any] = {
        "synthetic_held_out": acceptance(verdicts(model, crops[held]) > 0.5, labels[held]),
        "teacher_synthetic_held_out": acceptance(taught[held] > 0.5, labels[held]),
    }
    if real_root() is not None:
        real_crops, real_labels = real_boxes(refine.crop_boxes)
        metrics["real_proposals"] = acceptance(verdicts(model, real_crops) > 0.5, real_labels)
    refiner_card.pop("verdict", None)  # a refiner taught a verdict before: its own card, the verdict anew
    task = refiner_card.get("task", "").split(VERDICT_TASK)[0]
    card = {
        **refiner_card,
        "task": task + VERDICT_TASK,
        "verdict": {
            "recipe": asdict(recipe),
            "refiner": described,
            "teacher": smallnet.described(Path(recipe.teacher) if recipe.teacher else VERIFIER),
            "data": (
                f"{len(crops)} boxes ({int(labels.sum())} tiles) from {recipe.scenes} synthetic hand scenes and "
                f"{recipe.bright_scenes} of bright sets (models.train.verifier, seed {recipe.seed}), "
                "cropped as the refiner crops"
            ),
            "targets": f"{1 - recipe.taught_by:g} x label (IoU >= 0.7: 1, < 0.4: 0) + {recipe.taught_by:g} x teacher",
            "refiner_offsets_moved": moved,
            "training_seconds": round(seconds),
            "metrics": metrics,
            "real_photos_used": "for measuring only, never for training",
            "trained_on": time.strftime("%Y-%m-%d"),
        },
    }
    (out_dir / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    return card
