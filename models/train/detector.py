"""Training the tile detector with Ultralytics (train extra).

A model is built from its yaml (no pretrained weights can be had here), trained on
an OBB dataset exported from synthetic sets, with a recipe recorded in full, and
exported to ONNX beside a model card. Nothing is downloaded: Ultralytics comes from
``models.train.ultralytics_offline`` (``YOLO_OFFLINE`` set, the settings in the project's
``.yolo/`` folder), AMP (whose check fetches weights) and plots (which fetch a font) are
off, and the ONNX export is not simplified (which would install onnxslim).
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from models.train.ultralytics_offline import REPO
from models.train.ultralytics_offline import offline_ultralytics as _offline_ultralytics  # tests swap in a fake


@dataclass(frozen=True)
class Recipe:
    model: str = "yolo11n-obb.yaml"
    imgsz: int = 640
    epochs: int = 30
    batch: int = 16
    seed: int = 0
    workers: int = 2
    patience: int = 50
    mosaic: float = 1.0
    degrees: float = 0.0
    """Scenes already turn every way; extra rotation would only blur the labels."""
    lr0: float | None = None
    """AdamW's learning rate, with no warm-up, for a gentle run from earlier weights; None: Ultralytics
    chooses (AdamW at 0.0014 for three classes on runs this short, after three epochs of warm-up
    whose biases start at 0.1: a run from earlier weights learns much of them again)."""
    cache: str | None = "disk"
    """Where Ultralytics keeps the images decoded and resized ("disk": ``.npy`` files beside the
    export's images, deterministic, unlike "ram"; None: each JPEG decoded again every epoch)."""
    halved_view: bool = False
    """Whether the images are averaged down by halves before Ultralytics shrinks them the rest of the
    way bilinearly, as the pipeline then shows it photos (``vision.detect.onnx_obb.view_of``): a phone
    photo shrunk in one bilinear step is seen through every ninth pixel."""


def train(
    data_yaml: Path,
    run_dir: Path,
    recipe: Recipe,
    resume: bool = False,
    hours: float | None = None,
    start_from: Path | None = None,
) -> tuple[Path, float]:
    """Train (or resume) and return the best weights and the seconds it took; ``hours`` caps the
    run; ``start_from`` begins a new run from earlier weights (a time-capped run cannot resume)."""
    if start_from is not None and not start_from.is_file():
        raise FileNotFoundError(f"no weights at {start_from}")
    YOLO = _offline_ultralytics()
    start = time.perf_counter()
    last = run_dir / "weights" / "last.pt"
    if resume and last.exists():
        model = YOLO(str(last))
        model.train(resume=True)
    else:
        model = YOLO(recipe.model, task="obb")
        model.train(
            data=str(data_yaml),
            project=str(run_dir.parent),
            name=run_dir.name,
            exist_ok=True,
            imgsz=recipe.imgsz,
            epochs=recipe.epochs,
            batch=recipe.batch,
            seed=recipe.seed,
            deterministic=True,
            workers=recipe.workers,
            patience=recipe.patience,
            mosaic=recipe.mosaic,
            degrees=recipe.degrees,
            cache=recipe.cache or False,
            pretrained=str(start_from) if start_from else False,  # a path: its weights, nothing fetched
            **({"optimizer": "AdamW", "lr0": recipe.lr0, "warmup_epochs": 0} if recipe.lr0 is not None else {}),
            amp=False,
            plots=False,
            device="cpu",
            verbose=False,
            **({"time": hours} if hours else {}),
        )
    best = run_dir / "weights" / "best.pt"
    return (best if best.exists() else last), time.perf_counter() - start


def validate(weights: Path, data_yaml: Path, imgsz: int) -> dict[str, float]:
    """mAP50 and mAP50-95 on the dataset's validation split."""
    YOLO = _offline_ultralytics()
    metrics = YOLO(str(weights)).val(data=str(data_yaml), imgsz=imgsz, device="cpu", plots=False, verbose=False)
    return {"mAP50": round(float(metrics.box.map50), 4), "mAP50_95": round(float(metrics.box.map), 4)}


def export_onnx(weights: Path, out_dir: Path, imgsz: int) -> Path:
    """Export to ONNX (opset 17, no NMS inside: hubcam's decoder does it) into ``out_dir/model.onnx``,
    with a dynamic input size: a detector trained at one size may find more run at another
    (benchmarks/detector_size.py@d88286a), and it runs as fast as a fixed-size export."""
    YOLO = _offline_ultralytics()
    exported = Path(YOLO(str(weights)).export(format="onnx", imgsz=imgsz, opset=17, simplify=False, dynamic=True))
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "model.onnx"
    shutil.copyfile(exported, target)
    return target


def write_card(out_dir: Path, recipe: Recipe, data: dict[str, Any], seconds: float, metrics: dict[str, Any]) -> Path:
    """The model card: data, recipe, time taken and metrics, beside the model."""
    from datasets.synth.dataset import OBB_NAMES

    card = {
        "model": "model.onnx",
        "task": "obb",
        "names": OBB_NAMES,
        "recipe": asdict(recipe),
        "data": data,
        "training_seconds": round(seconds),
        "metrics": metrics,
        "trained_on": time.strftime("%Y-%m-%d"),
    }
    path = out_dir / "card.json"
    path.write_text(json.dumps(card, indent=2) + "\n")
    return path


def train_detector(
    sets: list[Path], out_dir: Path, recipe: Recipe, hours: float | None, resume: bool, start_from: Path | None = None
) -> dict[str, Any]:
    """From synthetic sets to ``out_dir/model.onnx`` and its card, in one step (resumable)."""
    from datasets.real import load_folder
    from datasets.synth.dataset import export_yolo_obb, manifest_of

    labels = [label for folder in sets for label in load_folder(folder)]
    if not labels:
        raise ValueError(f"no labelled images in {', '.join(map(str, sets))}")
    work = REPO / "out" / "train"
    data_yaml = export_yolo_obb(labels, work / "obb", 0.1, recipe.imgsz if recipe.halved_view else None)
    if start_from is not None and not start_from.is_file():
        raise FileNotFoundError(f"no weights at {start_from}")
    kept = None
    if start_from is not None and start_from.suffix == ".onnx":  # an export whose .pt is lost
        kept = rebuilt_start(start_from, [label.path for label in labels[:: max(len(labels) // 64, 1)]], work, recipe)
    elif start_from is not None:  # the run folder is reused: keep the starting weights out of its way
        kept = work / "start-from.pt"
        shutil.copyfile(start_from, kept)
    weights, seconds = train(data_yaml, work / "detector", recipe, resume=resume, hours=hours, start_from=kept)
    metrics = validate(weights, data_yaml, recipe.imgsz)
    export_onnx(weights, out_dir, recipe.imgsz)
    data = {
        "sets": [{"folder": str(folder), "manifest": manifest_of(folder)} for folder in sets],
        "images": len(labels),
        "split": "every 10th image for validation (synthetic)",
        "real_photos_used": False,
        "started_from": str(start_from) if start_from else "nothing (built from the model yaml)",
    }
    run = {"synthetic_val": metrics, "hours_cap": hours, "epochs_run": epochs_run(work / "detector")}
    card = write_card(out_dir, recipe, data, seconds, run)
    return json.loads(card.read_text())


def rebuilt_start(export: Path, images: list[Path], work: Path, recipe: Recipe) -> Path:
    """Starting weights rebuilt from an ONNX export, its batch norms measured on ``images``."""
    import cv2

    from datasets.synth.dataset import OBB_NAMES
    from models.train.from_onnx import rebuild, save_checkpoint
    from vision.detect.onnx_obb import padded_blob, view_of

    calibration = [padded_blob(view_of(cv2.imread(str(path)), recipe.imgsz, recipe.halved_view))[0] for path in images]
    model = rebuild(export, OBB_NAMES, calibration, recipe.model)
    return save_checkpoint(model, work / "start-from.pt", export, recipe.imgsz)


def epochs_run(run_dir: Path) -> int:
    """Epochs the run finished (a time cap can stop it before the recipe's count)."""
    results = run_dir / "results.csv"
    return max(len(results.read_text().splitlines()) - 1, 0) if results.exists() else 0
