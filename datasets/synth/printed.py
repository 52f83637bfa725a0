"""The printed and flat things of a busy table, drawn flat onto the table top: a game board or mat
under part of the layout (printed white tile-shaped logos, stars, lines, letters and pictures of
dominoes round its border), a box lid and a score pad with pictures of dominoes, playing cards and
coins. None of them is a tile and none is labelled: real tables carry them, and a detector must
learn to pass them over (issue 65: a printed white logo beside a white tile merged into one box,
printed stars drew unsure boxes, pictures of tiles on a board's border were read as tiles)."""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

import cv2
import numpy as np

from datasets.labels import FACE_UP
from datasets.synth.face import _rounded_mask, render_face
from datasets.synth.layout import Printed, Scene
from datasets.synth.render import draw_texture
from datasets.synth.styles import Colour, TileStyle

if TYPE_CHECKING:
    from datasets.synth.camera import Camera

PRINTED_KINDS = ("board", "logo", "lid", "pad", "card", "coin")
BOARD_COLOURS: tuple[Colour, ...] = ((40, 110, 30), (110, 50, 20), (30, 30, 140), (25, 25, 25), (150, 190, 210))
"""Green, blue, red and black mats, and a beige card board."""
BOARD_WORDS = ("MEXICAN TRAIN", "DOMINOES", "START", "ALL ABOARD", "STATION")
LOGO_BESIDE_TILE = 0.35
"""Share of the tiles lying on the board that get a printed white logo beside them (issue 65: 35 of
55 missed tiles lay against one) ..."""
LOGO_GAP_MM = (-1.5, 2.5)
"""... this far off, edge to edge: below 0 the tile lies on the logo's edge, as tiles pushed across a
printed board do (the two then show as one long white shape) ..."""
LOGO_IN_TILE_COLOUR = 0.5
"""... and this share of logos printed in the set's own body colour: white on white."""
MOST_PX_PER_MM = 6.0
"""The sharpest a printed thing's picture is drawn (a close photo shows no more)."""

_Footprint = tuple[tuple[float, float], float, tuple[float, float]]
"""A rectangle on the table: its centre (mm), angle (radians) and size (mm)."""


def lay_printed(scene: Scene, rng: random.Random) -> None:
    """Some of a busy table's printed things, round and under the scene's tiles (``scene.printed``):
    a board under part of the layout with logos beside some of its tiles, then a box lid, a score pad,
    cards and coins where no tile lies."""
    length, width, _ = scene.style.size_mm
    centre, radius = scene.extent_mm()
    taken = [(tile.centre_mm, tile.angle, (length + 1.0, width + 1.0)) for tile in scene.tiles]
    if rng.random() < 0.7:
        board_centre = (
            float(centre[0]) + rng.uniform(-0.4, 0.4) * radius,
            float(centre[1]) + rng.uniform(-0.4, 0.4) * radius,
        )
        board = Printed(
            "board",
            board_centre,
            rng.uniform(0, math.pi),
            (radius * rng.uniform(1.2, 2.0), radius * rng.uniform(1.0, 1.6)),
            rng.randrange(2**32),
        )
        scene.printed.append(board)
        _logos_beside_tiles(scene, board, taken, rng)
    things = ["lid"] * (rng.random() < 0.4) + ["pad"] * (rng.random() < 0.5)
    things += ["card"] * rng.choice([0, 0, 1, 2, 3]) + ["coin"] * rng.choice([0, 1, 3, 6])
    if not things and not scene.printed:  # a busy table has something on it
        things = ["card"]
    lid = (rng.uniform(3.5, 5.0) * length, rng.uniform(1.8, 2.8) * length)
    for kind in things:
        coin = rng.uniform(18, 28)  # a diameter
        size = {"lid": lid, "pad": (150.0, 100.0), "card": (88.0, 63.0)}.get(kind, (coin, coin))
        for _attempt in range(30):
            reach = radius * rng.uniform(0.3, 1.1)
            turn = rng.uniform(0, 2 * math.pi)
            spot = (float(centre[0]) + reach * math.cos(turn), float(centre[1]) + reach * math.sin(turn))
            footprint = (spot, rng.uniform(0, math.pi), size)
            if not _crosses(footprint, taken, scene):
                taken.append(footprint)
                scene.printed.append(Printed(kind, spot, footprint[1], size, rng.randrange(2**32)))
                break


