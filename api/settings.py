"""The service's settings, made once and kept on the app (``hubcam serve`` fills them from its options)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def data_folder() -> Path:
    """Where ``hubcam serve`` keeps its SQLite database unless ``--db`` says otherwise: the user's data
    folder ($XDG_DATA_HOME/hubcam, else ~/.local/share/hubcam), never the folder it happens to run in."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(base) if Path(base).is_absolute() else Path.home() / ".local" / "share") / "hubcam"


@dataclass(frozen=True)
class Settings:
    db_url: str
    """sqlite:///FILE (the default: a file in ``data_folder()``) or postgresql://..."""
    max_upload_bytes: int = 20_000_000
    """A request body past this is refused with 413 before it is read whole."""
    public_url: str | None = None
    """The address phones should open (for the scoreboard's QR code); by default the request's own."""
    profile: Path | None = None
    """A calibration profile (``hubcam calibrate ... --out``) for the camera the service reads: its table
    part has a slanted table read again square-on, its seats part stands for seats a request does not send."""
