"""Labelled images: what a photo or a synthetic scene truly shows, in one shape for both.

Coordinates are pixels of the image as ``cv2.imread`` returns it (EXIF orientation
applied). A tile's ``corners`` go round its top face, and ``corners[0]->corners[1]``
is the short edge at the end of half ``pips[0]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FACE_UP, FACE_DOWN, STANDING = "face_up", "face_down", "standing"


@dataclass(frozen=True)
class LabelledTile:
    corners: np.ndarray
    """``(4, 2)`` float32 pixel corners of the top face."""
    pips: tuple[int, int] | None = None
    """Pips of the half at corners[0..1], then of the other half; None where the label has no pips."""
    unreadable: bool = False
    pose: str = FACE_UP
    cut: bool = False
    """Partly outside the frame."""
    hidden: tuple[bool, bool] = (False, False)
    """Whether each half has a pip washed out by glare (synthetic labels from generator 13, noted only:
    ``datasets.synth.face.HIDDEN_CONTRAST``)."""

    def __post_init__(self) -> None:
        corners = np.asarray(self.corners, dtype=np.float32)
        if corners.shape != (4, 2) or not np.isfinite(corners).all():
            raise ValueError(f"tile corners must be 4 finite (x, y) points, got shape {corners.shape}")
        object.__setattr__(self, "corners", corners)

    @property
    def counted(self) -> bool:
        """Whether the tile counts in a hand's total: face up, read, with pips known."""
        return self.pose == FACE_UP and not self.unreadable and self.pips is not None

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)


@dataclass(frozen=True)
class LabelledImage:
    path: Path
    width: int
    height: int
    tiles: tuple[LabelledTile, ...]
    source: str = ""
    """The set the image belongs to (a folder of ../shared/real, or 'synthetic')."""
    has_pips: bool = True
    """False for sets labelled with boxes only: pip metrics skip them."""
    chains: tuple[tuple[int, ...], ...] = ()
    """Lines of play as tile indices from one end to the other."""
    flags: tuple[dict[str, Any], ...] = ()
    """RULES.md 8 flags with ``kind`` and ``tiles`` (indices), where known."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Anything else the label says (hub, engine, trains, notes)."""

    @property
    def total_pips(self) -> int | None:
        if not self.has_pips:
            return None
        return sum(sum(tile.pips) for tile in self.tiles if tile.counted and tile.pips is not None)

    @property
    def name(self) -> str:
        return f"{self.source}/{self.path.name}" if self.source else self.path.name
