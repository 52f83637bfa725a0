"""Corners jittered as a detector finds them: what the pip counters are trained to read halves cut from."""

from __future__ import annotations

import numpy as np


def loosen(corners: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Corners as a detector might give them: the box a little larger or smaller, shifted,
    turned, each corner off by a little (shares of the tile's width)."""
    centre = corners.mean(axis=0)
    width = float(np.linalg.norm(corners[1] - corners[0]))
    angle = rng.normal(0, 0.03)
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
    scale = rng.uniform(0.94, 1.1, size=2)
    along = (corners[2] - corners[1]) / max(np.linalg.norm(corners[2] - corners[1]), 1e-6)
    across = (corners[1] - corners[0]) / max(width, 1e-6)
    local = np.stack([(corners - centre) @ along, (corners - centre) @ across], axis=1) * scale
    moved = local[:, :1] * along + local[:, 1:] * across
    shift = rng.normal(0, 0.05 * width, size=2)
    noise = rng.normal(0, 0.03 * width, size=(4, 2))
    return ((moved @ turn.T) + centre + shift + noise).astype(np.float32)
