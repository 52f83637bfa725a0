"""Photos of hubcam's printed calibration board taken by a known camera: what ``hubcam calibrate camera``
is tested and measured on (issue 68).

The sheet (``calibration.board``, 30 cm wide) lies on a wooden table; each photo poses it anew:
tilted up to 50 degrees, turned, near or far, pushed into a corner or against an edge of the frame,
now and then partly out of it; every tenth photo is a small, steep shot in a corner of the frame
(whose markers may be too small to read: such a photo is to be skipped, and said so). Every pixel of
the photo is traced back through the camera's lens distortion (OpenCV's model, the same the
calibration fits) and its pinhole to the sheet's plane, where the board's image is sampled; then
blur, uneven light and sensor noise.

    python -m datasets.synth.board_photos --camera webcam --n 20 --out out/board-photos
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from calibration.board import HUBCAM_BOARD, MARGIN_SQUARES, Board, board_image


@dataclass(frozen=True)
class PhotoCamera:
    """A camera with OpenCV's lens model: the truth a calibration should recover."""

    name: str
    size_px: tuple[int, int]
    """(width, height)."""
    camera_matrix: tuple[tuple[float, float, float], ...]
    """``(3, 3)`` as nested tuples (a frozen value): fx 0 cx / 0 fy cy / 0 0 1."""
    distortion: tuple[float, ...]
    """k1 k2 p1 p2 k3, OpenCV's order."""

    @property
    def K(self) -> np.ndarray:
        return np.array(self.camera_matrix, np.float64)

    @property
    def D(self) -> np.ndarray:
        return np.array(self.distortion, np.float64)


CAMERAS = {
    "webcam": PhotoCamera(
        "webcam", (1280, 720), ((760.0, 0, 645.5), (0, 758.0, 354.0), (0, 0, 1)), (-0.30, 0.10, 0.0008, -0.0006, -0.012)
    ),
    "hd": PhotoCamera(
        "hd", (1920, 1080), ((1480.0, 0, 964.0), (0, 1480.0, 537.5), (0, 0, 1)), (-0.09, 0.06, -0.0004, 0.0007, -0.01)
    ),
    "phone": PhotoCamera(
        "phone",
        (4032, 3024),
        ((3120.0, 0, 2011.0), (0, 3120.0, 1519.0), (0, 0, 1)),
        (0.06, -0.12, 0.0003, -0.0002, 0.05),
    ),
}
"""A 1280x720 webcam with strong barrel distortion (a third of the image's half-diagonal at its
corners), a 1920x1080 camera with a little, and a 4032x3024 phone."""
SMALL = PhotoCamera(
    "small", (640, 400), ((470.0, 0, 322.0), (0, 470.0, 198.5), (0, 0, 1)), (-0.22, 0.08, 0.0005, -0.0004, -0.01)
)
"""A small webcam with clear barrel distortion, for fast tests."""

MAX_TILT_DEG = 50.0
FAR_EVERY = 10
WHERE = [(x, y) for x in (0.2, 0.5, 0.8) for y in (0.22, 0.5, 0.78)]
"""Where in the frame (shares of width and height) a photo puts the sheet's centre: every corner,
every edge and the middle, in turn."""


@dataclass(frozen=True)
class BoardPhoto:
    image_bgr: np.ndarray
    rotation: np.ndarray
    """``(3, 3)``: the board's axes in the camera's (x right, y down along the board, z into it)."""
    translation_mm: np.ndarray
    """``(3,)``: the board pattern's top-left corner in the camera's frame."""


def undistorted_rays(camera: PhotoCamera) -> np.ndarray:
    """``(height, width, 2)`` float32: each pixel traced back through the lens to the normalised image
    plane (x/z, y/z), OpenCV's iterative inverse run to convergence (one per camera, kept)."""
    return _rays(camera).copy()