def _logos_beside_tiles(scene: Scene, board: Printed, taken: list[_Footprint], rng: random.Random) -> None:
    """White tile-shaped logos printed on the board: beside a share of the face-up tiles on it (along
    a long side or past an end, edge to edge LOGO_GAP_MM apart), and a few anywhere on it."""
    length, width, _ = scene.style.size_mm
    footprints: list[tuple[_Footprint, int | None]] = []  # each with the tile it lies against
    for index, tile in enumerate(scene.tiles):
        if tile.pose != FACE_UP or tile.z_mm > 0 or not _inside(tile.centre_mm, board, margin=width):
            continue
        if rng.random() < LOGO_BESIDE_TILE:
            size = (length * rng.uniform(0.95, 1.15), width * rng.uniform(0.95, 1.15))
            along = np.array([math.cos(tile.angle), math.sin(tile.angle)])
            gap = rng.uniform(*LOGO_GAP_MM)
            if rng.random() < 0.3:  # past an end
                step = along * ((length + size[0]) / 2 + gap)
            else:
                step = np.array([-along[1], along[0]]) * ((width + size[1]) / 2 + gap)
            beside = np.array(tile.centre_mm) + step * rng.choice([-1, 1])
            footprints.append((((float(beside[0]), float(beside[1])), tile.angle, size), index))
    for _ in range(rng.randint(1, 4)):
        spot = _on_board(board, rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4))
        size = (length * rng.uniform(0.95, 1.15), width * rng.uniform(0.95, 1.15))
        footprints.append(((spot, board.angle + rng.choice([0.0, math.pi / 2]), size), None))
    for footprint, against in footprints:
        # ``taken`` starts with the tiles' footprints, in the scene's order: a logo may run under its own
        others = [other for number, other in enumerate(taken) if number != against]
        if not _crosses(footprint, others, scene):
            taken.append(footprint)
            scene.printed.append(Printed("logo", *footprint, rng.randrange(2**32)))


def _crosses(footprint: _Footprint, taken: list[_Footprint], scene: Scene) -> bool:
    """Would a rectangle cover a tile, the hub or another printed thing (each is to be seen whole)?"""
    rect = (footprint[0], footprint[2], math.degrees(footprint[1]))
    for other in taken:
        kind, _ = cv2.rotatedRectangleIntersection(rect, (other[0], other[2], math.degrees(other[1])))
        if kind != cv2.INTERSECT_NONE:
            return True
    if scene.hub is None:
        return False
    reach = math.hypot(*footprint[2]) / 2 + scene.hub["radius_mm"]
    return bool(math.dist(footprint[0], scene.hub["centre_mm"]) < reach)


def _on_board(board: Printed, u: float, v: float) -> tuple[float, float]:
    """The table point at shares ``u`` along and ``v`` across the board from its centre."""
    along = np.array([math.cos(board.angle), math.sin(board.angle)])
    point = (
        np.array(board.centre_mm)
        + along * u * board.size_mm[0]
        + np.array([-along[1], along[0]]) * v * board.size_mm[1]
    )
    return float(point[0]), float(point[1])


def _inside(point: tuple[float, float], board: Printed, margin: float) -> bool:
    along = np.array([math.cos(board.angle), math.sin(board.angle)])
    offset = np.subtract(point, board.centre_mm)
    u, v = float(offset @ along), float(offset @ np.array([-along[1], along[0]]))
    return abs(u) < board.size_mm[0] / 2 - margin and abs(v) < board.size_mm[1] / 2 - margin


