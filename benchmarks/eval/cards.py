"""Measuring a freshly trained model on the labelled real photos, for its card (the train verb runs it
after training: training itself never imports the evaluation harness)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def add_real_metrics(out_dir: Path) -> dict[str, Any] | None:
    """Measure the model in ``out_dir`` (with the bundled pip counter) on the labelled real
    photos and record it in its card; None when ../shared/real is absent. Measured only: the
    real photos are never trained on."""
    from benchmarks.eval.run import evaluate
    from datasets.real import pip_labelled, real_root
    from vision.pipeline import HandScorer

    if real_root() is None:
        return None
    document = evaluate(
        pip_labelled(), REPO / "out" / "train" / "eval-real", HandScorer(detector=out_dir / "model.onnx"),
        title="detector card: real photos", progress=False,
    )  # fmt: skip
    real = {name: rate["value"] for name, rate in document["rates"].items() if rate["value"] is not None}
    path = out_dir / "card.json"
    card = json.loads(path.read_text())
    card["metrics"]["real_photos"] = {"photos": document["images"], **real}
    card["data"]["real_photos_used"] = "for measuring only (the card's real_photos metrics), never for training"
    path.write_text(json.dumps(card, indent=2) + "\n")
    return card["metrics"]["real_photos"]
