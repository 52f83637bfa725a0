"""Drawing 3D objects (tiles as boxes, the hub as a prism, markers) through a camera.

Objects are drawn far to near (the painter's way) into the undistorted frame; the
lens distortion and the photographic look are applied to the whole frame after.
A textured face is warped only inside its bounding rectangle, which keeps a frame
of 30 tiles well under a second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from datasets.synth.camera import Camera

Texture = tuple[np.ndarray, np.ndarray]
"""(BGR, alpha) images."""


@dataclass(frozen=True)
class Light:
    direction: np.ndarray
    """Unit vector toward the light."""
    ambient: float
    shadow: float
    """How dark a full shadow is (0 none, 1 black)."""
    softness_px: float

    def shade(self, normal: np.ndarray) -> float:
        return self.ambient + (1 - self.ambient) * max(0.0, float(np.dot(normal, self.direction)))


def random_light(rng: np.random.Generator) -> Light:
    elevation = math.radians(rng.uniform(35, 85))
    azimuth = rng.uniform(0, 2 * math.pi)
    direction = np.array(
        [math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth), math.sin(elevation)]
    )
    return Light(
        direction, ambient=rng.uniform(0.5, 0.75), shadow=rng.uniform(0.2, 0.55), softness_px=rng.uniform(2, 9)
    )


@dataclass
class Box:
    """A box on the table: ``base`` is the centre of its bottom face; axes a (length), b, c (up)."""

    base: np.ndarray
    axes: tuple[np.ndarray, np.ndarray, np.ndarray]
    size: tuple[float, float, float]
    colour: tuple[int, int, int]
    """The flat colour of faces without a texture."""
    textures: dict[str, Texture] = field(default_factory=dict)
    """Textures by face: 'top' (+c), 'bottom' (-c), 'front' (+b), 'back' (-b)."""

    @property
    def centre(self) -> np.ndarray:
        return self.base + self.axes[2] * self.size[2] / 2

    def vertices(self) -> np.ndarray:
        a, b, c = self.axes
        sx, sy, sz = self.size
        return np.array(
            [self.base + i * sx / 2 * a + j * sy / 2 * b + k * sz * c for k in (0, 1) for j in (-1, 1) for i in (-1, 1)]
        )

    def faces(self) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """(name, outward normal, origin, u axis, v axis) with the face spanning origin + [0,1]u + [0,1]v."""
        a, b, c = self.axes
        sx, sy, sz = self.size
        low = self.base - a * sx / 2 - b * sy / 2
        top = low + c * sz
        return [
            ("top", c, top, a * sx, b * sy),
            ("bottom", -c, low + b * sy, a * sx, -b * sy),
            ("front", b, top + b * sy, a * sx, -c * sz),
            ("back", -b, low + a * sx + c * sz, -a * sx, -c * sz),
            ("right", a, top + a * sx, b * sy, -c * sz),
            ("left", -a, top + b * sy, -b * sy, -c * sz),
        ]

    def top_corners(self) -> np.ndarray:
        """The top face's corners in label order (the short edge at the texture's left first)."""
        _, _, origin, u, v = self.faces()[0]
        return np.array([origin, origin + v, origin + u + v, origin + u])

    def draw(self, frame: np.ndarray, camera: Camera, light: Light) -> None:
        for name, normal, origin, u, v in self.faces():
            centre = origin + (u + v) / 2
            if not camera.facing(centre, normal):
                continue
            shade = light.shade(normal)
            if name in self.textures:
                draw_texture(frame, camera, self.textures[name], origin, u, v, shade)
            else:
                corners = np.array([origin, origin + u, origin + u + v, origin + v])
                colour = tuple(int(min(255, channel * shade * 0.85)) for channel in self.colour)
                fill_polygon(frame, camera.project_undistorted(corners), colour)

    def outline(self) -> np.ndarray:
        """World points whose convex hull holds the object (for shadows)."""
        return self.vertices()


@dataclass
class Prism:
    """A round hub: a many-sided prism with a textured top."""

    centre_mm: np.ndarray
    radius_mm: float
    height_mm: float
    colour: tuple[int, int, int]
    top: Texture
    sides: int = 48

    @property
    def centre(self) -> np.ndarray:
        return self.centre_mm + np.array([0, 0, self.height_mm / 2])

    def rim(self, z: float) -> np.ndarray:
        angles = np.linspace(0, 2 * math.pi, self.sides, endpoint=False)
        return np.stack(
            [
                self.centre_mm[0] + self.radius_mm * np.cos(angles),
                self.centre_mm[1] + self.radius_mm * np.sin(angles),
                np.full(self.sides, z),
            ],
            axis=1,
        )

    def draw(self, frame: np.ndarray, camera: Camera, light: Light) -> None:
        low, high = self.rim(0.0), self.rim(self.height_mm)
        for i in range(self.sides):
            j = (i + 1) % self.sides
            middle = (low[i] + low[j]) / 2
            normal = np.append(middle[:2] - self.centre_mm[:2], 0.0)
            normal /= np.linalg.norm(normal)
            if camera.facing(middle, normal):
                shade = light.shade(normal)
                colour = tuple(int(min(255, channel * shade * 0.8)) for channel in self.colour)
                quad = np.array([low[i], low[j], high[j], high[i]])
                fill_polygon(frame, camera.project_undistorted(quad), colour)
        corner = self.centre_mm + np.array([-self.radius_mm, -self.radius_mm, self.height_mm])
        side = 2 * self.radius_mm
        draw_texture(
            frame,
            camera,
            self.top,
            corner,
            np.array([side, 0, 0]),
            np.array([0, side, 0]),
            light.shade(np.array([0, 0, 1.0])),
        )

    def outline(self) -> np.ndarray:
        return np.vstack([self.rim(0.0), self.rim(self.height_mm)])


def draw_texture(
    frame: np.ndarray, camera: Camera, texture: Texture, origin: np.ndarray, u: np.ndarray, v: np.ndarray, shade: float
) -> None:
    """Warp a texture onto the face origin + [0,1]u + [0,1]v, inside the face's bounding rectangle."""
    colour, alpha = texture
    height, width = colour.shape[:2]
    H = camera.plane_homography(origin, u / width, v / height)
    corners = cv2.perspectiveTransform(np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float32), H)[0]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    shifted = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ H
    size = (x1 - x0, y1 - y0)
    patch = cv2.warpPerspective(colour, shifted, size, flags=cv2.INTER_AREA if size[0] < width else cv2.INTER_LINEAR)
    weight = cv2.warpPerspective(alpha, shifted, size, flags=cv2.INTER_LINEAR).astype(np.float32)[:, :, None] / 255
    region = frame[y0:y1, x0:x1].astype(np.float32)
    frame[y0:y1, x0:x1] = np.clip(region * (1 - weight) + patch.astype(np.float32) * shade * weight, 0, 255).astype(
        np.uint8
    )


def fill_polygon(frame: np.ndarray, points_px: np.ndarray, colour: tuple[int, ...]) -> None:
    shift = 4
    cv2.fillConvexPoly(frame, np.round(points_px * (1 << shift)).astype(np.int32), colour, cv2.LINE_AA, shift)


def cast_shadows(frame: np.ndarray, camera: Camera, light: Light, outlines: list[np.ndarray]) -> None:
    """Darken the table where objects block the light (shadows fall on the table plane)."""
    mask = np.zeros(frame.shape[:2], np.float32)
    along = light.direction / light.direction[2]
    for points in outlines:
        on_table = points - points[:, 2:3] * along
        pixels = camera.project_undistorted(on_table).astype(np.float32)
        hull = cv2.convexHull(pixels)
        cv2.fillConvexPoly(mask, np.round(hull).astype(np.int32), 1.0, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), light.softness_px)
    frame[:] = np.clip(frame.astype(np.float32) * (1 - light.shadow * mask[:, :, None]), 0, 255).astype(np.uint8)
