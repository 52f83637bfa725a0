"""A pinhole camera over the table, with radial lens distortion.

World coordinates are millimetres on the table: x right, y away from the viewer,
z up, table top at z = 0. ``project`` maps world points to distorted pixels;
``plane_homography`` maps a planar patch (any face of a box) into undistorted
pixels, where objects are drawn before ``distort_image`` bends the whole frame.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Camera:
    K: np.ndarray
    """``(3, 3)`` intrinsics."""
    R: np.ndarray
    """``(3, 3)`` rotation, world to camera."""
    centre_mm: np.ndarray
    """``(3,)`` camera position in the world."""
    size_px: tuple[int, int]
    """(width, height) of the image."""
    k1: float = 0.0
    """Radial distortion: a point at normalised radius r moves to r * (1 + k1 r^2)."""

    @property
    def t(self) -> np.ndarray:
        return -self.R @ self.centre_mm

    def to_camera(self, points_mm: np.ndarray) -> np.ndarray:
        """``(n, 3)`` world points in camera coordinates."""
        return (self.R @ np.asarray(points_mm, dtype=np.float64).T).T + self.t

    def project_undistorted(self, points_mm: np.ndarray) -> np.ndarray:
        cam = self.to_camera(points_mm)
        pixels = (self.K @ cam.T).T
        return pixels[:, :2] / pixels[:, 2:3]

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """``(n, 3)`` world points to ``(n, 2)`` pixels of the final, distorted image."""
        return self.distort_points(self.project_undistorted(points_mm))

    def plane_homography(self, origin_mm: np.ndarray, u_axis: np.ndarray, v_axis: np.ndarray) -> np.ndarray:
        """Maps plane coordinates (u, v, 1) of origin + u*u_axis + v*v_axis to undistorted pixels."""
        columns = np.stack([self.R @ u_axis, self.R @ v_axis, self.R @ origin_mm + self.t], axis=1)
        return self.K @ columns

    def distort_points(self, pixels: np.ndarray) -> np.ndarray:
        if self.k1 == 0:
            return np.asarray(pixels, dtype=np.float64)
        f, cx, cy = self.K[0, 0], self.K[0, 2], self.K[1, 2]
        normal = (np.asarray(pixels, dtype=np.float64) - (cx, cy)) / f
        r2 = (normal**2).sum(axis=1, keepdims=True)
        return normal * (1 + self.k1 * r2) * f + (cx, cy)

    def distort_image(self, image: np.ndarray) -> np.ndarray:
        """The frame as the lens bends it: for each output pixel, sample the undistorted one."""
        if self.k1 == 0:
            return image
        width, height = self.size_px
        f, cx, cy = self.K[0, 0], self.K[0, 2], self.K[1, 2]
        # The map is smooth: solve it on a coarse grid (every 8th pixel) and enlarge it.
        step = 8
        xs, ys = np.meshgrid(
            np.arange(0, width + step, step, dtype=np.float32), np.arange(0, height + step, step, dtype=np.float32)
        )
        dx, dy = (xs - cx) / f, (ys - cy) / f
        # Invert r_d = r_u (1 + k1 r_u^2) by a few fixed-point steps (converges for small k1).
        ux, uy = dx.copy(), dy.copy()
        for _ in range(5):
            factor = 1 + self.k1 * (ux * ux + uy * uy)
            ux, uy = dx / factor, dy / factor
        coarse_x, coarse_y = (ux * f + cx).astype(np.float32), (uy * f + cy).astype(np.float32)
        size = (coarse_x.shape[1] * step, coarse_x.shape[0] * step)
        map_x = cv2.resize(coarse_x, size, interpolation=cv2.INTER_LINEAR)[:height, :width]
        map_y = cv2.resize(coarse_y, size, interpolation=cv2.INTER_LINEAR)[:height, :width]
        return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    def facing(self, point_mm: np.ndarray, normal: np.ndarray) -> bool:
        """Whether a face at ``point_mm`` with outward ``normal`` faces the camera."""
        return float(np.dot(self.centre_mm - point_mm, normal)) > 0

    def distance(self, point_mm: np.ndarray) -> float:
        return float(np.linalg.norm(self.centre_mm - point_mm))


def look_at(eye: np.ndarray, target: np.ndarray, roll_rad: float = 0.0) -> np.ndarray:
    """World-to-camera rotation for a camera at ``eye`` looking at ``target`` (image y down)."""
    forward = target - eye
    forward = forward / np.linalg.norm(forward)
    up_hint = np.array([0.0, 1.0, 0.0]) if abs(forward[2]) > 0.99 else np.array([0.0, 0.0, 1.0])
    right = np.cross(forward, up_hint)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    if abs(forward[2]) > 0.99:  # straight down: keep world y pointing up the image
        right, down = np.array([1.0, 0.0, 0.0]), np.array([0.0, -1.0, 0.0])
    R = np.stack([right, down, forward])
    cos, sin = math.cos(roll_rad), math.sin(roll_rad)
    roll = np.array([[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]])
    return roll @ R


@dataclass(frozen=True)
class CameraChoice:
    """The ranges a random camera is drawn from."""

    max_tilt_deg: float = 45.0
    min_tilt_deg: float = 0.0
    """Above 0, every camera is tilted between this and ``max_tilt_deg`` (a steep set); at 0, one
    in five looks nearly straight down (up to 8 degrees off), as most photos of a hand do."""
    hfov_deg: tuple[float, float] = (45.0, 70.0)
    k1: tuple[float, float] = (-0.12, 0.05)
    fill: tuple[float, float] = (0.75, 1.15)
    """How much of the image's shorter side the scene's extent fills."""
    tile_share: tuple[float, float] | None = None
    """If set, frame by the tiles instead: a tile's length is this share of the image's longer
    side (drawn log-uniformly), as in close photos of a hand; the scene's extent may then
    overfill the frame up to ``max_fill``, and tiles at the edges are cut."""
    max_fill: float = 1.7


def random_camera(
    rng: random.Random,
    target_mm: np.ndarray,
    radius_mm: float,
    size_px: tuple[int, int],
    choice: CameraChoice,
    tile_mm: float = 0.0,
) -> Camera:
    """A camera looking at a scene of ``radius_mm`` around ``target_mm``, tilted off vertical as ``choice`` says
    (up to 45 degrees by default)."""
    width, height = size_px
    hfov = math.radians(rng.uniform(*choice.hfov_deg))
    f = (width / 2) / math.tan(hfov / 2)
    K = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]])
    steep = rng.random() < 0.8 or choice.min_tilt_deg > 0  # the draw is made either way: same seed, same scenes
    tilt = math.radians(rng.uniform(choice.min_tilt_deg, choice.max_tilt_deg) if steep else rng.uniform(0, 8))
    azimuth = rng.uniform(0, 2 * math.pi)
    # Distance such that the scene's radius spans the chosen share of the shorter side.
    half_side_px = rng.uniform(*choice.fill) * min(width, height) / 2
    distance = f * radius_mm / half_side_px
    if choice.tile_share is not None and tile_mm > 0:
        low, high = choice.tile_share
        share = math.exp(rng.uniform(math.log(low), math.log(high)))
        nearest = f * radius_mm / (choice.max_fill * min(width, height) / 2)
        distance = max(f * tile_mm / (share * max(width, height)), nearest)
    eye = target_mm + distance * np.array(
        [math.sin(tilt) * math.cos(azimuth), math.sin(tilt) * math.sin(azimuth), math.cos(tilt)]
    )
    R = look_at(eye, target_mm, roll_rad=rng.uniform(-math.pi, math.pi) if tilt < 0.15 else rng.uniform(-0.2, 0.2))
    return Camera(K, R, eye, size_px, k1=rng.uniform(*choice.k1))
