"""The service's settings, made once and kept on the app (``hubcam serve`` fills them from its options)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DATA_FOLDER = Path("data")
"""Where ``make run`` keeps the SQLite database (not committed)."""


@dataclass(frozen=True)
class Settings:
    db_url: str
    """sqlite:///FILE (the default: a file in ``data/``) or postgresql://..."""
    max_upload_bytes: int = 20_000_000
    """A request body past this is refused with 413 before it is read whole."""
    public_url: str | None = None
    """The address phones should open (for the scoreboard's QR code); by default the request's own."""
