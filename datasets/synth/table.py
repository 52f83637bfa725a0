"""Table surfaces drawn in table millimetres: wood, felt, patterned cloth, dark, white."""

from __future__ import annotations

import random

import cv2
import numpy as np

TABLE_KINDS = ("wood", "felt", "cloth", "dark", "white")


def render_table(kind: str, size_px: tuple[int, int], mm_per_px: float, rng: random.Random) -> np.ndarray:
    """A ``(height, width)`` BGR texture of the table top, ``mm_per_px`` millimetres per pixel."""
    width, height = size_px
    noise = np.random.default_rng(rng.randrange(2**32))
    if kind == "wood":
        texture = _wood(width, height, mm_per_px, rng, noise)
    elif kind == "felt":
        base = rng.choice([(40, 110, 30), (90, 60, 20), (30, 30, 120), (70, 70, 70)])
        texture = _flat(width, height, base, noise, grain=9)
    elif kind == "cloth":
        texture = _cloth(width, height, mm_per_px, rng, noise)
    elif kind == "dark":
        texture = _flat(width, height, (rng.randint(8, 35),) * 3, noise, grain=4)
    elif kind == "white":
        texture = _flat(width, height, (rng.randint(215, 245),) * 3, noise, grain=3)
    else:
        raise ValueError(f"invalid table kind: {kind!r} (expected one of {', '.join(TABLE_KINDS)})")
    return texture


def _flat(width: int, height: int, colour: tuple[int, ...], noise: np.random.Generator, grain: float) -> np.ndarray:
    """A colour with soft blotches and fine grain (felt, cloth, paper, a dark tabletop)."""
    small = noise.standard_normal((max(2, height // 8), max(2, width // 8)), dtype=np.float32) * grain
    texture = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)
    texture += _grain(noise, height, width, grain / 2)
    return _tinted(texture, colour)


def _grain(noise: np.random.Generator, height: int, width: int, sigma: float) -> np.ndarray:
    return noise.standard_normal((height, width), dtype=np.float32) * np.float32(sigma)


def _tinted(offset: np.ndarray, colour: tuple[int, ...] | np.ndarray) -> np.ndarray:
    """A one-channel offset added to a colour, as uint8 BGR."""
    planes = [cv2.add(offset, float(channel)) for channel in colour]
    return cv2.merge([cv2.convertScaleAbs(plane) for plane in planes])


def _wood(width: int, height: int, mm_per_px: float, rng: random.Random, noise: np.random.Generator) -> np.ndarray:
    """Planks with grain running along x (drawn at half size: grain is smooth)."""
    base = np.asarray(rng.choice([(40, 80, 140), (30, 60, 100), (70, 120, 170), (20, 40, 70)]), np.float32)
    half_w, half_h = max(2, width // 2), max(2, height // 2)
    ys, xs = np.mgrid[0:half_h, 0:half_w].astype(np.float32) * np.float32(mm_per_px * 2)
    plank_mm = rng.uniform(80, 160)
    plank = np.floor(ys / plank_mm)
    wobble = 4 * np.sin(xs / rng.uniform(60, 200) + plank * 1.7)
    grain = np.sin((ys + wobble) * rng.uniform(0.8, 1.6)) * 0.5 + np.sin((ys + 2 * wobble) * 0.23) * 0.5
    shade = 1 + 0.08 * grain + 0.06 * np.cos(plank * 2.3)
    seams = np.abs(ys - (plank + 1) * plank_mm) < 1.6 * max(1.0, mm_per_px)
    shade = np.where(seams, shade * 0.5, shade).astype(np.float32)
    shade = cv2.resize(shade, (width, height), interpolation=cv2.INTER_LINEAR)
    planes = [cv2.convertScaleAbs(shade * channel + _grain(noise, height, width, 3)) for channel in base]
    return cv2.merge(planes)


def _cloth(width: int, height: int, mm_per_px: float, rng: random.Random, noise: np.random.Generator) -> np.ndarray:
    """Checks, stripes or dots: the patterned cloths that break plain thresholds."""
    first = np.asarray(rng.choice([(40, 40, 180), (160, 90, 30), (40, 120, 40), (200, 200, 200)]), np.float32)
    second = np.asarray(rng.choice([(235, 235, 235), (30, 30, 30), (90, 200, 230)]), np.float32)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32) * np.float32(mm_per_px)
    period = rng.uniform(8, 40)
    pattern = rng.choice(["checks", "stripes", "dots"])
    if pattern == "checks":
        mix = ((np.floor(xs / period) + np.floor(ys / period)) % 2) * 0.7 + 0.15 * (np.floor(xs / period) % 2)
    elif pattern == "stripes":
        angle = rng.uniform(0, np.pi)
        mix = (np.sin((xs * np.cos(angle) + ys * np.sin(angle)) * 2 * np.pi / period) > 0).astype(np.float32)
    else:
        mix = ((((xs % period) - period / 2) ** 2 + ((ys % period) - period / 2) ** 2) < (period / 4) ** 2).astype(
            np.float32
        )
    mix = cv2.GaussianBlur(mix.astype(np.float32), (0, 0), max(0.5, 0.6 / mm_per_px))
    grain = _grain(noise, height, width, 5)
    planes = [cv2.convertScaleAbs(a + (b - a) * mix + grain) for a, b in zip(first, second, strict=True)]
    return cv2.merge(planes)
