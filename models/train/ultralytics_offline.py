"""Ultralytics set up never to reach the network (train extra), for the detector's training and for
rebuilding its weights from an export alike.

``YOLO_OFFLINE`` is set and the settings live in the project's ``.yolo/`` folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def offline_ultralytics() -> Any:
    """Ultralytics' ``YOLO`` class, imported once the environment keeps it offline."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_CONFIG_DIR", str(REPO / ".yolo"))
    from ultralytics import YOLO

    return YOLO
