"""Candidate models in a benchmark: ``--detector``, ``--counter``, ``--verifier``, ``--refiner`` run in the
bundled ones' place."""

from __future__ import annotations

import argparse
from pathlib import Path

from models import COUNTER, DETECTOR, REFINER
from vision.onnx_session import repository_path
from vision.pipeline import OWN_VERDICT

BUNDLED: dict[str, Path | str] = {"detector": DETECTOR, "counter": COUNTER, "verifier": OWN_VERDICT, "refiner": REFINER}
"""Each role's bundled model (the keyword ``vision.pipeline.HandScorer`` takes it by): the verifier's is the
refiner's own verdict."""
WHAT = {"detector": "tile detector", "counter": "pip counter", "verifier": "tile verifier", "refiner": "box refiner"}


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    for role in BUNDLED:
        parser.add_argument(f"--{role}", type=Path, help=f"a candidate {WHAT[role]} (ONNX; default the bundled one)")


def chosen_models(args: argparse.Namespace) -> dict[str, Path | str]:
    """Each role's model as the arguments give it, for ``HandScorer(**models)``."""
    return {role: getattr(args, role) or bundled for role, bundled in BUNDLED.items()}


def candidate_flags(models: dict[str, Path | str]) -> str:
    """The flags that name the models other than the bundled ones, for a report's command line."""
    return "".join(f" --{role} {path}" for role, path in models.items() if path != BUNDLED[role])


def missing_models(models: dict[str, Path | str]) -> list[str]:
    """The flags naming a model file that is not there (the refiner's own verdict is no file)."""
    return [f"--{role} {path}" for role, path in models.items() if isinstance(path, Path) and not path.is_file()]


def named(models: dict[str, Path | str]) -> str:
    """The models as a report names them: each file from the repository's root where it lies inside it."""
    return ", ".join(
        f"{role} `{repository_path(path)}`" if isinstance(path, Path) else f"{role}: the refiner's own verdict"
        for role, path in models.items()
    )


def recorded(models: dict[str, Path | str]) -> dict[str, str]:
    """The models as a report's JSON records them (files from the repository's root where they lie inside it)."""
    return {role: str(repository_path(path) if isinstance(path, Path) else path) for role, path in models.items()}
