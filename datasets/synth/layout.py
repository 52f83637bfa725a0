"""Where things lie in a synthetic scene, in table millimetres: the tiles of a hand (scattered,
touching, in rows or in lines of play), or the hub with the engine, trains, markers and loose tiles
of a table in play; each drawn from the scene's random stream, so the same seed lays the same scene.
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from datasets.labels import FACE_DOWN, FACE_UP, STANDING
from datasets.synth.options import SceneOptions
from datasets.synth.styles import TileStyle
from engine.tiles import domino_set

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


@dataclass(frozen=True)
class Printed:
    """One flat printed thing on the table: a ``size_mm`` (along ``angle``, across) rectangle centred
    at ``centre_mm``; its look is drawn from its own ``seed``."""

    kind: str
    centre_mm: tuple[float, float]
    angle: float
    size_mm: tuple[float, float]
    seed: int


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
    printed: list[Printed] = field(default_factory=list)
    """Flat printed things on a busy table, drawn under the tiles and never labelled."""

    def extent_mm(self) -> tuple[np.ndarray, float]:
        """The centre and radius of a circle holding every tile."""
        points = np.array([tile.centre_mm for tile in self.tiles] or [(0.0, 0.0)])
        centre = (points.max(axis=0) + points.min(axis=0)) / 2
        radius = float(np.linalg.norm(points - centre, axis=1).max()) + self.style.size_mm[0]
        if self.hub is not None:
            radius = max(radius, self.hub["radius_mm"] * 1.5)
        return np.append(centre, 0.0), radius


HAND_MODES = ("scattered", "touching", "rows", "lines")
HAND_MODE_WEIGHTS = (0.25, 0.2, 0.25, 0.3)
"""Real hand photos show tiles scattered, packed in grids and laid in lines of play (most of the
labelled ones): the detector trained without grids and lines missed or merged many of their
tiles (19 of the 27 in the double-12 grids found; all 27 after them, with longer training too:
benchmarks/HISTORY.md)."""
PACKED_ROWS = 0.5
"""Share of row layouts whose rows touch end to end (a grid), not kept apart."""


@dataclass(frozen=True)
class Growth:
    """How a train grows: up to ``tiles`` tiles, the gap between ends (mm, drawn from the range) and how
    far a crosswise double may sit off the line (a share of its length, either way)."""

    tiles: int
    gaps_mm: tuple[float, float] = (0.0, 1.5)
    double_shift: float = 0.0


def lay_hand(scene: Scene, rng: random.Random, options: SceneOptions) -> None:
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
            growth = Growth(rng.randint(1, min(left, 3)))
            position, direction = _grow_train(
                scene, segment, footprints, pool, open_end, (position, direction), rng, growth
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


def lay_table(scene: Scene, rng: random.Random, options: SceneOptions) -> None:
    """The hub with the engine, trains from its slots (one the Mexican train), markers, loose tiles;
    the trains' spacing as ``options`` says."""
    length, width, thickness = scene.style.size_mm
    players = rng.randint(2, 8)
    slots = max(players + 1, rng.choice([8, 9, 10]) if players < 8 else players + 1)
    engine_number = scene.highest - rng.randint(0, min(scene.highest, 4))
    scene.hub = _new_hub(rng, length, thickness, slots)
    hub_radius, hub_height = scene.hub["radius_mm"], scene.hub["height_mm"]
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
        growth = Growth(rng.randint(0, 8), options.train_gaps_mm, options.double_shift)
        _grow_train(scene, train, footprints, pool, engine_number, (start, direction), rng, growth)
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


def _new_hub(rng: random.Random, length: float, thickness: float, slots: int) -> dict[str, Any]:
    """A hub of random size, height, colour and look with ``slots`` slots, at the table's origin."""
    hub_radius = length * rng.uniform(1.1, 1.5)
    hub_height = thickness * rng.uniform(0.6, 1.2)
    hub_colour = rng.choice([(150, 150, 150), (60, 150, 200), (40, 40, 160), (30, 30, 30), (200, 200, 200)])
    if rng.random() < 0.3:  # any colour at all
        hub_colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
    return {
        "centre_mm": (0.0, 0.0),
        "radius_mm": hub_radius,
        "height_mm": hub_height,
        "colour": hub_colour,
        "slots": slots,
        "look": rng.choice(HUB_LOOKS),
    }


@dataclass(frozen=True)
class TrainEnd:
    """Where a growing train's next tile goes (a point on the table in mm and a direction), where the
    train starts, and how much it bends at each tile."""

    position: tuple[float, float]
    direction: float
    start: tuple[float, float]
    start_direction: float
    bend: float


