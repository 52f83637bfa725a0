"""``hubcam eval``: run a pipeline (or read its predictions) over a labelled set and report.

Writes to the output folder:

- ``per_image.csv``: one row per image, with the stage that failed first;
- ``summary.md`` and ``summary.json``: every rate with its Wilson 95 % interval,
  the mean absolute total error, time per stage;
- ``worst.jpg``: overlays of the worst images (labels green, predictions magenta).
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from benchmarks.eval.metrics import (
    ImageScore,
    match_tiles,
    score_image,
    summarise,
)
from datasets.labels import LabelledImage
from datasets.real import read_image
from vision.draw import GREEN, MAGENTA, RED, contact_sheet, draw_tile, thickness_for
from vision.observation import Observation

Pipeline = Callable[[np.ndarray, LabelledImage], Observation]
"""Image and label in, prediction out; real pipelines ignore the label (only an oracle stage reads it)."""


def evaluate(
    labels: Sequence[LabelledImage],
    out_dir: Path,
    pipeline: Pipeline | None = None,
    predictions: dict[str, Observation] | None = None,
    title: str = "evaluation",
    worst: int = 12,
    progress: bool = True,
) -> dict[str, Any]:
    """Score a pipeline (run here) or predictions (read from a file) against ``labels``."""
    if (pipeline is None) == (predictions is None):
        raise ValueError("give either a pipeline or predictions")
    out_dir.mkdir(parents=True, exist_ok=True)
    scores: list[ImageScore] = []
    kept: list[tuple[LabelledImage, Observation, ImageScore]] = []
    for label in tqdm(labels, desc=title, unit="image", disable=not progress):
        prediction = _predict(label, pipeline, predictions)
        score = score_image(label, prediction)
        scores.append(score)
        kept.append((label, prediction, score))
    summary = summarise(scores)
    write_csv(out_dir / "per_image.csv", scores)
    document = summary_json(summary, title)
    document["by_set"] = by_set([(label.source, score) for label, _, score in kept])
    (out_dir / "summary.json").write_text(json.dumps(document, indent=2) + "\n")
    (out_dir / "summary.md").write_text(summary_markdown(document))
    if worst and kept:
        cv2.imwrite(str(out_dir / "worst.jpg"), worst_sheet(kept, worst), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return document


def _predict(
    label: LabelledImage, pipeline: Pipeline | None, predictions: dict[str, Observation] | None
) -> Observation:
    if predictions is not None:
        return predictions.get(label.path.name, Observation((), error="no prediction for this image"))
    assert pipeline is not None
    start = time.perf_counter()
    try:
        image = read_image(label.path)
    except ValueError as error:
        return Observation((), error=str(error))
    decode_ms = (time.perf_counter() - start) * 1000
    return pipeline(image, label).with_decode(decode_ms)


def read_predictions(path: Path) -> dict[str, Observation]:
    """Observations as JSON lines in the shape of ``hubcam score --json``, keyed by image file name."""
    predictions = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            predictions[Path(item["image"]).name] = Observation.from_json(item)
        except (ValueError, KeyError, TypeError, IndexError) as error:
            raise ValueError(f"{path}, line {number}: cannot read prediction ({error})") from None
    return predictions


CSV_COLUMNS = [
    "image", "failed_stage", "labelled", "predicted", "matched", "halves_right", "halves", "tiles_exact",
    "tiles_read", "total_label", "total_predicted", "chains_right", "chains_label", "flags_right",
    "flags_predicted", "flags_label", "total_ms", "error",
]  # fmt: skip


def write_csv(path: Path, scores: Iterable[ImageScore]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for s in scores:
            writer.writerow(
                [
                    s.name, s.failed_stage, s.labelled, s.predicted, s.matched, s.halves_right, s.halves,
                    s.tiles_exact, s.tiles_read, s.total_label, s.total_predicted, s.chains_right, s.chains_label,
                    s.flags_right, s.flags_predicted, s.flags_label, round(s.timings_ms.get("total", 0.0), 1),
                    s.error or "",
                ]
            )  # fmt: skip


def summary_json(summary: dict[str, Any], title: str) -> dict[str, Any]:
    rates = {}
    for rate in summary["rates"]:
        low, high = rate.interval
        rates[rate.name] = {
            "value": None if rate.value is None else round(rate.value, 4),
            "successes": rate.successes,
            "trials": rate.trials,
            "wilson95": [round(low, 4), round(high, 4)],
        }
    return {
        "title": title,
        "images": summary["images"],
        "rates": rates,
        "mean_abs_total_error": summary["mean_abs_total_error"],
        "mean_timings_ms": {stage: round(ms, 1) for stage, ms in summary["mean_timings_ms"].items()},
        "failed_stage": summary["failed_stage"],
    }


SET_RATES = ("tile recall", "tile precision", "per-half accuracy", "exact photo total")


def by_set(scored: Sequence[tuple[str, ImageScore]]) -> dict[str, dict[str, Any]]:
    """The main rates for each set the images came from (a real folder, or one synthetic set),
    as [successes, trials]: where a change helps and where it hurts."""
    sources = sorted({source for source, _ in scored})
    table = {}
    for source in sources:
        summary = summarise([score for origin, score in scored if origin == source])
        rates = {rate.name: [rate.successes, rate.trials] for rate in summary["rates"] if rate.name in SET_RATES}
        table[source] = {"images": summary["images"], **rates}
    return table


def summary_markdown(document: dict[str, Any]) -> str:
    lines = [f"# {document['title']}", "", f"{document['images']} images.", ""]
    lines += ["| measure | value | 95 % interval | count |", "|---|---|---|---|"]
    for name, rate in document["rates"].items():
        if rate["trials"] == 0:
            lines.append(f"| {name} | n/a | | 0 |")
            continue
        low, high = rate["wilson95"]
        lines.append(f"| {name} | {rate['value']:.3f} | {low:.3f}-{high:.3f} | {rate['successes']}/{rate['trials']} |")
    error = document["mean_abs_total_error"]
    lines += ["", f"Mean absolute total error: {'n/a' if error is None else f'{error:.2f} pips'}.", ""]
    if document["mean_timings_ms"]:
        stages = ", ".join(f"{stage} {ms:.1f} ms" for stage, ms in document["mean_timings_ms"].items())
        lines += [f"Mean time per image: {stages}.", ""]
    blame = ", ".join(f"{stage} {count}" for stage, count in sorted(document["failed_stage"].items()))
    lines += [f"First failing stage per image: {blame}.", ""]
    if len(document.get("by_set", {})) > 1:
        header = "| set | images | " + " | ".join(SET_RATES) + " |"
        lines += ["By set:", "", header, "|---" * (len(SET_RATES) + 2) + "|"]
        for source, row in document["by_set"].items():
            cells = [f"{s}/{t}" if t else "n/a" for s, t in (row[name] for name in SET_RATES)]
            lines.append(f"| {source} | {row['images']} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def badness(score: ImageScore) -> tuple[int, int, int]:
    """Sort key, worst first: errors, then missed or extra tiles, then pip mistakes and total error."""
    total_error = abs((score.total_predicted or 0) - (score.total_label or 0))
    misses = (score.labelled - score.matched) + (score.predicted - score.matched)
    return (int(score.error is not None), misses + (score.halves - score.halves_right), total_error)


def worst_sheet(kept: list[tuple[LabelledImage, Observation, ImageScore]], count: int) -> np.ndarray:
    chosen = sorted(kept, key=lambda item: badness(item[2]), reverse=True)[:count]
    overlays, captions = [], []
    for label, prediction, score in chosen:
        overlays.append(overlay(label, prediction))
        total = f"total {score.total_predicted}/{score.total_label}" if score.total_label is not None else ""
        captions.append(f"{label.name[-34:]} {score.matched}/{score.labelled} {total} {score.failed_stage}")
    return contact_sheet(overlays, captions)


def overlay(label: LabelledImage, prediction: Observation) -> np.ndarray:
    """The photo with labels (green) and predictions (magenta; red when unmatched)."""
    try:
        image = read_image(label.path)
    except ValueError:
        image = np.zeros((label.height, label.width, 3), np.uint8)
    thickness = thickness_for(image)
    for tile in label.tiles:  # labels as outlines only, so that the readings stay legible
        draw_tile(image, tile.corners, "", GREEN, thickness)
    matched = {j for _, j in match_tiles([t.corners for t in label.tiles], [t.corners for t in prediction.found])}
    for index, tile in enumerate(prediction.found):
        text = "?" if tile.pips is None else f"{tile.pips[0]}-{tile.pips[1]}"
        draw_tile(image, tile.corners, text, MAGENTA if index in matched else RED, thickness)
    return image
