"""Rendered tables in play photographed by a known camera, with or without hubcam's four table markers
(``calibration.markers``) laid at the corners of a square round the hub: what ``hubcam calibrate table``
is tested and measured on (issue 68).

The scene is one of ``datasets.synth``'s tables (hub, engine, trains, markers of the players); the
markers are printed paper squares (the marker and the white margin it was cut out with) drawn on the
table top before the tiles, so that the camera's lens, light, blur and noise touch them as they touch
the rest. World millimetres are the renderer's: x right, y away from the table's near edge, z up,
the hub's centre at the origin.

    python -m datasets.synth.table_markers --seed 3 --out out/table.png
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.markers import MARKER_IDS, MARKER_MM, marker_image
from datasets.synth.camera import Camera, CameraChoice
from datasets.synth.layout import MARKER_COLOURS, MARKER_SHAPES, lay_empty_table, put_marker
from datasets.synth.photograph import fixed_shot, photograph
from datasets.synth.scene import make_scene

CORNER_MM = 420.0
"""The markers' centres lie this far from the hub along x and y: a table about 1 m square."""
CUT_MARGIN_MM = 8.0
"""White paper round each marker, as cut out of the printed page."""
MARKERS_FRAME_MM = 760.0
"""The circle a camera frames to hold all four markers (their centres about 600 mm from the hub; the
near ones, seen larger, need the room)."""
HUB_FRAME_MM = 330.0
"""The circle a camera frames for a photo of the hub without markers: the trains, the corners cut."""
LENS_MAP_STEP = 8
"""``Camera.distort_image``'s coarse map's step, pixels."""
CHOICE = CameraChoice(max_tilt_deg=45.0, min_tilt_deg=10.0, hfov_deg=(50.0, 70.0), k1=(-0.12, 0.02), fill=(0.9, 1.0))


@dataclass(frozen=True)
class TablePhoto:
    image_bgr: np.ndarray
    camera: Camera
    """The truth: world millimetres to the photo's pixels (``camera.project``)."""
    marker_centres_mm: dict[int, np.ndarray]
    """Each marker's centre on the table (world x, y), by number, at the corners of a rectangle; empty
    without markers."""
    marker_turns: dict[int, float]
    """Each marker's turn on the table, radians (its printed x axis from world x)."""
    tile_mm: float
    """The set's tile length."""
    hub_centre_mm: np.ndarray
    """The hub's centre on the table (world x, y)."""

    @property
    def shift_px(self) -> float:
        """How far the renderer's lens moves the whole photo right and down: ``Camera.distort_image`` enlarges
        its coarse map as if its samples were pixel centres (they are every 8th pixel's corner), so a
        distorted photo shows everything 3.5 px off where ``Camera.project`` puts it; none without a lens."""
        return 0.0 if self.camera.k1 == 0 else (LENS_MAP_STEP - 1) / 2

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """``(n, 2)`` world x, y on the table to where the photo shows them, pixels."""
        points = np.asarray(points_mm, np.float64).reshape(-1, 2)
        return self.camera.project(np.column_stack([points, np.zeros(len(points))])) + self.shift_px

    def lens(self) -> tuple[np.ndarray, np.ndarray]:
        """The photo's camera in OpenCV's terms: the camera matrix (its centre moved with the photo) and
        distortion k1 k2 p1 p2 k3 (the renderer's lens is k1 alone, about the same focal length)."""
        matrix = self.camera.K.copy()
        matrix[:2, 2] += self.shift_px
        return matrix, np.array([self.camera.k1, 0.0, 0.0, 0.0, 0.0])


