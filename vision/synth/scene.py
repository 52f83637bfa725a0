"""Synthetic table scenes with exact ground truth: hands of tiles, and tables in play.

``make_scene(kind, seed)`` lays out a scene in table millimetres (deterministic from
the seed); ``render(scene)`` photographs it and returns the image with its label.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from engine.tiles import SET_SIZES, domino_set
from vision.data.labels import FACE_DOWN, FACE_UP, STANDING
from vision.geometry import halves_in_frame, is_cut
from vision.synth.camera import CameraChoice, random_camera
from vision.synth.effects import apply_look, random_look
from vision.synth.face import render_back, render_face
from vision.synth.pips import HELD_OUT, LAYOUTS
from vision.synth.render import Box, Prism, cast_shadows, random_light
from vision.synth.styles import (
    BRIGHT_SETS,
    FILM_SHARE,
    PIP_SHAPES,
    PIP_STYLES,
    PRINTED_BACKS,
    TileStyle,
    maker_extras,
    makers_pips,
    random_tile_style,
)
from vision.synth.table import TABLE_KINDS, render_table

UP = np.array([0.0, 0.0, 1.0])
MARKER_COLOURS = (
    (40, 40, 200),
    (200, 90, 30),
    (40, 160, 40),
    (30, 200, 230),
    (160, 60, 160),
    (230, 230, 230),
    (20, 20, 20),
    (40, 120, 240),
)
HUB_LOOKS = ("notched", "ringed", "plain")
"""Hubs' tops: a notch for each slot, a band of another colour round the rim, or plain."""
MARKER_SHAPES = ("locomotive", "token", "peg", "wagon")
"""Sets come with little engines, but players use coins, pegs and wagons too."""
MARKER_PLACES = ("beside_end", "past_end", "at_start")
"""Where a marker stands: beside the train's last tile, past its open end, or at its start by the hub."""


@dataclass(frozen=True)
class SceneOptions:
    """The renderer's choices that matter for realism, each of which can be switched off to
    measure what it does for real photos (benchmarks/realism.py)."""

    pip_styles: tuple[str, ...] = PIP_STYLES
    """Which pip looks sets may have: 'colour' (the colour code), 'black', 'white' (dark tiles)."""
    glare: bool = True
    glare_share: float = 0.4
    """Glare in this share of the scenes ..."""
    glare_tiles: float = 0.3
    """... on this share of their tiles, ..."""
    glare_strength: tuple[float, float] = (0.3, 0.9)
    """... as strong as this (the most it lifts the face, as a share of white)."""
    shadows: bool = True
    photo: bool = True
    """Lens distortion, light colour, falloff, blur, sensor noise and JPEG."""
    max_tilt_deg: float = 45.0
    min_tilt_deg: float = 0.0
    """Above 0: every camera tilted at least this far (``vision.synth.camera.CameraChoice``), for steep sets."""
    tables: tuple[str, ...] = TABLE_KINDS
    """Which table tops scenes are laid on."""
    distractors: bool = True
    """Face-down and standing tiles among the face-up ones."""
    standing_share: float = 0.2
    """... standing tiles in this share of the hands ..."""
    most_standing: int = 3
    """... up to this many."""
    face_down_share: float = 0.3
    """Face-down tiles in this share of the hands ..."""
    most_face_down: int = 3
    """... up to this many."""
    sets: tuple[int, ...] = SET_SIZES
    """Which sets (highest doubles) scenes are dealt from."""
    makers_layouts: bool = True
    """Pip sizes and spacing as makers differ (else every set has the usual layout)."""
    film: bool = True
    """Some sets still in their shrink wrap ..."""
    film_share: float = FILM_SHARE
    """... this share of them (``vision.synth.styles.FILM_SHARE``)."""
    close_hands: bool = True
    """Hands framed by their tiles (a tile 9-40 % of the longer side, as in real hand photos,
    where the median is 19 %) rather than by the whole scene (median 9 %)."""
    hand_tile_share: tuple[float, float] = (0.09, 0.4)
    """How long a tile is in a hand framed by its tiles, as shares of the photo's longer side (drawn
    log-uniformly; a large hand may be framed wider still, to fit)."""
    spinner: bool = True
    """Half the sets with a brass pin in the divider's middle (else none)."""
    rounded_corners: bool = True
    """Tiles with rounded corners (else square ones)."""
    thickness: bool = True
    """Tiles as thick as real ones (17-22 % of their length), their sides showing when the camera
    is tilted (else 1 mm sheets)."""
    bright_sets: float = BRIGHT_SETS
    """Share of sets with a saturated body and pips of one colour (``vision.synth.styles.BRIGHT_BODIES``)."""
    printed_backs: float = PRINTED_BACKS
    """Share of sets with a brand's letters printed on their backs."""
    layouts: tuple[str, ...] = ("classic",)
    """The layout families (``vision.synth.pips.LAYOUTS``) a set's counts above 6 are drawn in, one per
    set (the default, classic alone, draws what generator 13 drew; TRAINING_LAYOUTS for counters that
    must count any maker's; ``vision.synth.pips.HELD_OUT`` to measure them)."""
    pip_shapes: tuple[str, ...] = ("round",)
    """The pip shapes (``vision.synth.styles.PIP_SHAPES``) a set's pips are drawn in, one per set."""
    greyscale: float = 0.0
    """Share of photos taken (or sent) in greyscale."""


