"""What ``hubcam watch --show`` and ``--record`` draw on each frame: the last stable table's overlay
(``vision.overlay.draw_table``, shared with ``hubcam analyze --overlay``) and the last events, an
illegal play or a flag in red."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.draw import BLACK, GREEN, RED, thickness_for
from vision.observation import Observation
from vision.overlay import draw_table
from vision.table_analysis import TableAnalysis


def watched_frame(
    frame_bgr: np.ndarray, seen: Observation | None, analysis: TableAnalysis | None, events: list[dict[str, Any]]
) -> np.ndarray:
    """The frame with the accepted table drawn on (where one is) and a line per recent event at the foot."""
    drawn = frame_bgr.copy() if seen is None or analysis is None else draw_table(frame_bgr, seen, analysis)
    thickness = thickness_for(drawn)
    scale = 0.5 * thickness
    height = drawn.shape[0]
    for row, event in enumerate(reversed(events[-3:])):
        alarm = event.get("event") in ("flag", "redo", "lost") or event.get("legal") is False
        text = event_text(event)
        at = (10, height - 12 - row * int(30 * scale + 10))
        cv2.putText(drawn, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, BLACK, thickness + 2, cv2.LINE_AA)
        cv2.putText(drawn, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, RED if alarm else GREEN, thickness, cv2.LINE_AA)
    return drawn


def event_text(event: dict[str, Any]) -> str:
    """An event in one line, as the overlay and ``hubcam watch`` without ``--json`` write it."""
    kind, when = event.get("event"), f"{event.get('t_s', 0):7.2f}s"
    if kind == "play":
        train = event.get("train")
        where = "the Mexican train" if train == "mexican" else f"train {train}"
        verdict = "legal" if event.get("legal") else f"ILLEGAL ({event.get('reason')}: {event.get('message')})"
        if event.get("legal") is None:
            verdict = event.get("message", "")
        return f"{when} seat {event.get('player')} plays {event.get('tile')} on {where}: {verdict}"
    if kind == "flag":
        return f"{when} ! {event.get('kind')}: {event.get('message')}"
    return f"{when} {kind}: {event.get('message', '')}"