def draw_printed(frame: np.ndarray, camera: Camera, scene: Scene) -> None:
    """Lay the scene's printed things flat onto the table in the (undistorted) frame, in order: no
    thickness, no side, no shadow of their own; the pictures of dominoes are of the scene's set."""
    for item in scene.printed:
        centre = np.array([*item.centre_mm, 0.0])
        px_per_mm = float(np.clip(2 * camera.K[0, 0] / max(camera.distance(centre), 1.0), 1.0, MOST_PX_PER_MM))
        px_per_mm = min(px_per_mm, 2400 / max(item.size_mm))
        texture = _texture(item, scene, px_per_mm, random.Random(item.seed))
        along = np.array([math.cos(item.angle), math.sin(item.angle), 0.0])
        across = np.array([-along[1], along[0], 0.0])
        # the texture's rows run against ``across``: a top face seen from above, not in a mirror
        u, v = along * item.size_mm[0], -across * item.size_mm[1]
        draw_texture(frame, camera, texture, centre - (u + v) / 2, u, v, 1.0)


def _texture(item: Printed, scene: Scene, px_per_mm: float, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """The (BGR, alpha) picture of a printed thing, ``px_per_mm`` pixels to the millimetre; its
    pictures of dominoes are of the scene's set."""
    width, height = (max(8, round(side * px_per_mm)) for side in item.size_mm)
    alpha = np.full((height, width), 255, np.uint8)
    if item.kind == "board":
        image = _board(width, height, scene, px_per_mm, rng)
    elif item.kind == "logo":
        image, alpha = _logo(width, height, scene.style, rng)
    elif item.kind == "lid":
        image = _lid(width, height, scene, px_per_mm, rng)
    elif item.kind == "pad":
        image = _pad(width, height, scene, px_per_mm, rng)
    elif item.kind == "card":
        image, alpha = _card(width, height, rng)
    elif item.kind == "coin":
        image, alpha = _coin(width, rng)
    else:
        raise ValueError(f"invalid printed thing: {item.kind!r} (expected one of {', '.join(PRINTED_KINDS)})")
    return image, alpha


def _board(width: int, height: int, scene: Scene, px_per_mm: float, rng: random.Random) -> np.ndarray:
    """A coloured sheet with a lighter border band holding pictures of dominoes, stars, a few lines
    and words."""
    colour = rng.choice(BOARD_COLOURS)
    ink = (235, 235, 235) if sum(colour) < 400 else (40, 40, 40)
    image = np.empty((height, width, 3), np.uint8)
    image[:] = colour
    band = round(scene.style.size_mm[1] * rng.uniform(1.3, 1.8) * px_per_mm)
    cv2.rectangle(image, (band, band), (width - band, height - band), ink, max(1, round(px_per_mm)), cv2.LINE_AA)
    tile_px = round(scene.style.size_mm[0] * px_per_mm)
    x = band // 2 + tile_px // 2
    while x + tile_px < width - band and tile_px >= 16:  # pictures of dominoes round the border, end to end
        for y in (band // 2, height - band // 2):
            if rng.random() < 0.6:
                _picture(image, scene, tile_px, (x, y), rng.random() < 0.2, rng)
        x += tile_px + round(rng.uniform(2, 8) * px_per_mm)
    for _ in range(rng.randint(10, 40)):
        star_colour = rng.choice([(245, 245, 245), (40, 200, 240), ink])
        radius = rng.uniform(4, 12) * px_per_mm
        _star(image, (rng.uniform(band, width - band), rng.uniform(band, height - band)), radius, star_colour)
    for _ in range(rng.randint(0, 4)):
        y = round(rng.uniform(band, height - band))
        cv2.line(image, (band, y), (width - band, y), ink, max(1, round(px_per_mm * 0.8)), cv2.LINE_AA)
    _words(image, rng.choice(BOARD_WORDS), (band * 2, band * 2 + round(10 * px_per_mm)), 8 * px_per_mm, ink)
    return image


def _logo(width: int, height: int, style: TileStyle, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """A white tile-shaped logo: a rounded white rectangle (or one of the set's own body colour,
    LOGO_IN_TILE_COLOUR), sometimes with a thin line or a small star."""
    white = (rng.randint(225, 250),) * 3
    image = np.empty((height, width, 3), np.uint8)
    image[:] = style.body if rng.random() < LOGO_IN_TILE_COLOUR else white
    alpha = _rounded_mask(width, height, max(1, round(height * style.corner_radius)))
    mark = rng.random()
    if mark < 0.3:
        cv2.line(image, (width // 2, height // 5), (width // 2, height * 4 // 5), (150, 150, 150), 1, cv2.LINE_AA)
    elif mark < 0.6:
        _star(image, (width / 2, height / 2), height * 0.3, (40, 200, 240))
    return image, alpha


def _lid(width: int, height: int, scene: Scene, px_per_mm: float, rng: random.Random) -> np.ndarray:
    """A domino box's lid: a coloured card with a title and one to four pictures of dominoes."""
    image = np.empty((height, width, 3), np.uint8)
    image[:] = tuple(rng.randrange(256) for _ in range(3))
    ink = (245, 245, 245) if image[0, 0].mean() < 128 else (20, 20, 20)
    _words(image, rng.choice(("DOUBLE 12", "DOUBLE 9", "DOMINOES", "MEXICAN TRAIN")), (width // 12, height // 5),
           min(9 * px_per_mm, width / 14), ink)  # fmt: skip
    tile_px = round(scene.style.size_mm[0] * px_per_mm * rng.uniform(0.6, 1.0))
    for index in range(rng.randint(1, 4)):
        x = width // 12 + tile_px // 2 + index * (tile_px + tile_px // 6)
        if x + tile_px // 2 < width:
            _picture(image, scene, tile_px, (x, round(height * 0.62)), False, rng)
    return image


def _pad(width: int, height: int, scene: Scene, px_per_mm: float, rng: random.Random) -> np.ndarray:
    """A score pad: paper with ruled lines, a picture of a domino at its head, scores written in."""
    image = np.empty((height, width, 3), np.uint8)
    image[:] = rng.choice([(245, 245, 245), (190, 245, 250)])
    rule = round(8 * px_per_mm)
    for y in range(3 * rule, height, rule):
        cv2.line(image, (0, y), (width, y), (200, 150, 110), max(1, round(px_per_mm * 0.3)), cv2.LINE_AA)
    for x in range(width // 4, width, width // 4):
        cv2.line(image, (x, 3 * rule), (x, height), (120, 120, 220), max(1, round(px_per_mm * 0.3)), cv2.LINE_AA)
    if rng.random() < 0.7:
        tile_px = round(min(scene.style.size_mm[0] * px_per_mm, width * 0.45))
        _picture(image, scene, tile_px, (width // 4, rule * 3 // 2), False, rng)
    for y in range(4 * rule, height, rule):
        for x in range(width // 4, width, width // 4):
            if rng.random() < 0.5:
                _words(
                    image, str(rng.randint(0, 120)), (x - width // 5, y - rule // 5), rule * 0.6, (120, 60, 20), True
                )
    return image


def _card(width: int, height: int, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """A playing card face up (a corner index and suit marks) or face down (a patterned back)."""
    image = np.empty((height, width, 3), np.uint8)
    image[:] = (245, 245, 245)
    if rng.random() < 0.4:
        back = rng.choice([(40, 40, 170), (140, 60, 30)])
        image[height // 20 : -height // 20, height // 20 : -height // 20] = back
        for x in range(0, width, max(2, width // 20)):
            cv2.line(image, (x, 0), (x + height, height), (245, 245, 245), 1, cv2.LINE_AA)
    else:
        red = rng.random() < 0.5
        ink = (30, 30, 200) if red else (20, 20, 20)
        _words(image, rng.choice("A23456789JQK"), (width // 20, height // 4), height * 0.18, ink)
        for _ in range(rng.randint(1, 6)):
            _star(image, (rng.uniform(0.3, 0.8) * width, rng.uniform(0.25, 0.75) * height), height * 0.08, ink, 4)
    return image, _rounded_mask(width, height, max(1, height // 16))


def _coin(side: int, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """A coin seen from above: a metal disc shaded across by the light, a raised rim, a worn relief."""
    metal = np.asarray(rng.choice([(170, 170, 175), (60, 150, 200), (60, 100, 170)]), np.float32)
    ys, xs = (np.mgrid[0:side, 0:side].astype(np.float32) - side / 2) / (side / 2)
    turn = rng.uniform(0, 2 * math.pi)
    shade = 1 + 0.25 * (xs * math.cos(turn) + ys * math.sin(turn))
    distance = np.hypot(xs, ys)
    shade = np.where(distance > 0.82, shade * 0.8 + 0.25 * (distance < 0.9), shade)  # the rim
    relief = np.random.default_rng(rng.randrange(2**32)).standard_normal((side // 6 + 2,) * 2).astype(np.float32)
    shade += 0.08 * cv2.resize(relief, (side, side)) * (distance < 0.7)
    image = np.clip(shade[:, :, None] * metal, 0, 255).astype(np.uint8)
    alpha = np.zeros((side, side), np.uint8)
    cv2.circle(alpha, (side // 2, side // 2), side // 2 - 1, 255, -1, cv2.LINE_AA)
    return image, alpha


def _picture(
    canvas: np.ndarray, scene: Scene, length_px: int, centre: tuple[int, int], across: bool, rng: random.Random
) -> None:
    """A picture of a domino of the set (its face as ``render_face`` draws it, flat, with a printed
    outline now and then) pasted onto ``canvas`` at ``centre``, turned across when ``across``."""
    pips = (rng.randint(0, scene.highest), rng.randint(0, scene.highest))
    face = render_face(pips, scene.style, max(16, length_px), rng)
    image, alpha = face.image.copy(), face.alpha
    if rng.random() < 0.5:
        cv2.rectangle(image, (0, 0), (image.shape[1] - 1, image.shape[0] - 1), (40, 40, 40), 1, cv2.LINE_AA)
    if across:
        image, alpha = np.rot90(image).copy(), np.rot90(alpha).copy()
    height, width = alpha.shape
    x0, y0 = centre[0] - width // 2, centre[1] - height // 2
    x1, y1 = min(x0 + width, canvas.shape[1]), min(y0 + height, canvas.shape[0])
    cx0, cy0 = max(x0, 0), max(y0, 0)
    if x1 <= cx0 or y1 <= cy0:
        return
    weight = alpha[cy0 - y0 : y1 - y0, cx0 - x0 : x1 - x0, None].astype(np.float32) / 255
    region = canvas[cy0:y1, cx0:x1].astype(np.float32)
    picture = image[cy0 - y0 : y1 - y0, cx0 - x0 : x1 - x0].astype(np.float32)
    canvas[cy0:y1, cx0:x1] = (region * (1 - weight) + picture * weight).astype(np.uint8)


def _star(canvas: np.ndarray, centre: tuple[float, float], radius: float, colour: Colour, points: int = 5) -> None:
    """A filled star (``points`` points; four makes a card's diamond-like pip)."""
    angles = np.pi / 2 + np.arange(2 * points) * np.pi / points
    reach = np.where(np.arange(2 * points) % 2 == 0, radius, radius * 0.45)
    outline = np.stack([centre[0] + reach * np.cos(angles), centre[1] - reach * np.sin(angles)], axis=1)
    cv2.fillPoly(canvas, [np.round(outline * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)


def _words(
    canvas: np.ndarray, text: str, origin: tuple[int, int], height_px: float, ink: Colour, hand: bool = False
) -> None:
    """Letters about ``height_px`` tall from ``origin`` (their baseline's left end); ``hand``: as written."""
    font = cv2.FONT_HERSHEY_SCRIPT_SIMPLEX if hand else cv2.FONT_HERSHEY_DUPLEX
    scale = max(0.2, height_px / 22)
    cv2.putText(canvas, text, origin, font, scale, ink, max(1, round(scale * 1.5)), cv2.LINE_AA)
