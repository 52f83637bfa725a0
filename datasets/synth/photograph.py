"""Photographing a laid-out scene: the camera, the light and shadows, the table's and the tiles'
textures, the photo's look (lens, colour, blur, noise, JPEG), and the label of what the photo shows.
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import cv2
import numpy as np

from datasets.labels import FACE_UP, STANDING
from datasets.synth.camera import Camera, CameraChoice, random_camera
from datasets.synth.effects import Look, apply_look, random_look
from datasets.synth.face import render_back, render_face
from datasets.synth.layout import Marker, Scene
from datasets.synth.options import FULL, SceneOptions
from datasets.synth.printed import draw_printed
from datasets.synth.render import Box, Light, Prism, cast_shadows, random_light
from datasets.synth.table import render_table
from vision.geometry import halves_in_frame, is_cut

UP = np.array([0.0, 0.0, 1.0])


HAND_CUT_SHARE, HAND_OVERFILL = 0.25, 1.7
"""A quarter of hand photos come so close that the hand overfills the frame and edge tiles are
cut; the others hold the whole hand, as a photo taken to score it does."""
HAND_WHOLE_FILL = 1.15
"""The scene's circle reaches a tile's length past the outermost centres, so at 1.15 of the shorter
side the outermost tiles still lie (nearly always wholly) inside the frame."""
CLEAN_CAMERA = CameraChoice(max_tilt_deg=0.0, k1=(0.0, 0.0), fill=(1.2, 1.2))


def render(
    scene: Scene,
    size_px: tuple[int, int] = (1280, 960),
    options: SceneOptions = FULL,
    clean: bool = False,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Photograph a scene: the BGR image and its label (the ``.gt.json`` schema, extended).

    ``clean`` looks straight down with a perfect lens and sensor and no glare: for tests.
    """
    rng = random.Random(scene.seed * 7919 + 1)
    if rng.random() < 0.3:
        size_px = (size_px[1], size_px[0])  # portrait
    target, radius = scene.extent_mm()
    camera_choice = CameraChoice(max_tilt_deg=options.max_tilt_deg, min_tilt_deg=options.min_tilt_deg)
    if scene.kind == "hand" and options.close_hands:
        overfill = HAND_OVERFILL if rng.random() < HAND_CUT_SHARE else HAND_WHOLE_FILL
        camera_choice = dataclasses.replace(camera_choice, tile_share=options.hand_tile_share, max_fill=overfill)
    if clean:
        camera_choice = CLEAN_CAMERA
    camera = random_camera(rng, target, radius, size_px, camera_choice, tile_mm=scene.style.size_mm[0])
    light = random_light(np.random.default_rng(rng.randrange(2**32)))
    frame = _table_frame(scene, camera, rng)
    objects, hidden = _objects(scene, camera, rng, glare=not clean)
    if options.shadows:
        cast_shadows(frame, camera, light, [item.outline() for item, _ in objects])
    for item, _ in sorted(objects, key=lambda pair: -camera.distance(pair[0].centre)):
        item.draw(frame, camera, light)
    if clean:
        return frame, _label(scene, camera, objects, hidden)
    look = random_look(rng)
    if options.photo:
        image = apply_look(camera.distort_image(frame), look, rng)
        if options.greyscale and random.Random(f"grey-{scene.seed}").random() < options.greyscale:
            image = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    else:
        camera = dataclasses.replace(camera, k1=0.0)  # no lens distortion either: labels must follow
        image = frame
    return image, _label(scene, camera, objects, hidden)


def _table_frame(scene: Scene, camera: Any, rng: random.Random) -> np.ndarray:
    """The table top seen through the camera (undistorted frame)."""
    width, height = camera.size_px
    H_image_from_table = camera.plane_homography(np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [width, 0], [width, height], [0, height]]], np.float32), np.linalg.inv(H_image_from_table)
    )[0]
    target, radius = scene.extent_mm()
    low = np.maximum(corners.min(axis=0), target[:2] - 6 * radius)
    high = np.minimum(corners.max(axis=0), target[:2] + 6 * radius)
    mm_per_px = max((high - low).max() / 1400, 0.2)
    size = np.maximum(((high - low) / mm_per_px).astype(int), 2)
    texture = render_table(scene.table, (int(size[0]), int(size[1])), mm_per_px, rng)
    table_from_texture = np.array([[mm_per_px, 0, low[0]], [0, mm_per_px, low[1]], [0, 0, 1]])
    frame = cv2.warpPerspective(
        texture, H_image_from_table @ table_from_texture, (width, height), borderMode=cv2.BORDER_REFLECT
    )
    draw_printed(frame, camera, scene)
    return frame