FULL = SceneOptions()
TRAINING_LAYOUTS = tuple(family for family in LAYOUTS if family not in HELD_OUT)
"""The layout families counters may learn; the rest are kept to measure them."""
MAKERS = dataclasses.replace(FULL, layouts=TRAINING_LAYOUTS, pip_shapes=PIP_SHAPES, greyscale=0.1)
"""Every maker's look a counter may learn: the training layout families, every pip shape, some photos grey."""
UNSEEN_MAKERS = dataclasses.replace(MAKERS, layouts=HELD_OUT)
"""MAKERS with every set laid out in a family held out of training (``vision.synth.pips.HELD_OUT``)."""


@dataclass
class PlacedTile:
    pips: tuple[int, int]
    """pips[0] is the half at the tile's start end (where its long axis begins)."""
    centre_mm: tuple[float, float]
    angle: float
    """Direction of the long axis, from the pips[0] end to the pips[1] end (radians)."""
    pose: str = FACE_UP
    z_mm: float = 0.0
    glare: float = 0.0


@dataclass
class Train:
    owner: int | str
    slot: int
    tiles: list[int]
    """Indices into the scene's tiles, from the hub outward."""
    marker: bool = False


@dataclass
class Marker:
    centre_mm: tuple[float, float]
    angle: float
    colour: tuple[int, int, int]
    shape: str
    train: int
    """Index of the train it marks in the scene's trains."""


@dataclass
class Scene:
    kind: str
    seed: int
    highest: int
    style: TileStyle
    table: str
    tiles: list[PlacedTile] = field(default_factory=list)
    hub: dict[str, Any] | None = None
    engine: int | None = None
    """Index of the engine double among the tiles."""
    trains: list[Train] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    flags: list[dict[str, Any]] = field(default_factory=list)

    def extent_mm(self) -> tuple[np.ndarray, float]:
        """The centre and radius of a circle holding every tile."""
        points = np.array([tile.centre_mm for tile in self.tiles] or [(0.0, 0.0)])
        centre = (points.max(axis=0) + points.min(axis=0)) / 2
        radius = float(np.linalg.norm(points - centre, axis=1).max()) + self.style.size_mm[0]
        if self.hub is not None:
            radius = max(radius, self.hub["radius_mm"] * 1.5)
        return np.append(centre, 0.0), radius


# --- layouts ---------------------------------------------------------------------------


FLAT_MM = 1.0
"""A tile's thickness with ``SceneOptions.thickness`` off."""


def shaped(style: TileStyle, options: SceneOptions) -> TileStyle:
    """The set's style with the shape choices ``options`` switches off taken out (after every
    random draw, so the rest of the scene stays the same)."""
    length, width, thickness = style.size_mm
    return dataclasses.replace(
        style,
        spinner=style.spinner and options.spinner,
        corner_radius=style.corner_radius if options.rounded_corners else 0.0,
        size_mm=(length, width, thickness if options.thickness else FLAT_MM),
    )


