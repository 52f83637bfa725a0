"""The labelled real photos as other cameras, hands and light would have taken them.

    python -m benchmarks.real_variants [--variants as-taken,turned-90,...] [--without-brightening]
        [--detector ONNX] [--counter ONNX] [--verifier ONNX] [--name NAME]

27 labelled photos are few, and the photos that will judge hubcam were taken by other
people: turned any way, from a slant, in dim or warm light, out of focus, sent through a
chat app, from further away. Each variant here changes every labelled real photo in one such
way, maps its labelled corners with it (turns and slants draw the whole photo onto a larger
canvas of its border's colour, so no tile leaves the frame), runs the whole pipeline
(``vision.pipeline.HandScorer``) and scores it as ``hubcam eval`` does. A variant that
falls far below ``as-taken`` is a weakness the real photos alone would not show.
Writes ``benchmarks/results/real_variants.json`` and ``.md`` (``real_variants-unbrightened``
with ``--without-brightening``: dim photos read as they are, ``vision.exposure``); ``--detector``,
``--counter`` and ``--verifier`` measure a candidate model in the bundled one's place (``--name``
keeps its report apart).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import cv2
import numpy as np
from tqdm import tqdm

from benchmarks.candidates import add_model_arguments, candidate_flags, chosen_models, missing_models
from benchmarks.eval.metrics import score_image, summarise
from benchmarks.report import write_report
from calibration.table_plane import border_colour
from datasets.labels import LabelledImage
from datasets.real import iter_images, pip_labelled
from datasets.synth.retake import Variant, onto_canvas, slanted
from vision.pipeline import HandScorer

KEPT = np.eye(3)


def turned(quarter_turns: int) -> Variant:
    codes = {1: cv2.ROTATE_90_CLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_COUNTERCLOCKWISE}

    def variant(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        height, width = image.shape[:2]
        matrix = {
            1: [[0, -1, height - 1], [1, 0, 0], [0, 0, 1]],
            2: [[-1, 0, width - 1], [0, -1, height - 1], [0, 0, 1]],
            3: [[0, 1, 0], [-1, 0, width - 1], [0, 0, 1]],
        }[quarter_turns]
        return cv2.rotate(image, codes[quarter_turns]), np.array(matrix, np.float64)

    return variant


def rotated(degrees: float) -> Variant:
    def variant(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        height, width = image.shape[:2]
        matrix = np.vstack([cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0), [0, 0, 1]])
        return onto_canvas(image, matrix)

    return variant


def lit(gain: tuple[float, float, float], gamma: float = 1.0) -> Variant:
    """Light of another strength or colour: each BGR channel scaled, then a gamma."""

    def variant(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scaled = np.clip(image.astype(np.float32) / 255 * np.array(gain, np.float32), 0, 1) ** gamma
        return (scaled * 255 + 0.5).astype(np.uint8), KEPT

    return variant


def out_of_focus(share: float) -> Variant:
    """A Gaussian blur of ``share`` of the photo's longer side (the same blur at every resolution)."""

    def variant(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return cv2.GaussianBlur(image, (0, 0), share * max(image.shape[:2])), KEPT

    return variant


def grainy(sigma: float, seed: int = 0) -> Variant:
    def variant(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        noise = np.random.default_rng(seed).normal(0, sigma, image.shape)
        return np.clip(image + noise, 0, 255).astype(np.uint8), KEPT

    return variant


def sent_through_chat(longer_side: int, quality: int) -> Variant:
    """Scaled down to ``longer_side`` and JPEG-compressed again, as chat apps send photos."""

    def variant(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scale = min(1.0, longer_side / max(image.shape[:2]))
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        return cv2.imdecode(jpeg, cv2.IMREAD_COLOR), np.diag([scale, scale, 1.0])

    return variant


def farther(share: float) -> Variant:
    """As if taken from further away: the photo shrunk to ``share`` of its size in the middle of a
    canvas of its own size and its border's colour (its tiles that much smaller, in the frame and at
    the detector's input)."""

    def variant(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        height, width = image.shape[:2]
        small = cv2.resize(image, None, fx=share, fy=share, interpolation=cv2.INTER_AREA)
        canvas = np.empty_like(image)
        canvas[:] = border_colour(image)
        top, left = (height - small.shape[0]) // 2, (width - small.shape[1]) // 2
        canvas[top : top + small.shape[0], left : left + small.shape[1]] = small
        scale_x, scale_y = small.shape[1] / width, small.shape[0] / height
        return canvas, np.array([[scale_x, 0, left], [0, scale_y, top], [0, 0, 1]], np.float64)

    return variant


VARIANTS: dict[str, Variant] = {
    "as-taken": lambda image: (image, KEPT),
    "turned-90": turned(1),
    "turned-180": turned(2),
    "turned-270": turned(3),
    "rotated-20": rotated(20),
    "rotated-45": rotated(45),
    "slanted-25": slanted(25),
    "slanted-40": slanted(40),
    "dim": lit((0.45, 0.45, 0.45), gamma=1.2),
    "warm-light": lit((0.7, 0.95, 1.15)),
    "cold-light": lit((1.15, 1.0, 0.8)),
    "out-of-focus": out_of_focus(0.0012),
    "grainy": grainy(10),
    "chat-app": sent_through_chat(1280, 60),
    "farther-50": farther(0.5),
    "farther-35": farther(0.35),
}


def changed_label(label: LabelledImage, image: np.ndarray, matrix: np.ndarray) -> LabelledImage:
    """The label of the changed photo: every tile's corners taken through ``matrix`` (their order kept)."""
    tiles = tuple(
        replace(tile, corners=cv2.perspectiveTransform(tile.corners[None].astype(np.float64), matrix)[0])
        for tile in label.tiles
    )
    return replace(label, tiles=tiles, width=image.shape[1], height=image.shape[0])


def measure(scorer: HandScorer, photos: list[tuple[LabelledImage, np.ndarray]], variant: Variant) -> dict:
    scores, wrong = [], []
    for label, image in photos:
        changed, matrix = variant(image)
        changed_truth = changed_label(label, changed, matrix)
        score = score_image(changed_truth, scorer(changed))
        scores.append(score)
        if not score.total_exact:
            wrong.append(label.name)
    summary = summarise(scores)
    rates = {rate.name: rate for rate in summary["rates"]}
    row = {}
    for name in ("tile recall", "tile precision", "per-half accuracy", "exact tile", "exact photo total"):
        rate = rates[name]
        row[name] = {"value": round(rate.value, 3), "successes": rate.successes, "trials": rate.trials}
    row["wrong totals"] = wrong
    row["mean detect ms"] = round(summary["mean_timings_ms"]["detect"], 1)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of: " + ", ".join(VARIANTS))
    parser.add_argument("--without-brightening", action="store_true", help="read dim photos as they are")
    add_model_arguments(parser)
    parser.add_argument("--name", default=None, help="the report's name in benchmarks/results (a candidate's own)")
    args = parser.parse_args()
    names = args.variants.split(",")
    unknown = [name for name in names if name not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    models = chosen_models(args)
    missing = missing_models(models)
    if missing:
        parser.error(f"no such model: {', '.join(missing)}")
    photos = list(iter_images(pip_labelled()))
    if not photos:
        print("real_variants: skipped, no labelled real photos (../shared/real is not beside the repository)")
        return
    scorer = HandScorer(**models, brighten=not args.without_brightening)
    results = {name: measure(scorer, photos, VARIANTS[name]) for name in tqdm(names, desc="variants", unit="variant")}
    report = {
        "benchmark": "real_variants",
        "command": "python -m benchmarks.real_variants"
        + ("" if names == list(VARIANTS) else f" --variants {args.variants}")
        + (" --without-brightening" if args.without_brightening else "")
        + candidate_flags(models),
        "date": time.strftime("%Y-%m-%d"),
        "photos": len(photos),
        "variants": results,
    }
    columns = ("tile recall", "tile precision", "per-half accuracy", "exact tile", "exact photo total")
    lines = [
        "# The real photos changed as other cameras would have taken them",
        "",
        f"`{report['command']}` ({report['date']}), the {len(photos)} labelled real photos through the whole",
        "pipeline, each changed one way (see the module's docstring); matched as `hubcam eval` matches.",
        "Finding tiles: the pipeline's `detect` stage (detector, verifier and refiner; twice over for a",
        "photo redrawn square-on), mean per photo on this machine, the photos at their own sizes.",
        "",
        "| variant | " + " | ".join(columns) + " | finding tiles, mean ms | photos with a wrong total |",
        "|---|" + "---|" * (len(columns) + 2),
    ]
    for name, row in results.items():
        cells = [f"{row[c]['value']:.3f}" for c in columns[:-1]]
        total = row["exact photo total"]
        cells.append(f"{total['value']:.3f} ({total['successes']}/{total['trials']})")
        wrong = ", ".join(photo.split("/")[-1] for photo in row["wrong totals"]) or "-"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {row['mean detect ms']:.0f} | {wrong} |")
    name = args.name or ("real_variants-unbrightened" if args.without_brightening else "real_variants")
    write_report(name, report, lines)


if __name__ == "__main__":
    main()
