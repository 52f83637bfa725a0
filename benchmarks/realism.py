"""Does the renderer look like real photos where it matters? Measured on ../shared/real.

    python -m benchmarks.realism [--scenes 600] [--epochs 8] [--seeds 0,1] [--variants full,no_glare,...]

For each renderer variant (the full renderer, and the full renderer with one
choice switched off) it renders hand scenes, cuts every readable half out of them
using the labels, trains the pip counter (models/train/counter.py) on those halves, and
measures it on the 516 labelled halves of the real photos (cut the same way, from
their hand-checked corners). Synthetic scores say little; the real-photo accuracy
says what a renderer choice is worth. Needs the ``train`` extra (torch); the
numbers go to ``benchmarks/results/realism.json`` and ``.md``.

This probes pip reading only (the halves are cut with true corners), not detection.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.eval.metrics import wilson
from datasets.synth.scene import FULL, SceneOptions
from models.train.counter import CounterRecipe, real_halves, synthetic_halves, train
from models.train.smallnet import predict

VARIANTS: dict[str, SceneOptions] = {
    "full": FULL,
    "no_glare": SceneOptions(glare=False),
    "no_shadows": SceneOptions(shadows=False),
    "no_photo_effects": SceneOptions(photo=False),
    "black_pips_only": SceneOptions(pip_styles=("black",)),
    "no_colour_code": SceneOptions(pip_styles=("black", "white")),
    "top_down_only": SceneOptions(max_tilt_deg=5.0),
    "usual_pip_layout": SceneOptions(makers_layouts=False),
    "no_film": SceneOptions(film=False),
    "no_spinner": SceneOptions(spinner=False),
    "square_corners": SceneOptions(rounded_corners=False),
    "flat_tiles": SceneOptions(thickness=False),
}


def measure(
    name: str, options: SceneOptions, real: list[tuple[np.ndarray, int, str]], scenes: int, epochs: int, seed: int
) -> dict[str, Any]:
    """Render, train and measure one variant with one seed (the seed picks scenes and training)."""
    start = time.perf_counter()
    crops, counts = synthetic_halves(scenes, seed, CounterRecipe(scenes=scenes, epochs=epochs, seed=seed), options)
    halves = list(zip(crops, counts.tolist(), strict=True))
    random.Random(seed).shuffle(halves)
    held_out = halves[: len(halves) // 10]
    training = halves[len(halves) // 10 :]
    recipe = CounterRecipe(scenes=scenes, epochs=epochs, seed=seed)
    model = train(np.stack([c for c, _ in training]), np.array([n for _, n in training], dtype=np.int64), recipe)
    synthetic_right = int(
        (predict(model, np.stack([c for c, _ in held_out])).argmax(1) == np.array([n for _, n in held_out])).sum()
    )
    guesses = predict(model, np.stack([crop for crop, _, _ in real])).argmax(1)
    right = guesses == np.array([count for _, count, _ in real])
    by_set = {}
    for source in sorted({source for _, _, source in real}):
        mask = np.array([s == source for _, _, s in real])
        by_set[source] = round(float(right[mask].mean()), 3)
    low, high = wilson(int(right.sum()), len(right))
    return {
        "variant": name,
        "seed": seed,
        "options": {key: (list(value) if isinstance(value, tuple) else value) for key, value in vars(options).items()},
        "synthetic_halves": len(halves),
        "synthetic_accuracy": round(synthetic_right / len(held_out), 3),
        "real_halves": len(real),
        "real_accuracy": round(float(right.mean()), 3),
        "real_wilson95": [round(low, 3), round(high, 3)],
        "real_accuracy_by_set": by_set,
        "seconds": round(time.perf_counter() - start),
    }


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per variant: the mean over seeds, each seed's value, and the change from the full renderer."""
    variants: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        variants.setdefault(row["variant"], []).append(row)
    full = variants.get("full")
    full_mean = float(np.mean([row["real_accuracy"] for row in full])) if full else None
    table = []
    for name, runs in variants.items():
        mean = float(np.mean([row["real_accuracy"] for row in runs]))
        table.append(
            {
                "variant": name,
                "real_accuracy_mean": round(mean, 3),
                "real_accuracy_by_seed": [row["real_accuracy"] for row in runs],
                "synthetic_accuracy_mean": round(float(np.mean([row["synthetic_accuracy"] for row in runs])), 3),
                "change_from_full": None if full_mean is None else round(mean - full_mean, 3),
            }
        )
    return table


def markdown(results: dict[str, Any]) -> str:
    lines = [
        "# Renderer realism: pip reading trained on synthetic halves, measured on real ones",
        "",
        f"`{results['command']}` ({results['date']}): {results['real_halves']} real halves cut from the",
        "hand-checked corners of ../shared/real; each variant is the full renderer with one choice switched off.",
        "The spread between seeds shows the run-to-run noise; one seed's Wilson 95 % interval over 516 halves",
        "is about +-2 points.",
        "",
        "| variant | real accuracy (mean) | by seed | change from full | synthetic accuracy |",
        "|---|---|---|---|---|",
    ]
    for row in results["summary"]:
        seeds = ", ".join(f"{value:.3f}" for value in row["real_accuracy_by_seed"])
        change = (
            "" if row["change_from_full"] is None or row["variant"] == "full" else f"{row['change_from_full']:+.3f}"
        )
        real, synthetic = row["real_accuracy_mean"], row["synthetic_accuracy_mean"]
        lines.append(f"| {row['variant']} | {real:.3f} | {seeds} | {change} | {synthetic:.3f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=600, help="hand scenes rendered per variant (default 600)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seeds", default="0,1", help="training and scene seeds, comma-separated (default 0,1)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated: {', '.join(VARIANTS)}")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/realism.json"))
    args = parser.parse_args()
    names = args.variants.split(",")
    unknown = [name for name in names if name not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant {unknown[0]!r} (expected one of {', '.join(VARIANTS)})")
    seeds = [int(seed) for seed in args.seeds.split(",")]
    real = real_halves()
    print(f"{len(real)} real halves; counts {sorted(Counter(count for _, count, _ in real).items())}", flush=True)
    rows = []
    for name in names:
        for seed in seeds:
            rows.append(measure(name, VARIANTS[name], real, args.scenes, args.epochs, seed))
            print(json.dumps(rows[-1]), flush=True)
    results = {
        "benchmark": "realism",
        "command": (
            f"python -m benchmarks.realism --scenes {args.scenes} --epochs {args.epochs} --seeds {args.seeds}"
            f" --variants {args.variants} --out {args.out}"
        ),
        "date": time.strftime("%Y-%m-%d"),
        "real_halves": len(real),
        "summary": summary(rows),
        "runs": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