def make_scene(kind: str, seed: int, options: SceneOptions = FULL) -> Scene:
    """A random scene of ``kind`` ('hand' or 'table'), the same for the same seed."""
    rng = random.Random(seed)
    highest = rng.choice(options.sets)
    look = (options.pip_styles, options.makers_layouts, options.film, options.film_share)
    style = shaped(random_tile_style(rng, highest, *look), options)
    looks = random.Random(f"maker-{seed}")  # a stream of its own: scenes of other sets draw as before
    style = maker_extras(style, looks, options.bright_sets, options.printed_backs)
    style = makers_pips(style, random.Random(f"layout-{seed}"), options.layouts, options.pip_shapes)
    scene = Scene(kind, seed, highest, style, rng.choice(options.tables))
    if kind == "hand":
        _lay_hand(scene, rng, options)
    elif kind == "table":
        _lay_table(scene, rng)
    else:
        raise ValueError(f"invalid scene kind: {kind!r} (expected hand or table)")
    _add_glare(scene, rng, options)
    if not options.glare:
        for tile in scene.tiles:
            tile.glare = 0.0
    return scene


HAND_MODES = ("scattered", "touching", "rows", "lines")
HAND_MODE_WEIGHTS = (0.25, 0.2, 0.25, 0.3)
"""Real hand photos show tiles scattered, packed in grids and laid in lines of play (most of the
labelled ones): the detector trained without grids and lines missed or merged many of their
tiles (19 of the 27 in the double-12 grids found; all 27 after them, with longer training too:
benchmarks/HISTORY.md)."""
PACKED_ROWS = 0.5
"""Share of row layouts whose rows touch end to end (a grid), not kept apart."""


def _lay_hand(scene: Scene, rng: random.Random, options: SceneOptions) -> None:
    """1-20 tiles scattered, touching, in rows or grids, or in lines of play, with face-down and
    standing tiles as distractors."""
    pool = _shuffled_set(scene.highest, rng)
    count = rng.randint(1, 12) if rng.random() < 0.7 else rng.randint(13, 20)
    length, width, _ = scene.style.size_mm
    mode = rng.choices(HAND_MODES, HAND_MODE_WEIGHTS)[0]
    footprints: list[tuple[tuple[float, float], float, tuple[float, float]]] = []
    if mode == "rows":
        per_row = rng.randint(3, 10)
        gap = rng.uniform(0, 4)
        row_gap = (0.3, 3.0) if rng.random() < PACKED_ROWS else (5.0, 25.0)
        base_angle = rng.uniform(0, 2 * math.pi)
        along, across = (
            np.array([math.cos(base_angle), math.sin(base_angle)]),
            np.array([-math.sin(base_angle), math.cos(base_angle)]),
        )
        for index in range(count):
            row, column = divmod(index, per_row)
            centre = across * column * (width + gap) + along * row * (length + rng.uniform(*row_gap))
            angle = base_angle + (math.pi if rng.random() < 0.3 else 0) + rng.uniform(-0.03, 0.03)
            _place(scene, footprints, pool.pop(), tuple(centre), angle, (length, width))
    elif mode == "lines":
        _lay_lines(scene, footprints, pool, count, rng)
    else:
        spread = length * (0.8 + 0.5 * math.sqrt(count)) * (0.7 if mode == "touching" else rng.uniform(0.6, 1.0))
        for _ in range(count):
            for _attempt in range(60):
                if mode == "touching" and footprints:
                    (cx, cy), angle, _ = rng.choice(footprints)
                    side = rng.choice([(0, 1), (0, -1), (1, 0), (-1, 0)])
                    offset = np.array([math.cos(angle), math.sin(angle)]) * side[0] * (length + 0.5)
                    offset += np.array([-math.sin(angle), math.cos(angle)]) * side[1] * (width + 0.5)
                    centre = (cx + offset[0], cy + offset[1])
                    angle = angle + rng.choice([0, math.pi]) + rng.uniform(-0.05, 0.05)
                else:
                    centre = (rng.uniform(-spread, spread), rng.uniform(-spread, spread))
                    angle = rng.uniform(0, 2 * math.pi)
                if _place(scene, footprints, pool[-1], centre, angle, (length, width)):
                    pool.pop()
                    break
    if options.distractors:
        _add_distractors(scene, footprints, pool, rng, options)


