"""Candidate models in a benchmark: ``--detector``, ``--counter``, ``--verifier``, ``--refiner`` run in the
bundled ones' place."""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.pipeline import COUNTER, DETECTOR, REFINER, VERIFIER

BUNDLED = {"detector": DETECTOR, "counter": COUNTER, "verifier": VERIFIER, "refiner": REFINER}
"""Each role's bundled model (the keyword ``vision.pipeline.HandScorer`` takes it by)."""
WHAT = {"detector": "tile detector", "counter": "pip counter", "verifier": "tile verifier", "refiner": "box refiner"}


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    for role, bundled in BUNDLED.items():
        parser.add_argument(
            f"--{role}", type=Path, default=bundled, help=f"a candidate {WHAT[role]} (ONNX; default the bundled one)"
        )


def chosen_models(args: argparse.Namespace) -> dict[str, Path]:
    """Each role's model as the arguments give it, for ``HandScorer(**models)``."""
    return {role: getattr(args, role) for role in BUNDLED}


def candidate_flags(models: dict[str, Path]) -> str:
    """The flags that name the models other than the bundled ones, for a report's command line."""
    return "".join(f" --{role} {path}" for role, path in models.items() if path != BUNDLED[role])
