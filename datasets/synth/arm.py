"""A hand and forearm drawn over a video frame: skin-toned palm and fingers, a sleeve of some colour,
shaded round, with a soft shadow on the table and motion blur along the way it moves.

Sizes are in millimetres, turned to pixels by the frame's scale at the hand; the arm reaches in from
beyond an edge of the frame, so ``Arm.visible`` tells exactly when any of it is in view.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

SKIN_TONES = ((60, 85, 120), (80, 120, 170), (110, 150, 200), (130, 170, 220), (40, 60, 90), (95, 135, 190))
"""BGR skin tones, dark to light."""
PALM_MM, PALM_WIDTH_MM, FINGER_MM, FOREARM_MM = 100.0, 85.0, 75.0, 70.0
HAND_REACH_MM = PALM_MM + FINGER_MM
"""How far the hand reaches ahead of the wrist."""


@dataclass(frozen=True)
class ArmLook:
    """One person's arm: skin, sleeve, where the sleeve starts, and how its shadow falls."""

    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    sleeve_from_mm: float
    shadow_px: tuple[float, float]
    shadow: float

    @classmethod
    def random(cls, rng: random.Random, px_per_mm: float) -> ArmLook:
        skin = rng.choice(SKIN_TONES)
        skin = (skin[0] + rng.randint(-10, 10), skin[1] + rng.randint(-10, 10), skin[2] + rng.randint(-10, 10))
        sleeve = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        angle = rng.uniform(0, 2 * math.pi)
        reach = rng.uniform(15, 45) * px_per_mm  # the hand hovers some centimetres over the table
        return cls(
            skin,
            sleeve,
            rng.uniform(60, 250),
            (reach * math.cos(angle), reach * math.sin(angle)),
            rng.uniform(0.25, 0.5),
        )


@dataclass(frozen=True)
class Arm:
    """Where the arm is in one frame: its wrist (pixels), the way it points, its scale and speed."""

    wrist: tuple[float, float]
    heading: float
    """Radians, from the elbow to the fingers, in the image."""
    px_per_mm: float
    velocity: tuple[float, float] = (0.0, 0.0)
    """Pixels per frame (for motion blur)."""
    holding: tuple[int, int, int] | None = None
    """The colour of a tile held in the fingers, if one is."""
    tile_mm: tuple[float, float] = (50.0, 25.0)

    def _points(self, along: float, across: float) -> tuple[float, float]:
        s = self.px_per_mm
        c, n = math.cos(self.heading), math.sin(self.heading)
        return (self.wrist[0] + (c * along - n * across) * s, self.wrist[1] + (n * along + c * across) * s)

    def forearm(self, far_mm: float) -> np.ndarray:
        """The forearm from the wrist back ``far_mm`` (it widens towards the elbow)."""
        half = FOREARM_MM / 2
        points = [self._points(0, -half * 0.85), self._points(0, half * 0.85)]
        points += [self._points(-far_mm, half * 1.2), self._points(-far_mm, -half * 1.2)]
        return np.array(points, np.float32)

    def bounds(self, far_mm: float) -> np.ndarray:
        """Points round everything drawn, the shadow's offset left out."""
        reach = HAND_REACH_MM + 10
        half = PALM_WIDTH_MM * 0.75
        corners = [self._points(reach, -half), self._points(reach, half), self._points(-far_mm, half * 1.3)]
        corners += [self._points(-far_mm, -half * 1.3)]
        return np.array(corners, np.float32)

    def visible(self, size_px: tuple[int, int], look: ArmLook, far_mm: float, margin_px: float = 4.0) -> bool:
        """Whether any of the arm or its shadow lies in the frame."""
        points = self.bounds(far_mm)
        points = np.vstack([points, points + np.array(look.shadow_px, np.float32)])
        low, high = points.min(axis=0) - margin_px, points.max(axis=0) + margin_px
        return bool(high[0] >= 0 and high[1] >= 0 and low[0] < size_px[0] and low[1] < size_px[1])


