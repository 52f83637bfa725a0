"""The one way the run-time models are opened in onnxruntime, and their cards read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

THREADS = 2
_shared_pool: bool | None = None
"""Whether the sessions share onnxruntime's global thread pool (decided at the first session)."""


def cpu_session(model_path: Path, what: str) -> Any:
    """An onnxruntime session on the CPU with 2 threads; ``what`` names the model when it is missing.

    The three models run one after another on every photo, so they share one thread pool: with a
    pool each, every hand-over woke another pool's sleeping thread, and a 1600x1200 hand took
    about 4 ms longer (benchmarks/score_bench.py). Threads do not spin-wait after a run either:
    spinning took the CPU from the next stage and cost more than it saved.
    """
    import onnxruntime

    global _shared_pool
    if not model_path.exists():
        raise FileNotFoundError(f"no {what} model at {model_path}")
    if _shared_pool is None:
        try:  # only possible before onnxruntime's environment exists
            onnxruntime.set_global_thread_pool_sizes(THREADS, 1)
            _shared_pool = True
        except RuntimeError:
            _shared_pool = False
    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if _shared_pool:
        options.use_per_session_threads = False
        try:
            return onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        except RuntimeError:  # the environment was made without the pool after all: a pool per session
            _shared_pool = False
            options.use_per_session_threads = True
    options.intra_op_num_threads = THREADS
    return onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


def as_input(images: np.ndarray) -> np.ndarray:
    """``(n, H, W, 3)`` uint8 BGR images as the ``(n, 3, H, W)`` float 0-1 the small networks take."""
    batch: np.ndarray = images.transpose(0, 3, 1, 2).astype(np.float32) / 255
    return batch


def probabilities_of(logits: np.ndarray) -> np.ndarray:
    """``(n,)`` float32 probabilities from ``(n, 1)`` logits (the logistic function)."""
    said: np.ndarray = (1 / (1 + np.exp(-logits.reshape(-1)))).astype(np.float32)
    return said


def model_card(model_path: Path) -> dict[str, Any]:
    """The ``card.json`` beside a model (its recipe, class names, ...); empty where there is none."""
    card_path = model_path.with_name("card.json")
    card: dict[str, Any] = json.loads(card_path.read_text()) if card_path.exists() else {}
    return card


def repository_path(path: Path) -> Path:
    """``path`` from the repository's root where it lies inside it (a bundled model's), else as given."""
    root = Path(__file__).resolve().parents[1]
    try:
        return path.resolve().relative_to(root)
    except ValueError:
        return path