def _objects(
    scene: Scene, camera: Any, rng: random.Random, glare: bool = True
) -> tuple[list[tuple[Any, int | None]], list[tuple[bool, bool]]]:
    """Boxes and prisms to draw, each with the index of the tile it is (None for others), and for
    each tile whether each half of its face has a pip washed out (``datasets.synth.face.Face.hidden``)."""
    length, width, thickness = scene.style.size_mm
    objects: list[tuple[Any, int | None]] = []
    hidden: list[tuple[bool, bool]] = []
    if scene.hub is not None:
        hub = scene.hub
        objects.append(
            (
                Prism(
                    np.array([*hub["centre_mm"], 0.0]),
                    hub["radius_mm"],
                    hub["height_mm"],
                    hub["colour"],
                    _hub_top(hub, rng),
                ),
                None,
            )
        )
    for index, tile in enumerate(scene.tiles):
        texture_px = _texture_width(camera, length, np.array([*tile.centre_mm, tile.z_mm]))
        a = np.array([math.cos(tile.angle), math.sin(tile.angle), 0.0])
        b = np.cross(UP, a)
        base = np.array([*tile.centre_mm, tile.z_mm])
        drawn = render_face(tile.pips, scene.style, texture_px, rng, tile.glare if glare else 0.0, film=glare)
        face = drawn.image, drawn.alpha
        hidden.append(drawn.hidden)
        back = render_back(scene.style, texture_px, rng)
        if tile.pose == STANDING:
            box = Box(base, (a, b, UP), (length, thickness, width), scene.style.body, {"front": face, "back": back})
        else:
            top, bottom = (face, back) if tile.pose == FACE_UP else (back, face)
            box = Box(base, (a, b, UP), (length, width, thickness), scene.style.body, {"top": top, "bottom": bottom})
        objects.append((box, index))
    for marker in scene.markers:
        objects += [(part, None) for part in marker_parts(marker, width)]
    return objects, hidden


def marker_parts(marker: Marker, width: float) -> list[Box | Prism]:
    """The boxes and prisms a marker of ``marker.shape`` is drawn as, about ``width`` (a tile's
    width) long."""
    x, y = marker.centre_mm
    a = np.array([math.cos(marker.angle), math.sin(marker.angle), 0.0])
    axes = (a, np.cross(UP, a), UP)
    base, colour = np.array([x, y, 0.0]), marker.colour
    if marker.shape == "token":  # a coin or counter
        return [Prism(base, width * 0.32, width * 0.15, colour, _plain_top(colour))]
    if marker.shape == "peg":
        return [Box(base, axes, (width * 0.35, width * 0.35, width * 0.7), colour)]
    body = Box(base, axes, (width * 0.9, width * 0.45, width * 0.3), colour)
    if marker.shape == "wagon":  # a low car with a roof
        return [body, Box(base + UP * width * 0.3, axes, (width * 0.8, width * 0.35, width * 0.08), colour)]
    cab = Box(base + UP * width * 0.3 - a * width * 0.25, axes, (width * 0.35, width * 0.45, width * 0.3), colour)
    chimney = Box(base + UP * width * 0.3 + a * width * 0.28, axes, (width * 0.12, width * 0.12, width * 0.2), colour)
    return [body, cab, chimney]