def draw_arm(frame: np.ndarray, arm: Arm, look: ArmLook, far_mm: float) -> None:
    """Draw the arm (and its shadow) into ``frame`` in place."""
    height, width = frame.shape[:2]
    s = arm.px_per_mm
    blur = max(2, int(math.hypot(*arm.velocity)) + 2)
    points = arm.bounds(far_mm)
    points = np.vstack([points, points + np.array(look.shadow_px, np.float32)])
    x0, y0 = np.floor(points.min(axis=0)).astype(int) - blur - 8
    x1, y1 = np.ceil(points.max(axis=0)).astype(int) + blur + 8
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 <= x0 or y1 <= y0:
        return
    offset = np.array([x0, y0], np.float32)
    size = (y1 - y0, x1 - x0)
    skin, sleeve = np.zeros(size, np.uint8), np.zeros(size, np.uint8)

    def ellipse(mask: np.ndarray, along: float, across: float, axes_mm: tuple[float, float], turn: float = 0.0) -> None:
        centre = np.array(arm._points(along, across)) - offset
        axes = (max(1, int(axes_mm[0] * s)), max(1, int(axes_mm[1] * s)))
        angle = math.degrees(arm.heading + turn)
        cv2.ellipse(mask, (int(centre[0]), int(centre[1])), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)

    cv2.fillPoly(skin, [np.round(arm.forearm(far_mm) - offset).astype(np.int32)], 255, cv2.LINE_AA)
    ellipse(skin, PALM_MM * 0.5, 0, (PALM_MM * 0.55, PALM_WIDTH_MM * 0.5))
    for finger in range(4):
        across = (finger - 1.5) * PALM_WIDTH_MM * 0.24
        length = FINGER_MM * (0.85 if finger in (0, 3) else 1.0)
        ellipse(skin, PALM_MM + length * 0.4, across, (length * 0.55, 9.0))
    ellipse(skin, PALM_MM * 0.45, -PALM_WIDTH_MM * 0.55, (35.0, 11.0), turn=-0.7)  # the thumb
    sleeve_poly = arm.forearm(far_mm)
    sleeve_poly[:2] = [
        arm._points(-look.sleeve_from_mm, FOREARM_MM * 0.65),
        arm._points(-look.sleeve_from_mm, -FOREARM_MM * 0.65),
    ]
    sleeve_poly[2:] = [arm._points(-far_mm, -FOREARM_MM * 0.75), arm._points(-far_mm, FOREARM_MM * 0.75)]
    cv2.fillPoly(sleeve, [np.round(sleeve_poly - offset).astype(np.int32)], 255, cv2.LINE_AA)

    mask = cv2.max(skin, sleeve)
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    # the shadow: the arm's outline, shifted away from the light and softened
    shift = np.float32([[1, 0, look.shadow_px[0]], [0, 1, look.shadow_px[1]]])
    shadow = cv2.warpAffine(mask, shift, (size[1], size[0]))
    shadow = _soft(shadow, max(3.0, 12 * s)) * (look.shadow / 255)
    roi *= (1 - shadow)[:, :, None]
    # rounded shading: brighter along the middle of each limb
    rounded = _soft(mask, max(2.0, 14 * s)) / 255
    shade = (0.55 + 0.5 * rounded)[:, :, None]
    sleeve_alpha = sleeve.astype(np.float32)[:, :, None] / 255
    colour = np.array(look.skin, np.float32) * (1 - sleeve_alpha) + np.array(look.sleeve, np.float32) * sleeve_alpha
    layer = colour * shade
    if arm.holding is not None:  # a tile pinched under the fingertips, its back towards the camera
        tile = np.zeros(size, np.uint8)
        centre = np.array(arm._points(PALM_MM + FINGER_MM * 0.7, 0)) - offset
        box = (
            (float(centre[0]), float(centre[1])),
            (arm.tile_mm[0] * s, arm.tile_mm[1] * s),
            math.degrees(arm.heading) + 90,
        )
        cv2.fillPoly(tile, [np.round(cv2.boxPoints(box)).astype(np.int32)], 255, cv2.LINE_AA)
        tile_alpha = tile.astype(np.float32)[:, :, None] / 255
        layer = layer * (1 - tile_alpha) + np.array(arm.holding, np.float32) * tile_alpha
        mask = cv2.max(mask, tile)
    alpha = mask.astype(np.float32)[:, :, None] / 255
    layer *= alpha
    speed = math.hypot(*arm.velocity)
    if speed > 1.0:  # motion blur over the frame's exposure (about half the frame time)
        kernel = _motion_kernel(speed * 0.5, math.degrees(math.atan2(arm.velocity[1], arm.velocity[0])))
        layer = cv2.filter2D(layer, -1, kernel)
        alpha = cv2.filter2D(alpha[:, :, 0], -1, kernel)[:, :, None]
    roi = roi * (1 - alpha) + layer
    frame[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """``mask`` blurred by ``sigma`` pixels, as float32: at a fraction of the size (a wide blur is smooth)."""
    height, width = mask.shape
    step = max(1, int(sigma // 3))
    small = cv2.resize(mask, (max(1, width // step), max(1, height // step)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small.astype(np.float32), (0, 0), sigma / step)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def _motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    size = int(length_px) * 2 + 1
    kernel = np.zeros((size, size), np.float32)
    centre = size // 2
    dx, dy = math.cos(math.radians(angle_deg)) * length_px / 2, math.sin(math.radians(angle_deg)) * length_px / 2
    cv2.line(
        kernel, (round(centre - dx), round(centre - dy)), (round(centre + dx), round(centre + dy)), 1.0, 1, cv2.LINE_AA
    )
    return kernel / kernel.sum()
