"""The one way the run-time models (detector, verifier, pip counter) are opened in onnxruntime."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def cpu_session(model_path: Path, what: str) -> Any:
    """An onnxruntime session on the CPU with 2 threads; ``what`` names the model when it is missing."""
    import onnxruntime

    if not model_path.exists():
        raise FileNotFoundError(f"no {what} model at {model_path}")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 2
    # threads that spin-wait after a run take the CPU from the next stage (detector, verifier, counter)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
