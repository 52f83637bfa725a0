"""What light, lens and sensor do to a frame: colour of light, falloff, blur, noise, JPEG."""

from __future__ import annotations

import random
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Look:
    """The photographic choices of one frame."""

    warmth: float
    """-1 cold (blue) to +1 warm (tungsten)."""
    exposure: float
    falloff: float
    """How much darker the corners are (vignetting and uneven light)."""
    defocus_px: float
    motion_px: float
    motion_angle_deg: float
    noise: float
    jpeg_quality: int


def random_look(rng: random.Random) -> Look:
    return Look(
        warmth=rng.uniform(-0.5, 0.9),
        exposure=rng.uniform(0.75, 1.2),
        falloff=rng.uniform(0.0, 0.45),
        defocus_px=rng.choice([0.0, 0.0, rng.uniform(0.5, 2.0)]),
        motion_px=rng.choice([0.0, 0.0, 0.0, rng.uniform(2, 7)]),
        motion_angle_deg=rng.uniform(0, 180),
        noise=rng.uniform(1, 7),
        jpeg_quality=rng.randint(55, 95),
    )


def apply_look(image: np.ndarray, look: Look, rng: random.Random) -> np.ndarray:
    """Light colour, exposure and falloff, then lens blur, motion, sensor noise and JPEG."""
    height, width = image.shape[:2]
    frame = image.astype(np.float32)
    gains = np.array([1 - 0.18 * look.warmth, 1.0, 1 + 0.15 * look.warmth], np.float32) * look.exposure
    # Falloff is smooth: compute it on a small grid and enlarge.
    ys, xs = np.mgrid[0:32, 0:32].astype(np.float32) / 31
    cx, cy = rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7)
    aspect = np.float32(height / width)
    radius = ((xs - cx) ** 2 + ((ys - cy) * aspect) ** 2) / (1 + aspect**2)
    light = cv2.resize((1 - look.falloff * radius * 2).astype(np.float32), (width, height))
    frame *= light[:, :, None]
    frame *= gains[None, None, :]
    if look.defocus_px > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), look.defocus_px)
    if look.motion_px > 0:
        frame = cv2.filter2D(frame, -1, _motion_kernel(look.motion_px, look.motion_angle_deg))
    noise = np.random.default_rng(rng.randrange(2**32))  # seeded: the same scene gives the same photo
    frame = cv2.convertScaleAbs(frame + noise.standard_normal(frame.shape, dtype=np.float32) * np.float32(look.noise))
    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, look.jpeg_quality])
    assert ok
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR)


def _motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    size = int(length_px) * 2 + 1
    kernel = np.zeros((size, size), np.float32)
    centre = size // 2
    direction = np.deg2rad(angle_deg)
    dx, dy = np.cos(direction) * length_px / 2, np.sin(direction) * length_px / 2
    cv2.line(
        kernel, (round(centre - dx), round(centre - dy)), (round(centre + dx), round(centre + dy)), 1.0, 1, cv2.LINE_AA
    )
    return kernel / kernel.sum()