def _plain_top(colour: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    side = 64
    alpha = np.zeros((side, side), np.uint8)
    cv2.circle(alpha, (side // 2, side // 2), side // 2 - 1, 255, -1, cv2.LINE_AA)
    return np.full((side, side, 3), colour, np.uint8), alpha


def _texture_width(camera: Any, length_mm: float, at_mm: np.ndarray) -> int:
    """Texture resolution: about twice the tile's size on screen, for clean downsampling."""
    on_screen = camera.K[0, 0] * length_mm / max(camera.distance(at_mm), 1.0)
    return int(np.clip(round(on_screen * 2 / 2) * 2, 48, 400))


def _hub_top(hub: dict[str, Any], rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """The hub's top: a disc with a recess for the engine, and its look (``HUB_LOOKS``)."""
    side = 256
    colour = np.full((side, side, 3), hub["colour"], np.uint8)
    darker = tuple(int(c * 0.7) for c in hub["colour"])
    centre = (side // 2, side // 2)
    look = hub.get("look", "notched")
    if look == "ringed":
        band = tuple(rng.randrange(256) for _ in range(3))
        cv2.circle(colour, centre, int(side * 0.49), band, -1, cv2.LINE_AA)
        cv2.circle(colour, centre, int(side * 0.36), hub["colour"], -1, cv2.LINE_AA)
    cv2.circle(colour, centre, int(side * 0.3), darker, 2, cv2.LINE_AA)
    for slot in range(hub["slots"] if look != "plain" else 0):
        angle = 2 * math.pi * slot / hub["slots"]
        start = (int(centre[0] + side * 0.36 * math.cos(angle)), int(centre[1] + side * 0.36 * math.sin(angle)))
        end = (int(centre[0] + side * 0.49 * math.cos(angle)), int(centre[1] + side * 0.49 * math.sin(angle)))
        cv2.line(colour, start, end, darker, 6, cv2.LINE_AA)
    alpha = np.zeros((side, side), np.uint8)
    cv2.circle(alpha, centre, side // 2 - 1, 255, -1, cv2.LINE_AA)
    return colour, alpha


def _label(
    scene: Scene, camera: Any, objects: list[tuple[Any, int | None]], hidden: list[tuple[bool, bool]]
) -> dict[str, Any]:
    width, height = camera.size_px
    tiles = []
    for item, index in objects:
        if index is None:
            continue
        tile = scene.tiles[index]
        if tile.pose == FACE_UP:
            corners = camera.project(item.top_corners())
        else:  # the smallest rectangle round what can be seen of it
            corners = _rectangle_round(camera.project(item.vertices()))
        top = item.top_corners()
        start_end, far_end = top[[0, 1]].mean(axis=0), top[[2, 3]].mean(axis=0)
        halves = camera.project(np.array([0.75 * start_end + 0.25 * far_end, 0.25 * start_end + 0.75 * far_end]))
        tiles.append(
            {
                "pips": list(tile.pips),
                "corners": np.round(corners, 1).tolist(),
                # a face-up tile with a half beyond the frame cannot be read, as in a real photo
                "unreadable": tile.pose == FACE_UP and not halves_in_frame(corners, width, height),
                # a pip washed out by glare is only noted: a counter often still reads its half
                # (datasets.synth.face.HIDDEN_CONTRAST)
                "hidden": list(hidden[index]) if tile.pose == FACE_UP else [False, False],
                "pose": tile.pose,
                "cut": is_cut(corners, width, height, margin_px=0.0),
                "half_centres": np.round(halves, 1).tolist(),
            }
        )
    label: dict[str, Any] = {
        "width": width,
        "height": height,
        "kind": scene.kind,
        "set": scene.highest,
        "tiles": tiles,
        "chains": [train.tiles for train in scene.trains if len(train.tiles) > 1],
        "total_pips": sum(sum(tile["pips"]) for tile in tiles if tile["pose"] == FACE_UP and not tile["unreadable"]),
        "flags": scene.flags,
        "notes": f"synthetic {scene.kind} seed={scene.seed} table={scene.table}",
    }
    markers = [_marker_label(marker, scene.style.size_mm[1], camera) for marker in scene.markers]
    label["markers"] = [marker for marker in markers if is_in_view(marker["corners"], width, height)]
    if scene.hub is not None:
        label["hub"] = _hub_label(scene.hub, camera)
        label["engine"] = scene.engine
        label["trains"] = [
            {"owner": train.owner, "slot": train.slot, "tiles": train.tiles, "marker": train.marker}
            for train in scene.trains
        ]
    return label


def _marker_label(marker: Marker, width: float, camera: Any) -> dict[str, Any]:
    """The smallest rectangle round a marker in the photo, and the train it marks."""
    corners = _rectangle_round(np.vstack([camera.project(part.outline()) for part in marker_parts(marker, width)]))
    return {"corners": np.round(corners, 1).tolist(), "train": marker.train}


def _rectangle_round(points_px: np.ndarray) -> np.ndarray:
    """The ``(4, 2)`` corners of the smallest rectangle round the points."""
    return cv2.boxPoints(cv2.minAreaRect(points_px.astype(np.float32)))


def is_in_view(corners: list[list[float]], width: int, height: int) -> bool:
    """Whether a rectangle's centre lies in the frame."""
    x, y = np.mean(corners, axis=0)
    return 0 <= x < width and 0 <= y < height


def _hub_label(hub: dict[str, Any], camera: Any) -> dict[str, Any]:
    """The hub's centre and mean radius in pixels (its rim is an ellipse when the camera is tilted)."""
    angles = np.linspace(0, 2 * math.pi, 16, endpoint=False)
    radius, height = hub["radius_mm"], hub["height_mm"]

    def ring(z: float) -> np.ndarray:
        return camera.project(np.stack([radius * np.cos(angles), radius * np.sin(angles), np.full(16, z)], axis=1))

    rim, centre = ring(height), camera.project(np.array([[0.0, 0.0, height]]))[0]
    corners = _rectangle_round(np.vstack([rim, ring(0.0)]))
    return {
        "centre": np.round(centre, 1).tolist(),
        "radius": round(float(np.linalg.norm(rim - centre, axis=1).mean()), 1),
        "corners": np.round(corners, 1).tolist(),
    }


@dataclasses.dataclass(frozen=True)
class Shot:
    """One camera, light, look and table top, fixed: photographing several states of one table
    alike, as the frames of a video from a camera clamped over it (only what changed differs)."""

    camera: Camera
    light: Light
    table: np.ndarray
    """The table top seen through the camera (undistorted frame), drawn once."""
    look: Look
    seed: int
    """The stream the tiles' textures and the sensor's noise draw from, the same for every state."""


def fixed_shot(
    scene: Scene,
    size_px: tuple[int, int],
    choice: CameraChoice,
    seed: int,
    options: SceneOptions = FULL,
    around: tuple[np.ndarray, float] | None = None,
) -> Shot:
    """A shot framing ``scene`` (its largest state: every tile it will hold), or the circle ``around``
    (a centre in mm and a radius), from a camera drawn as ``choice`` says; no portrait turn and no
    motion blur (a clamped camera)."""
    rng = random.Random(f"shot-{seed}")
    target, radius = scene.extent_mm() if around is None else around
    camera = random_camera(rng, target, radius, size_px, choice, tile_mm=scene.style.size_mm[0])
    light = random_light(np.random.default_rng(rng.randrange(2**32)))
    table = _table_frame(scene, camera, rng)
    look = dataclasses.replace(random_look(rng), motion_px=0.0, jpeg_quality=95)
    if not options.photo:
        camera = dataclasses.replace(camera, k1=0.0)
    return Shot(camera, light, table, look, rng.randrange(2**32))


def photograph(scene: Scene, shot: Shot, options: SceneOptions = FULL) -> tuple[np.ndarray, dict[str, Any]]:
    """Photograph ``scene`` through a fixed ``shot``: the BGR image and its label, as ``render`` gives.
    Tiles keep their textures from state to state as long as tiles are only added after them."""
    rng = random.Random(shot.seed)
    frame = shot.table.copy()
    objects, hidden = _objects(scene, shot.camera, rng, glare=options.glare)
    if options.shadows:
        cast_shadows(frame, shot.camera, shot.light, [item.outline() for item, _ in objects])
    for item, _ in sorted(objects, key=lambda pair: -shot.camera.distance(pair[0].centre)):
        item.draw(frame, shot.camera, shot.light)
    image = (
        apply_look(shot.camera.distort_image(frame), shot.look, random.Random(shot.seed)) if options.photo else frame
    )
    return image, _label(scene, shot.camera, objects, hidden)