def lay_empty_table(scene: Scene, rng: random.Random, players: int, engine_number: int) -> list[TrainEnd]:
    """The hub with the engine and an empty train for each seat and the Mexican train (the table at a
    round's start, laid as ``lay_table`` lays it); returns where each train's first tile goes."""
    length, _, thickness = scene.style.size_mm
    slots = max(players + 1, rng.choice([8, 9, 10]))
    scene.hub = _new_hub(rng, length, thickness, slots)
    scene.engine = len(scene.tiles)
    scene.tiles.append(
        PlacedTile((engine_number, engine_number), (0.0, 0.0), rng.uniform(0, 2 * math.pi), z_mm=scene.hub["height_mm"])
    )
    first_slot = rng.randrange(slots)
    ends = []
    for order, owner in enumerate([*range(players), "mexican"]):
        slot = (first_slot + order) % slots
        direction = 2 * math.pi * slot / slots + rng.uniform(-0.06, 0.06)
        reach = scene.hub["radius_mm"] + rng.uniform(1, 6)
        start = (reach * math.cos(direction), reach * math.sin(direction))
        bend = rng.uniform(-0.08, 0.08) if rng.random() < 0.4 else 0.0
        scene.trains.append(Train(owner, slot, []))
        ends.append(TrainEnd(start, direction, start, direction, bend))
    return ends


def extend_train(scene: Scene, train_index: int, end: TrainEnd, pips: tuple[int, int], rng: random.Random) -> TrainEnd:
    """Lay the tile ``pips`` (inner end, outer end) at the end of a train, a double crosswise as
    ``_grow_train`` lays them, whether or not it matches; returns the train's new end."""
    length, width, _ = scene.style.size_mm
    heading = np.array([math.cos(end.direction), math.sin(end.direction)])
    position = np.array(end.position)
    if pips[0] == pips[1]:
        centre, angle, step = position + heading * width / 2, end.direction + math.pi / 2, width
    else:
        centre, angle, step = position + heading * length / 2, end.direction, length
    scene.tiles.append(PlacedTile(pips, (float(centre[0]), float(centre[1])), angle))
    scene.trains[train_index].tiles.append(len(scene.tiles) - 1)
    after = position + heading * (step + rng.uniform(0.2, 1.5))
    return dataclasses.replace(end, position=(float(after[0]), float(after[1])), direction=end.direction + end.bend)


def put_marker(scene: Scene, train_index: int, end: TrainEnd, colour: tuple[int, int, int], shape: str) -> None:
    """A train marker beside a train's first tile, out of the way of the tiles still to come."""
    length, width, _ = scene.style.size_mm
    along = np.array([math.cos(end.start_direction), math.sin(end.start_direction)])
    across = np.array([-along[1], along[0]])
    centre = np.array(end.start) + along * length * 0.9 + across * width * 1.25
    scene.markers.append(Marker((float(centre[0]), float(centre[1])), end.start_direction, colour, shape, train_index))
    scene.trains[train_index].marker = True


def take_marker(scene: Scene, train_index: int) -> None:
    """The marker of a train taken off the table (its owner played on it)."""
    scene.markers = [marker for marker in scene.markers if marker.train != train_index]
    scene.trains[train_index].marker = False


def _grow_train(
    scene: Scene,
    train: Train,
    footprints: list[tuple[tuple[float, float], float, tuple[float, float]]],
    pool: list[tuple[int, int]],
    open_end: int,
    start: tuple[np.ndarray, float],
    rng: random.Random,
    growth: Growth,
) -> tuple[np.ndarray, float]:
    """Up to ``growth.tiles`` tiles end to end from ``start`` (a position on the table, in mm, and a
    direction), matching ``open_end``, as far apart as ``growth`` says; doubles crosswise; now and then
    a bend. Returns where the next tile would start and its direction."""
    position, direction = start
    length, width, _ = scene.style.size_mm
    bend = rng.uniform(-0.12, 0.12) if rng.random() < 0.4 else 0.0
    for _ in range(growth.tiles):
        fault = rng.random() < 0.04
        choices = [tile for tile in pool if (open_end in tile) != fault]
        if not choices:
            break
        tile = rng.choice(choices)
        heading = np.array([math.cos(direction), math.sin(direction)])
        if tile[0] == tile[1] and not fault:  # doubles lie crosswise
            centre = position + heading * width / 2
            if growth.double_shift > 0:  # drawn only then: the usual scenes draw as before
                off = length * rng.uniform(-1, 1) * growth.double_shift
                centre = centre + np.array([-heading[1], heading[0]]) * off
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
        position = position + heading * (step + rng.uniform(*growth.gaps_mm))
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


def add_glare(scene: Scene, rng: random.Random, options: SceneOptions) -> None:
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