def marker_corners_mm(centre: np.ndarray, turn: float) -> np.ndarray:
    """``(4, 2)`` world x, y of a marker's corners in its printed order (top-left, top-right, bottom-right,
    bottom-left as printed): its printed x axis along ``turn``, its printed y axis (down the page) turned
    a right angle clockwise from it, as a sheet lying face up is seen from above."""
    along = np.array([math.cos(turn), math.sin(turn)])
    down = np.array([math.sin(turn), -math.cos(turn)])
    half = MARKER_MM / 2
    return np.array([centre + half * (sx * along + sy * down) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def table_photo(
    seed: int,
    size_px: tuple[int, int] = (1280, 720),
    markers: bool = True,
    choice: CameraChoice = CHOICE,
    lens: bool = True,
) -> TablePhoto:
    """A table in play (``make_scene("table", seed)``) photographed by a camera drawn from ``choice``,
    framing the four markers (``markers``) or the hub and its trains; ``lens``: the camera's radial
    distortion (off: a perfect pinhole)."""
    scene = make_scene("table", seed)
    frame_mm = MARKERS_FRAME_MM if markers else HUB_FRAME_MM
    if not lens:
        choice = dataclasses.replace(choice, k1=(0.0, 0.0))
    shot = fixed_shot(scene, size_px, choice, seed, around=(np.zeros(3), frame_mm))
    rng = random.Random(f"markers-{seed}")
    centres: dict[int, np.ndarray] = {}
    turns: dict[int, float] = {}
    if markers:
        corners = [(-1, 1), (1, 1), (1, -1), (-1, -1)]  # 0 and 1 along the far edge, 2 and 3 the near one
        table = shot.table.copy()
        half = CORNER_MM + np.array([rng.uniform(-30, 30), rng.uniform(-30, 30)])  # a rectangle, as a table's corners
        for number, (sx, sy) in zip(MARKER_IDS, corners, strict=True):
            centres[number] = np.array([sx, sy]) * half
            turns[number] = math.radians(rng.uniform(-12, 12))
            _lay_marker(table, shot.camera, number, centres[number], turns[number])
        shot = dataclasses.replace(shot, table=table)
    image, _ = photograph(scene, shot)
    hub = np.array(scene.hub["centre_mm"] if scene.hub else (0.0, 0.0), np.float64)
    return TablePhoto(image, shot.camera, centres, turns, scene.style.size_mm[0], hub)


@dataclass(frozen=True)
class SeatsPhoto:
    image_bgr: np.ndarray
    slot_angles: dict[int | str, float]
    """Each seat's slot (and the Mexican train's, as "mexican"), degrees round the hub as the photo shows it."""
    first_marker_deg: float
    """Where seat 0's marker is round the hub in the photo, degrees."""


def seats_photo(seed: int, players: int, size_px: tuple[int, int] = (1280, 720)) -> SeatsPhoto:
    """The hub at a round's start, the engine on it and each player's marker by their slot (the Mexican
    train's slot the next on from the last player's), photographed from a camera drawn from ``CHOICE``."""
    scene = make_scene("table", seed)
    scene.tiles, scene.trains, scene.markers, scene.hub = [], [], [], None
    rng = random.Random(f"seats-{seed}")
    ends = lay_empty_table(scene, rng, players, scene.highest)
    for seat in range(players):
        put_marker(scene, seat, ends[seat], MARKER_COLOURS[seat % len(MARKER_COLOURS)], MARKER_SHAPES[seat % 4])
    shot = fixed_shot(scene, size_px, CHOICE, seed, around=(np.zeros(3), HUB_FRAME_MM * 0.6))
    image, _ = photograph(scene, shot)
    hub = shot.camera.project(np.zeros((1, 3)))[0]

    def angle_of(point: tuple[float, float]) -> float:
        seen = shot.camera.project(np.array([[point[0], point[1], 0.0]]))[0]
        return math.degrees(math.atan2(-(seen[1] - hub[1]), seen[0] - hub[0])) % 360

    slots: dict[int | str, float] = {
        train.owner: angle_of(end.start) for train, end in zip(scene.trains, ends, strict=True)
    }
    return SeatsPhoto(image, slots, angle_of(scene.markers[0].centre_mm))


def _lay_marker(frame: np.ndarray, camera: Camera, number: int, centre: np.ndarray, turn: float) -> None:
    """Draw the printed marker, with its white margin, on the undistorted frame of the table top."""
    paper_mm = MARKER_MM + 2 * CUT_MARGIN_MM
    # about two texels a pixel where the marker lies (drawing it then blurs no more than a lens would), a
    # whole number of texels to the margin and to the marker, so that both are drawn to their true size
    on_screen = camera.K[0, 0] * paper_mm / camera.distance(np.array([*centre, 0.0]))
    texels_per_margin = max(4, round(2 * on_screen * CUT_MARGIN_MM / paper_mm))
    per_mm = texels_per_margin / CUT_MARGIN_MM
    texels, side, start = round(paper_mm * per_mm), round(MARKER_MM * per_mm), texels_per_margin
    paper = np.full((texels, texels), 235, np.uint8)
    paper[start : start + side, start : start + side] = np.where(marker_image(number, side) > 127, 235, 25)
    # texel (i, j) to world: the paper's top-left corner, its printed x and y axes
    along = np.array([math.cos(turn), math.sin(turn), 0.0])
    down = np.array([math.sin(turn), -math.cos(turn), 0.0])
    corner = np.array([*centre, 0.0]) - (paper_mm / 2) * (along + down)
    to_image = camera.plane_homography(corner, along / per_mm, down / per_mm)
    to_image = to_image @ np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])  # texel centres
    height, width = frame.shape[:2]
    warped = cv2.warpPerspective(paper, to_image, (width, height), flags=cv2.INTER_LINEAR)
    cover = cv2.warpPerspective(np.full_like(paper, 255), to_image, (width, height), flags=cv2.INTER_LINEAR)
    alpha = cover.astype(np.float32)[..., None] / 255
    frame[:] = np.clip(alpha * warped[..., None] + (1 - alpha) * frame, 0, 255).astype(np.uint8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--no-markers", action="store_true")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    photo = table_photo(args.seed, markers=not args.no_markers)
    cv2.imwrite(str(args.out), photo.image_bgr)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