def _lay_lines(
    scene: Scene,
    footprints: list[tuple[tuple[float, float], float, tuple[float, float]]],
    pool: list[tuple[int, int]],
    count: int,
    rng: random.Random,
) -> None:
    """Lines of play left on the table: arms of tiles end to end from a first tile (a cross when it
    is a double), matching ends, doubles crosswise, turning square corners as real lines do to
    stay on the table."""
    length, width, _ = scene.style.size_mm
    first = pool.pop()
    angle = rng.uniform(0, 2 * math.pi)
    _place(scene, footprints, first, (0.0, 0.0), angle, (length, width))
    arms = [(angle, length / 2, first[1]), (angle + math.pi, length / 2, first[0])]
    if first[0] == first[1] and rng.random() < 0.6:
        arms += [(angle + math.pi / 2, width / 2, first[0]), (angle - math.pi / 2, width / 2, first[0])]
    rng.shuffle(arms)
    left = count - 1
    for direction, reach, open_end in arms:
        position = np.array([math.cos(direction), math.sin(direction)]) * (reach + rng.uniform(0.3, 1.5))
        while left > 0:
            segment = Train("line", 0, [])
            position, direction = _grow_train(
                scene, segment, footprints, pool, open_end, (position, direction), rng, rng.randint(1, min(left, 3))
            )
            left -= len(segment.tiles)
            if not segment.tiles or rng.random() < 0.4:
                break
            open_end = scene.tiles[segment.tiles[-1]].pips[1]
            # a square corner: the next tile lies across the end of the last one, flush with one side
            heading = np.array([math.cos(direction), math.sin(direction)])
            direction += rng.choice([-1, 1]) * math.pi / 2
            side = np.array([math.cos(direction), math.sin(direction)])
            position = position + heading * width / 2 - side * width / 2


def _lay_table(scene: Scene, rng: random.Random) -> None:
    """The hub with the engine, trains from its slots (one the Mexican train), markers, loose tiles."""
    length, width, thickness = scene.style.size_mm
    players = rng.randint(2, 8)
    slots = max(players + 1, rng.choice([8, 9, 10]) if players < 8 else players + 1)
    engine_number = scene.highest - rng.randint(0, min(scene.highest, 4))
    hub_radius = length * rng.uniform(1.1, 1.5)
    hub_height = thickness * rng.uniform(0.6, 1.2)
    hub_colour = rng.choice([(150, 150, 150), (60, 150, 200), (40, 40, 160), (30, 30, 30), (200, 200, 200)])
    if rng.random() < 0.3:  # any colour at all
        hub_colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
    scene.hub = {
        "centre_mm": (0.0, 0.0),
        "radius_mm": hub_radius,
        "height_mm": hub_height,
        "colour": hub_colour,
        "slots": slots,
        "look": rng.choice(HUB_LOOKS),
    }
    pool = [tile for tile in _shuffled_set(scene.highest, rng) if tile != (engine_number, engine_number)]
    footprints: list[tuple[tuple[float, float], float, tuple[float, float]]] = []
    scene.engine = len(scene.tiles)
    scene.tiles.append(
        PlacedTile((engine_number, engine_number), (0.0, 0.0), rng.uniform(0, 2 * math.pi), z_mm=hub_height)
    )
    owners: list[int | str] = [*range(players), "mexican"]
    first_slot = rng.randrange(slots)
    for order, owner in enumerate(owners):
        slot = (first_slot + order) % slots
        direction = 2 * math.pi * slot / slots + rng.uniform(-0.06, 0.06)
        train = Train(owner, slot, [])
        start = np.array([math.cos(direction), math.sin(direction)]) * (hub_radius + rng.uniform(1, 6))
        _grow_train(scene, train, footprints, pool, engine_number, (start, direction), rng, rng.randint(0, 8))
        scene.trains.append(train)
        if train.tiles and owner != "mexican" and rng.random() < 0.35:
            train.marker = _add_marker(scene, len(scene.trains) - 1, footprints, rng)
    for _ in range(rng.randint(0, 4)):  # loose tiles around the table
        radius = hub_radius + length * rng.uniform(3, 6)
        angle = rng.uniform(0, 2 * math.pi)
        centre = (radius * math.cos(angle), radius * math.sin(angle))
        if pool and _place(scene, footprints, pool[-1], centre, rng.uniform(0, 2 * math.pi), (length, width)):
            pool.pop()
    _flag_train_faults(scene)