@cache
def _rays(camera: PhotoCamera) -> np.ndarray:
    width, height = camera.size_px
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    pixels = np.stack([xs, ys], axis=-1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
    rays = cv2.undistortPoints(pixels, camera.K, camera.D, criteria=criteria)
    return np.asarray(rays, np.float32).reshape(height, width, 2)


def pose(
    camera: PhotoCamera, index: int, rng: np.random.Generator, board: Board = HUBCAM_BOARD
) -> tuple[np.ndarray, np.ndarray]:
    """Photo ``index``'s board pose: rotation and the pattern corner's position (mm), camera frame. Every
    ``FAR_EVERY``-th photo is a far, steep shot in a corner, which may show too little to be read."""
    width, height = camera.size_px
    far = index % FAR_EVERY == FAR_EVERY - 1
    spot = np.array(WHERE[index % len(WHERE)]) + rng.uniform(-0.06, 0.06, 2)
    if far:
        spot = np.array([(0.12, 0.14), (0.88, 0.14), (0.12, 0.86), (0.88, 0.86)][index % 4])
    elif rng.random() < 0.2:  # now and then the sheet runs past the frame's edge
        spot = spot + np.sign(spot - 0.5) * (np.abs(spot - 0.5) > 0.1) * 0.1
    # the sheet's width over the frame's, as if seen square-on
    cover = rng.uniform(0.2, 0.3) if far else rng.uniform(0.35, 0.65)
    sheet_w, sheet_h = board.size_mm
    depth = camera.K[0, 0] * sheet_w / (cover * width)
    pixel = np.array([[spot * (width, height)]], np.float64)
    ray = cv2.undistortPoints(pixel, camera.K, camera.D).reshape(2)
    centre = depth * np.array([ray[0], ray[1], 1.0])
    tilt = math.radians(rng.uniform(0.8 if far else 0.3, 1.0) * MAX_TILT_DEG)
    axis_angle = rng.uniform(0, 2 * math.pi)
    axis = np.array([math.cos(axis_angle), math.sin(axis_angle), 0.0])
    tilted = cv2.Rodrigues(axis * tilt)[0]
    turn = rng.uniform(-35, 35) + (180 if rng.random() < 0.15 else 0)
    turned = cv2.Rodrigues(np.array([0.0, 0.0, math.radians(turn)]))[0]
    rotation = tilted @ turned
    margin = MARGIN_SQUARES * board.square_mm
    sheet_centre = np.array([sheet_w / 2 - margin, sheet_h / 2 - margin, 0.0])  # in the pattern's frame
    return rotation, centre - rotation @ sheet_centre


def render(
    camera: PhotoCamera,
    rotation: np.ndarray,
    translation_mm: np.ndarray,
    rng: np.random.Generator,
    board: Board = HUBCAM_BOARD,
) -> np.ndarray:
    """The photo of the board at that pose: ``(height, width, 3)`` uint8 BGR."""
    width, height = camera.size_px
    rays = _rays(camera)
    # the plane z = 0 of the pattern: camera ray (x, y, 1) meets it at pattern point H^-1 (x, y, 1)
    margin = MARGIN_SQUARES * board.square_mm
    to_camera = np.column_stack([rotation[:, 0], rotation[:, 1], translation_mm]) @ np.array(
        [[1, 0, -margin], [0, 1, -margin], [0, 0, 1.0]]
    )  # sheet mm (from the sheet's own corner) to the camera's ray
    texture = _texture(board, _texture_scale(camera, to_camera, board))
    across, down = (texture.shape[1] / board.size_mm[0], texture.shape[0] / board.size_mm[1])  # texels per mm
    # texel centres: texel i covers [i, i + 1) / texels_per_mm of the sheet
    to_texels = np.array([[across, 0, -0.5], [0, down, -0.5], [0, 0, 1]])
    to_texture = to_texels @ np.linalg.inv(to_camera)
    map_x, map_y = _apply(to_texture, rays)
    sampled = cv2.remap(texture, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    grey, cover = sampled[..., 0], sampled[..., 1]
    paper = np.array(rng.uniform([205, 210, 215], [240, 245, 250]), np.float32)
    ink = np.array(rng.uniform(18, 45, 3), np.float32)
    sheet = ink + grey[..., None] * (paper - ink)
    table = wood(camera.size_px, rng)
    image = cover[..., None] * sheet + (1 - cover[..., None]) * table
    image *= light((width, height), rng)[..., None]
    sigma = rng.uniform(0.7, 1.4) * math.sqrt(max(width, height) / 1280)  # lens and demosaicing
    image = cv2.GaussianBlur(image, (0, 0), sigma)
    image += rng.standard_normal(image.shape, dtype=np.float32) * rng.uniform(1.5, 4.5)
    return np.clip(image + 0.5, 0, 255).astype(np.uint8)


def photos(camera: PhotoCamera, count: int, seed: int, board: Board = HUBCAM_BOARD) -> list[BoardPhoto]:
    """``count`` photos of the board by ``camera``, the same for the same seed."""
    rng = np.random.default_rng(seed)
    taken = []
    for index in range(count):
        rotation, translation = pose(camera, index, rng, board)
        taken.append(BoardPhoto(render(camera, rotation, translation, rng, board), rotation, translation))
    return taken


def covered_pixels(camera: PhotoCamera, taken: list[BoardPhoto], board: Board = HUBCAM_BOARD) -> np.ndarray:
    """``(n, 2)``: where in the frame the photos put the board's inner corners and the squares between them
    (a quarter-square grid), the part of the frame a calibration from them measured the lens in."""
    across, down = board.squares
    steps = np.mgrid[4 : across * 4 - 3, 4 : down * 4 - 3].reshape(2, -1).T * board.square_mm / 4
    grid = np.column_stack([steps, np.zeros(len(steps))])
    width, height = camera.size_px
    seen = []
    for photo in taken:
        pixels, _ = cv2.projectPoints(grid, cv2.Rodrigues(photo.rotation)[0], photo.translation_mm, camera.K, camera.D)
        pixels = pixels.reshape(-1, 2)
        seen.append(pixels[(pixels >= 0).all(axis=1) & (pixels[:, 0] < width - 1) & (pixels[:, 1] < height - 1)])
    return np.concatenate(seen)


def lens_gap_px(camera: PhotoCamera, matrix: np.ndarray, distortion: np.ndarray, pixels: np.ndarray) -> float:
    """How far apart the true and a recovered camera put the undistorted position of ``pixels`` (``(n, 2)``):
    the largest difference in what the two lenses' distortion moved a point, over those pixels."""
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
    points = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
    true = cv2.undistortPoints(points, camera.K, camera.D, P=camera.K, criteria=criteria)
    found = cv2.undistortPoints(points, matrix, distortion, P=matrix, criteria=criteria)
    return float(np.linalg.norm((true - found).reshape(-1, 2), axis=1).max())


def wood(size_px: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """``(height, width, 3)`` float32 BGR: a wooden table top, its grain running one way with wavy rings."""
    width, height = size_px
    scale = max(width, height)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32) / scale
    angle = rng.uniform(0, math.pi)
    along = xs * math.cos(angle) + ys * math.sin(angle)
    across = -xs * math.sin(angle) + ys * math.cos(angle)
    wobble = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (width, height), interpolation=cv2.INTER_CUBIC)
    rings = np.sin(across * rng.uniform(40, 90) + 0.8 * wobble + 2 * np.sin(along * rng.uniform(3, 8)))
    fine = cv2.GaussianBlur(rng.standard_normal((height, width), dtype=np.float32), (0, 0), scale / 900)
    tone = 0.5 + 0.3 * rings + 0.15 * fine / max(float(fine.std()), 1e-6)
    light_wood = np.array(rng.uniform([90, 140, 180], [130, 175, 215]), np.float32)
    dark_wood = light_wood * rng.uniform(0.45, 0.65)
    return dark_wood + np.clip(tone, 0, 1)[..., None] * (light_wood - dark_wood)


def light(size_px: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """``(height, width)`` float32 gain: a lamp off to one side, darker far from it (0.55 to 1.15)."""
    width, height = size_px
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    lamp = rng.uniform([-0.3, -0.3], [1.3, 1.3]) * (width, height)
    reach = rng.uniform(0.6, 1.4) * max(width, height)
    fall = np.exp(-((xs - lamp[0]) ** 2 + (ys - lamp[1]) ** 2) / (2 * reach**2))
    return (rng.uniform(0.55, 0.7) + rng.uniform(0.35, 0.45) * fall).astype(np.float32)


def _texture_scale(camera: PhotoCamera, to_camera: np.ndarray, board: Board) -> float:
    """Texels per mm: about two per pixel where the sheet is seen largest, at most the image's own."""
    sheet_w, sheet_h = board.size_mm
    corners = np.array([[0, 0, 1], [sheet_w, 0, 1], [sheet_w, sheet_h, 1], [0, sheet_h, 1]], np.float64)
    seen = (camera.K @ to_camera @ corners.T).T
    pixels = seen[:, :2] / seen[:, 2:]
    sides = np.linalg.norm(pixels - np.roll(pixels, 1, axis=0), axis=1)
    px_per_mm = max(sides[1] / sheet_w, sides[3] / sheet_w, sides[0] / sheet_h, sides[2] / sheet_h)
    full = board_image(board).shape[1] / sheet_w
    return float(min(full, 2 * px_per_mm))


def _texture(board: Board, texels_per_mm: float) -> np.ndarray:
    """``(h, w, 2)`` float32: the sheet's grey (0 ink, 1 paper) and its cover (1 on the sheet), at that scale."""
    image = board_image(board).astype(np.float32) / 255
    sheet_w, sheet_h = board.size_mm
    size = (round(sheet_w * texels_per_mm), round(sheet_h * texels_per_mm))
    grey = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return np.dstack([grey, np.ones_like(grey)])


def _apply(homography: np.ndarray, rays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = homography.astype(np.float32)
    x, y = rays[..., 0], rays[..., 1]
    w = h[2, 0] * x + h[2, 1] * y + h[2, 2]
    return (h[0, 0] * x + h[0, 1] * y + h[0, 2]) / w, (h[1, 0] * x + h[1, 1] * y + h[1, 2]) / w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--camera", choices=sorted(CAMERAS), default="webcam")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=68)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for index, photo in enumerate(photos(CAMERAS[args.camera], args.n, args.seed)):
        cv2.imwrite(str(args.out / f"{args.camera}-{index:02d}.png"), photo.image_bgr)
    print(f"wrote {args.n} photos by the {args.camera} camera to {args.out}")


if __name__ == "__main__":
    main()