def _grow_train(
    scene: Scene,
    train: Train,
    footprints: list[tuple[tuple[float, float], float, tuple[float, float]]],
    pool: list[tuple[int, int]],
    open_end: int,
    start: tuple[np.ndarray, float],
    rng: random.Random,
    tiles: int,
) -> tuple[np.ndarray, float]:
    """Up to ``tiles`` tiles end to end from ``start`` (a position on the table, in mm, and a
    direction), matching ``open_end``; doubles crosswise; now and then a bend. Returns where the
    next tile would start and its direction."""
    position, direction = start
    length, width, _ = scene.style.size_mm
    bend = rng.uniform(-0.12, 0.12) if rng.random() < 0.4 else 0.0
    for _ in range(tiles):
        fault = rng.random() < 0.04
        choices = [tile for tile in pool if (open_end in tile) != fault]
        if not choices:
            break
        tile = rng.choice(choices)
        heading = np.array([math.cos(direction), math.sin(direction)])
        if tile[0] == tile[1] and not fault:  # doubles lie crosswise
            centre = position + heading * width / 2
            placed = _place(scene, footprints, tile, tuple(centre), direction + math.pi / 2, (length, width))
            step = width
        else:
            inner = open_end if open_end in tile else tile[0]
            outer = tile[1] if tile[0] == inner else tile[0]
            centre = position + heading * length / 2
            placed = _place(scene, footprints, (inner, outer), tuple(centre), direction, (length, width))
            step = length
        if not placed:
            break
        pool.remove(tile)
        train.tiles.append(len(scene.tiles) - 1)
        open_end = scene.tiles[-1].pips[1]
        position = position + heading * (step + rng.uniform(0, 1.5))
        direction += bend
    return position, direction


def _add_marker(scene: Scene, train_index: int, footprints: list[Any], rng: random.Random) -> bool:
    """A small train marker of some shape and colour by the train, if there is room for it."""
    train = scene.trains[train_index]
    width = scene.style.size_mm[1]
    place = rng.choice(MARKER_PLACES)
    by = scene.tiles[train.tiles[0] if place == "at_start" else train.tiles[-1]]
    along = np.array([math.cos(by.angle), math.sin(by.angle)])
    across = np.array([-along[1], along[0]])
    reach = max(scene.style.size_mm[0], width) / 2
    if place == "past_end":
        centre = np.array(by.centre_mm) + along * (reach + width * 0.7)
    else:  # beside the tile, towards its start when at the start
        back = -rng.uniform(0.0, 0.3) if place == "at_start" else rng.uniform(-0.3, 0.3)
        centre = np.array(by.centre_mm) + across * width * rng.choice([-1, 1]) * 1.1 + along * reach * back
    angle = by.angle + rng.uniform(-0.4, 0.4)
    footprint = ((float(centre[0]), float(centre[1])), angle, (width * 0.9, width * 0.5))
    if any(_overlap(footprint, other) for other in footprints):
        return False
    if scene.hub is not None and _reaches(footprint, scene.hub["centre_mm"], scene.hub["radius_mm"]):
        return False
    footprints.append(footprint)
    if rng.random() < 0.5:
        colour = MARKER_COLOURS[rng.randrange(len(MARKER_COLOURS))]
    else:  # any colour at all
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
    scene.markers.append(Marker(footprint[0], angle, colour, rng.choice(MARKER_SHAPES), train_index))
    return True


def _flag_train_faults(scene: Scene) -> None:
    """RULES.md 8 flags the label carries: joins that do not match, doubles left open at a train's end."""
    assert scene.engine is not None
    for train in scene.trains:
        open_end = scene.tiles[scene.engine].pips[0]
        previous: int | None = None
        for index in train.tiles:
            inner, outer = scene.tiles[index].pips
            if inner != open_end:  # tiles are laid inner end first; a fault's inner end does not match
                joined = [index] if previous is None else [previous, index]
                scene.flags.append({"kind": "illegal_join", "tiles": joined})
            open_end, previous = outer, index
        if train.tiles:
            last = scene.tiles[train.tiles[-1]].pips
            if last[0] == last[1]:
                scene.flags.append({"kind": "unsatisfied_double", "tiles": [train.tiles[-1]]})


def _add_distractors(
    scene: Scene, footprints: list[Any], pool: list[tuple[int, int]], rng: random.Random, options: SceneOptions
) -> None:
    length, width, thickness = scene.style.size_mm
    face_down = rng.randint(1, options.most_face_down) if rng.random() < options.face_down_share else 0
    extra = [(FACE_DOWN, (length, width))] * face_down
    standing = rng.randint(1, options.most_standing) if rng.random() < options.standing_share else 0
    extra += [(STANDING, (length, thickness))] * standing
    _, radius = scene.extent_mm()
    for pose, footprint in extra:
        for _attempt in range(40):
            centre = (rng.uniform(-radius, radius) * 1.2, rng.uniform(-radius, radius) * 1.2)
            if pool and _place(scene, footprints, pool[-1], centre, rng.uniform(0, 2 * math.pi), footprint, pose=pose):
                pool.pop()
                break


def _add_glare(scene: Scene, rng: random.Random, options: SceneOptions) -> None:
    if rng.random() < options.glare_share:
        for tile in scene.tiles:
            if rng.random() < options.glare_tiles:
                tile.glare = rng.uniform(*options.glare_strength)


def _place(
    scene: Scene,
    footprints: list[tuple[tuple[float, float], float, tuple[float, float]]],
    pips: tuple[int, int],
    centre: tuple[float, float],
    angle: float,
    size: tuple[float, float],
    pose: str = FACE_UP,
) -> bool:
    """Add a tile unless it would overlap one already placed."""
    footprint = ((float(centre[0]), float(centre[1])), angle, (size[0] + 0.4, size[1] + 0.4))
    if any(_overlap(footprint, other) for other in footprints):
        return False
    if scene.hub is not None and _reaches(footprint, scene.hub["centre_mm"], scene.hub["radius_mm"]):
        return False
    footprints.append(footprint)
    scene.tiles.append(PlacedTile(pips, footprint[0], angle, pose))
    return True


def _overlap(first: Any, second: Any) -> bool:
    """Do two rotated rectangles ((cx, cy), angle, (length, width)) overlap? (OpenCV's test.)"""
    rects = [((c[0], c[1]), (s[0], s[1]), math.degrees(a)) for c, a, s in (first, second)]
    kind, _ = cv2.rotatedRectangleIntersection(rects[0], rects[1])
    return kind != cv2.INTERSECT_NONE


def _reaches(footprint: Any, centre: tuple[float, float], radius: float) -> bool:
    """Does a rotated rectangle reach into a circle (the hub)?"""
    (cx, cy), angle, (length, width) = footprint
    dx, dy = centre[0] - cx, centre[1] - cy
    along = dx * math.cos(angle) + dy * math.sin(angle)
    across = -dx * math.sin(angle) + dy * math.cos(angle)
    nearest_along = max(-length / 2, min(length / 2, along))
    nearest_across = max(-width / 2, min(width / 2, across))
    return math.hypot(along - nearest_along, across - nearest_across) < radius


def _shuffled_set(highest: int, rng: random.Random) -> list[tuple[int, int]]:
    """Every tile of the set in random order, each turned one way or the other at random."""
    tiles = [
        (tile.high, tile.low) if rng.random() < 0.5 else (tile.low, tile.high) for tile in sorted(domino_set(highest))
    ]
    rng.shuffle(tiles)
    return tiles


# --- rendering -----------------------------------------------------------------------------


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
    return cv2.warpPerspective(
        texture, H_image_from_table @ table_from_texture, (width, height), borderMode=cv2.BORDER_REFLECT
    )


def _objects(
    scene: Scene, camera: Any, rng: random.Random, glare: bool = True
) -> tuple[list[tuple[Any, int | None]], list[tuple[bool, bool]]]:
    """Boxes and prisms to draw, each with the index of the tile it is (None for others), and for
    each tile whether each half of its face has a pip washed out (``vision.synth.face.Face.hidden``)."""
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
                # (vision.synth.face.HIDDEN_CONTRAST)
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
