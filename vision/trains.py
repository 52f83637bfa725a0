"""Following the trains: which tile is the engine, where the hub is, and which tiles touch which.

Geometry only, from the tiles' corners as found in the photo: no pip is looked at here, so a
misread tile cannot bend a train (the rules come after, in ``vision.reconcile``). Every distance
is measured in the size of the tiles concerned, so a photo taken at a slant, where far tiles look
smaller, is followed the same way.

- The **engine** is the double that trains start from: tiles whose long axis points at its centre,
  their near end (or a crosswise double's near side) a hub's radius away. The **hub** is the
  circle through those starts, round the engine.
- A **train** grows from each start, tile by tile: the next tile touches the open end, end to
  end (a bend allowed), or lies across it (a double laid crosswise, or a square corner).
- **Chains** are lines of tiles laid end to end among the tiles in no train (lines of play with no
  hub in sight); the rest are **loose**.

>>> tile = lambda x, y: np.array([[x, y + 10], [x, y - 10], [x + 40, y - 10], [x + 40, y + 10]], np.float32)
>>> layout = follow_trains([tile(-20, 0), tile(20, 0), tile(61, 0)], doubles=[True, False, False])
>>> layout.engine, [train.tile_ids for train in layout.trains], layout.loose
(None, [], ())
>>> layout.chains
((0, 1, 2),)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from calibration.table_plane import through
from vision.settings import Settings


@dataclass(frozen=True)
class TableConfig(Settings):
    """How trains are followed: every threshold of this module, in the tiles' own sizes. Its defaults
    are the bundled ones; change it with ``replace`` (which gives an unknown name a "did you mean").

    >>> TableConfig().replace(end_gap=0.3).end_gap
    0.3
    """

    nearest_hub: float = 0.75
    """A train's first tile starts at least this many tile lengths from the engine's centre: the
    hub's radius (stations measure 1.1-1.5 tile lengths across the radius, and a tile may stand off
    its slot) ..."""
    farthest_hub: float = 2.6
    """... and at most this many."""
    points_at: float = 0.9
    """|cos| of the angle between a first tile's axis and the line to the engine's centre."""
    least_trains: int = 2
    """An engine is told from a double in a line of play by the trains it starts: at least this many
    (a table with only one train laid is not told from a line of play by geometry), not counting those
    that start with a double (a legal first tile never is one: the engine is the only double with its
    number; doubles scattered round another, as in a hand photo, looked like an engine's trains)."""
    off_line: float = 0.5
    """A first tile's axis passes this many tile widths from the engine's centre, or nearer."""
    end_gap: float = 0.6
    """Two ends touch when they lie this many tile widths apart or nearer (tiles are pushed together
    by hand, not glued: a gap of a few millimetres, and a corner's error, is usual). On the tuning
    tables (seeds 77 and 81), 0.45 broke trains laid 2-6 mm apart; 0.75 did as well as 0.6; 0.9 raised
    false ``illegal_join`` flags on the usual tables (benchmarks/HISTORY.md)."""
    side_gap: float = 0.45
    """An end touches a crosswise tile's side when it lies this many widths off it or nearer."""
    along: float = 0.6
    """|cos| at least, between a tile's axis and the way its train runs, for it to continue end to end
    (up to about 53 degrees of bend at a joint)."""
    across: float = 0.5
    """|cos| at most, between a crosswise tile's axis and the way its train runs."""
    engine_in_hub: float = 0.5
    """With the hub seen (a table detector's box round it), the engine is the tile whose centre lies
    nearest the hub's, within this share of its radius."""
    on_hub: float = 0.8
    """With the hub seen, a box whose centre lies within this share of its radius (the engine's apart) is
    none of the trains': the hub's own notches and colours taken for a tile. A first tile's centre lies
    beyond the rim (1.02 radii at the least, 1.15 for all but 1 % of 2,088 labelled first tiles), but the
    detector's hub is off by up to a fifth of its radius ..."""
    unsure_on_hub: float = 1.05
    """... and a box found unsurely (a likely false one) is left out to the rim."""
    marker_reach: float = 1.5
    """A marker stands by a train when its centre lies this many tile widths or nearer from the train's
    first or last tile (markers stand beside a tile or just past the open end, about one width off)."""
    longest_search: int = 2000
    """How many joins a search for the longest line of play tries before it settles for the best found."""


TABLE_CONFIG = TableConfig()
"""The bundled settings."""


@dataclass(frozen=True)
class Shape:
    """A tile's place in the photo: its centre, long axis and size, and its two ends."""

    centre: np.ndarray
    axis: np.ndarray
    """Unit vector from the end of pips[0] to the end of pips[1]."""
    length: float
    width: float

    @classmethod
    def of(cls, corners: np.ndarray) -> Shape:
        """``corners``: ``(4, 2)``, corners[0]->corners[1] the short edge at the end of pips[0]."""
        corners = np.asarray(corners, np.float64)
        start, end = corners[:2].mean(axis=0), corners[2:].mean(axis=0)
        length = float(np.linalg.norm(end - start)) or 1e-6
        width = float((np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[3] - corners[2])) / 2)
        return cls(corners.mean(axis=0), (end - start) / length, length, max(width, 1e-6))

    def end(self, half: int) -> np.ndarray:
        """The middle of the short edge at the end of ``pips[half]``."""
        return self.centre + self.axis * self.length / 2 * (1 if half else -1)

    @property
    def normal(self) -> np.ndarray:
        return np.array([-self.axis[1], self.axis[0]])


@dataclass(frozen=True)
class Hub:
    centre: tuple[float, float]
    radius: float

    @classmethod
    def round(cls, corners: np.ndarray) -> Hub:
        """The hub inside a box ``(4, 2)`` round it: its middle, and half its mean side."""
        corners = np.asarray(corners, np.float64)
        sides = np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)
        centre = corners.mean(axis=0)
        return cls((float(centre[0]), float(centre[1])), float(sides.mean() / 2))

    def through(self, matrix: np.ndarray) -> Hub:
        """The hub through a ``(3, 3)`` homography: the middle of its rim there, and the rim's mean
        distance from it."""
        turns = np.linspace(0, 2 * math.pi, 12, endpoint=False)
        rim = through(matrix, np.asarray(self.centre) + self.radius * np.stack([np.cos(turns), np.sin(turns)], axis=1))
        centre = rim.mean(axis=0)
        return Hub((float(centre[0]), float(centre[1])), float(np.linalg.norm(rim - centre, axis=1).mean()))


@dataclass(frozen=True)
class Train:
    """Tiles from the hub outward, each with the half that faces the hub first."""

    slot_angle: float
    """Degrees, counter-clockwise from the image's right as seen, in [0, 360)."""
    tile_ids: tuple[int, ...]
    inner_halves: tuple[int, ...]
    """For each tile, which of its halves (0: pips[0]) is its inner end, nearer the hub."""
    marker: int | None = None
    """The train marker standing by it (an index into the observation's markers), if any."""


@dataclass(frozen=True)
class Layout:
    """How the tiles lie: the hub and engine (None where not seen), trains, chains and loose tiles."""

    hub: Hub | None
    engine: int | None
    trains: tuple[Train, ...]
    chains: tuple[tuple[int, ...], ...]
    loose: tuple[int, ...]


@dataclass(frozen=True)
class _Step:
    """A tile joined to an open end: its inner half, and where the next tile would join it."""

    tile: int
    inner_half: int
    error: float
    open_point: np.ndarray
    heading: np.ndarray
    scale: float


def follow_trains(
    corners: Sequence[np.ndarray],
    doubles: Sequence[bool],
    seen_hub: Hub | None = None,
    config: TableConfig = TABLE_CONFIG,
    plane: np.ndarray | None = None,
) -> Layout:
    """The layout of the tiles at ``corners`` (``doubles``: whether each was read as a double).
    ``seen_hub``: the hub where a detector saw it (its engine is then the tile nearest its centre, and
    trains start at its rim however few); None: the hub is judged from the tiles alone. ``plane``: a
    ``(3, 3)`` homography from the photo to the table seen square-on, where the tiles are then followed
    (a steep view foreshortens the trains running away from the camera); the hub and the trains'
    angles are still said as the photo shows them."""
    photo = [Shape.of(quad) for quad in corners]
    there, hub_there = list(corners), seen_hub
    if plane is not None:
        there = [through(plane, np.asarray(quad, np.float64)) for quad in corners]
        hub_there = None if seen_hub is None else seen_hub.through(plane)
    shapes = [Shape.of(quad) for quad in there]
    if hub_there is not None:
        engine = engine_on(there, hub_there, config)
        centre_there = np.asarray(hub_there.centre, np.float64)
        starts = _starts(shapes, doubles, centre_there, set() if engine is None else {engine}, config)
    else:
        engine, starts = _engine(shapes, doubles, config)
    hub = seen_hub
    if hub is None and engine is not None:
        middle = photo[engine].centre
        reach = float(np.median([_reach(photo[s.tile], middle) for s in starts]))
        hub = Hub((float(middle[0]), float(middle[1])), reach)
    trains: list[Train] = []
    used: set[int] = set() if engine is None else {engine}
    if hub is not None:
        centre = np.asarray(hub.centre, np.float64)
        for start in starts:
            if start.tile in used:
                continue
            steps = _follow(shapes, doubles, start, used, config)
            away = photo[start.tile].centre - centre
            angle = math.degrees(math.atan2(-away[1], away[0])) % 360.0
            trains.append(
                Train(round(angle, 1), tuple(s.tile for s in steps), tuple(max(s.inner_half, 0) for s in steps))
            )
        trains.sort(key=lambda train: train.slot_angle)
    chains = _chains(shapes, doubles, used, config)
    laid = {
        engine,
        *(tile for train in trains for tile in train.tile_ids),
        *(tile for chain in chains for tile in chain),
    }
    loose = tuple(index for index in range(len(shapes)) if index not in laid)
    return Layout(hub, engine, tuple(trains), chains, loose)


def engine_on(corners: Sequence[np.ndarray], hub: Hub, config: TableConfig = TABLE_CONFIG) -> int | None:
    """The tile lying in ``hub``'s middle (``config.engine_in_hub``), if any: the engine."""
    off = [_off_centre(quad, hub) for quad in corners]
    nearest = min(range(len(off)), key=off.__getitem__, default=None)
    return nearest if nearest is not None and off[nearest] <= config.engine_in_hub else None


def on_hub(
    corners: Sequence[np.ndarray], hub: Hub, unsure: Sequence[bool], config: TableConfig = TABLE_CONFIG
) -> list[int]:
    """The boxes lying on ``hub`` (``config.on_hub``; ``config.unsure_on_hub`` for those found ``unsure``),
    the engine apart: no tile of the layout."""
    engine = engine_on(corners, hub, config)
    return [
        index
        for index, (quad, doubt) in enumerate(zip(corners, unsure, strict=True))
        if index != engine and _off_centre(quad, hub) <= (config.unsure_on_hub if doubt else config.on_hub)
    ]


def _off_centre(corners: np.ndarray, hub: Hub) -> float:
    """How far a tile's centre lies from ``hub``'s, in its radii."""
    centre = np.asarray(corners, np.float64).mean(axis=0)
    return float(np.linalg.norm(centre - np.asarray(hub.centre))) / max(hub.radius, 1e-6)


def _engine(shapes: list[Shape], doubles: Sequence[bool], config: TableConfig) -> tuple[int | None, list[_Step]]:
    """The double most trains start from, and those trains' first tiles (none: no engine seen)."""
    best: tuple[int, float, int | None, list[_Step]] = (0, 0.0, None, [])
    for candidate, is_double in enumerate(doubles):
        # the engine sits alone in the hub: a double that a tile touches is part of a line
        if not is_double or any(
            _touch(shapes[candidate], other, config) for other in shapes if other is not shapes[candidate]
        ):
            continue
        starts = _starts(shapes, doubles, shapes[candidate].centre, {candidate}, config)
        legal = sum(not doubles[step.tile] for step in starts)
        if legal < config.least_trains or not _hub_clear(shapes, candidate, starts):
            continue
        closeness = -sum(step.error for step in starts)
        if (len(starts), closeness) > best[:2]:
            best = (len(starts), closeness, candidate, starts)
    return best[2], best[3]


def _starts(
    shapes: list[Shape], doubles: Sequence[bool], centre: np.ndarray, apart: set[int], config: TableConfig
) -> list[_Step]:
    """The tiles that start a train from the hub at ``centre``: pointing at it from a hub's radius
    away (those in ``apart``, the engine's among them, never)."""
    starts = []
    for index, shape in enumerate(shapes):
        if index in apart:
            continue
        away = shape.centre - centre
        distance = float(np.linalg.norm(away))
        if distance == 0:
            continue
        heading = away / distance
        along = float(shape.axis @ heading)
        # a straight line on the table is straight in the photo: a slot's tile lies on a line
        # through the hub's centre, however the camera is slanted
        off_line = abs(float(away @ shape.normal)) / shape.width
        if abs(along) >= config.points_at and off_line <= config.off_line:  # end on: its nearer end faces the hub
            inner = 0 if along > 0 else 1
            near = float(np.linalg.norm(shape.end(inner) - centre))
            # measured in the tile's own length, which a slanted view shortens as much as the radius
            if config.nearest_hub <= near / shape.length <= config.farthest_hub:
                outer = shape.end(1 - inner)
                starts.append(_Step(index, inner, off_line, outer, shape.axis * (1 if inner == 0 else -1), shape.width))
        elif doubles[index] and abs(float(away @ shape.axis)) / shape.width <= config.off_line:  # a crosswise double
            near = distance - shape.width / 2
            if config.nearest_hub <= near / (2 * shape.width) <= config.farthest_hub:
                away_side = shape.normal if float(shape.normal @ heading) > 0 else -shape.normal
                open_point = shape.centre + away_side * shape.width / 2
                starts.append(_Step(index, -1, abs(along), open_point, away_side, shape.width))
    return _one_per_slot(starts, shapes, centre)


def _hub_clear(shapes: list[Shape], engine: int, starts: list[_Step]) -> bool:
    """Whether nothing but the engine lies on the hub (no other tile's centre nearer than the nearest
    first tile's end: a slanted view makes the hub an ellipse, narrowest that way)."""
    centre = shapes[engine].centre
    radius = min(_reach(shapes[step.tile], centre) for step in starts)
    return all(
        float(np.linalg.norm(shape.centre - centre)) >= radius for index, shape in enumerate(shapes) if index != engine
    )


def _reach(shape: Shape, centre: np.ndarray) -> float:
    """How far a tile's nearest point along the line from ``centre`` lies from it (a first tile's
    distance from the engine: the hub's radius)."""
    away = shape.centre - centre
    distance = float(np.linalg.norm(away))
    along = abs(float(shape.axis @ away)) / max(distance, 1e-6)
    return distance - (shape.length / 2 * along + shape.width / 2 * math.sqrt(max(0.0, 1 - along * along)))


def _one_per_slot(starts: list[_Step], shapes: list[Shape], centre: np.ndarray) -> list[_Step]:
    """Where two starts lie one behind the other (the second tile of a train pointing at the hub
    too), only the nearer starts a train."""
    kept: list[_Step] = []
    for step in sorted(starts, key=lambda s: _reach(shapes[s.tile], centre)):
        behind = False
        for other in kept:
            distance = float(np.linalg.norm(shapes[other.tile].centre - centre))
            spread = math.atan2(shapes[other.tile].width, distance)  # the angle the nearer tile fills
            behind |= float(step.heading @ other.heading) >= math.cos(spread)
        if not behind:
            kept.append(step)
    return kept


def _follow(
    shapes: list[Shape], doubles: Sequence[bool], first: _Step, used: set[int], config: TableConfig
) -> list[_Step]:
    """The train from its first tile outward, marking its tiles ``used``."""
    steps = [first]
    used.add(first.tile)
    while (step := _next(shapes, doubles, steps[-1], used, config)) is not None:
        steps.append(step)
        used.add(step.tile)
    return steps


def _next(
    shapes: list[Shape], doubles: Sequence[bool], last: _Step, used: set[int], config: TableConfig
) -> _Step | None:
    """The tile that joins ``last``'s open end best, if any touches it."""
    return min(_joins(shapes, doubles, last, used, config), key=lambda step: step.error, default=None)


def _joins(
    shapes: list[Shape],
    doubles: Sequence[bool],
    last: _Step,
    used: set[int],
    config: TableConfig,
    branches: bool = False,
) -> list[_Step]:
    """Every tile that could join ``last`` (the best way for each); ``branches``: in a line of play, a
    double may also be left by the middle of its side, as in a cross."""
    found: dict[int, _Step] = {}
    before = shapes[last.tile]
    for index, shape in enumerate(shapes):
        if index in used:
            continue
        joins = [
            _end_on(index, shape, last, config),
            _crosswise(index, shape, doubles[index], last, config),
            _off_side(index, shape, before, last, config),
        ]
        if last.inner_half == -1:  # a crosswise double may also be left by its ends, as in a cross
            for sign in (1, -1):
                end = before.centre + sign * before.axis * before.length / 2
                turn = _end_on(index, shape, _Step(last.tile, 0, 0.0, end, sign * before.axis, before.width), config)
                joins.append(None if turn is None else replace(turn, error=turn.error + 0.3))
        elif branches and doubles[last.tile]:
            joins.append(_off_middle(index, shape, before, config))
        for step in joins:
            if step is not None and (index not in found or step.error < found[index].error):
                found[index] = step
    return list(found.values())


def _end_on(index: int, shape: Shape, last: _Step, config: TableConfig) -> _Step | None:
    """``shape`` continuing ``last`` end to end: one of its ends at the open point, pointing on."""
    scale = min(shape.width, last.scale)
    for inner in (0, 1):
        gap = float(np.linalg.norm(shape.end(inner) - last.open_point)) / scale
        onward = shape.axis * (1 if inner == 0 else -1)
        if gap <= config.end_gap and float(onward @ last.heading) >= config.along:
            return _Step(index, inner, gap, shape.end(1 - inner), onward, shape.width)
    return None


def _crosswise(index: int, shape: Shape, is_double: bool, last: _Step, config: TableConfig) -> _Step | None:
    """``shape`` laid across ``last``'s open end: a double (the train goes on past its far side), or
    a square corner (the train goes on along it, from the half that touches)."""
    if abs(float(shape.axis @ last.heading)) > config.across:
        return None
    offset = last.open_point - shape.centre
    along, across = float(offset @ shape.axis), float(offset @ shape.normal)
    off_side = abs(abs(across) - shape.width / 2) / shape.width
    if off_side > config.side_gap or abs(along) > shape.length / 2 + config.side_gap * shape.width:
        return None
    if float((shape.centre - last.open_point) @ last.heading) <= 0:
        return None
    away = -shape.normal if across > 0 else shape.normal
    # across the middle of the end, a tile is laid as a double is, however it was read (a double's
    # half misread makes it a single, and the train went no further)
    if is_double or abs(along) < shape.length / 8:  # the train goes on in line with the tile before,
        # across the far side, wherever along it that lies (a double is not always laid centred)
        far_side = shape.centre + shape.axis * along + away * shape.width / 2
        return _Step(index, -1, off_side, far_side, away, shape.width)
    inner = 0 if along < 0 else 1
    onward = shape.axis * (1 if inner == 0 else -1)
    return _Step(index, inner, off_side + 0.25, shape.end(1 - inner), onward, shape.width)


def _off_side(index: int, shape: Shape, before: Shape, last: _Step, config: TableConfig) -> _Step | None:
    """``shape`` turning a corner: one of its ends against the long side of the tile ``before``,
    by that tile's open end, pointing away from it."""
    if last.inner_half == -1:
        return None  # a crosswise double is left by its far side, not by a corner
    return _against_side(index, shape, before, last.heading, (0.0, before.length / 2), config)


def _off_middle(index: int, shape: Shape, double: Shape, config: TableConfig) -> _Step | None:
    """``shape`` branching off the middle of the long side of a ``double`` laid in line (a cross)."""
    return _against_side(index, shape, double, double.axis, (-double.length / 4, double.length / 4), config)


def _against_side(
    index: int, shape: Shape, side: Shape, heading: np.ndarray, span: tuple[float, float], config: TableConfig
) -> _Step | None:
    """``shape`` with one of its ends against the long side of the tile ``side``, across it and
    pointing away, where that end lies within ``span`` of the side's centre along ``heading``
    (one of the side tile's axis directions). Its inner half is the one that touches."""
    if abs(float(shape.axis @ side.axis)) > config.across:
        return None
    for inner in (0, 1):
        offset = shape.end(inner) - side.centre
        along, across = float(offset @ heading), float(offset @ side.normal)
        off_side = abs(abs(across) - side.width / 2) / side.width
        onward = shape.axis * (1 if inner == 0 else -1)
        outward = side.normal if across > 0 else -side.normal
        if off_side <= config.side_gap and span[0] <= along <= span[1] and float(onward @ outward) >= config.along:
            return _Step(index, inner, off_side + 0.3, shape.end(1 - inner), onward, shape.width)
    return None


def _chains(
    shapes: list[Shape], doubles: Sequence[bool], used: set[int], config: TableConfig
) -> tuple[tuple[int, ...], ...]:
    """Lines of two tiles or more, end to end, among the tiles not ``used`` (which it leaves alone)."""
    free = [index for index in range(len(shapes)) if index not in used]
    touching: dict[int, list[int]] = {index: [] for index in free}
    for position, first in enumerate(free):
        for second in free[position + 1 :]:
            if _touch(shapes[first], shapes[second], config):
                touching[first].append(second)
                touching[second].append(first)
    chains, taken = [], set(used)
    # start at the ends of lines (one neighbour), then whatever is left (rings, crosses)
    for start in sorted(free, key=lambda index: (len(touching[index]) != 1, index)):
        if start in taken or not touching[start]:
            continue
        chain = _longest_through(shapes, doubles, start, taken, config)
        if len(chain) > 1:
            chains.append(chain)
            taken.update(chain)
    return tuple(chains)


def _longest_through(
    shapes: list[Shape], doubles: Sequence[bool], start: int, taken: set[int], config: TableConfig
) -> tuple[int, ...]:
    """The longest line through ``start`` among the tiles not ``taken``: followed from both of its ends
    (or, for a double, also from both of its long sides, as when it lies across a line)."""
    shape = shapes[start]
    ways = [(shape.end(1), shape.axis, 1), (shape.end(0), -shape.axis, 0)]
    pairs = [(ways[0], ways[1])]
    if doubles[start]:
        sides = [(shape.centre + sign * shape.normal * shape.width / 2, sign * shape.normal, -1) for sign in (1, -1)]
        pairs.append((sides[0], sides[1]))
    best: tuple[int, ...] = (start,)
    for forward, backward in pairs:
        used = taken | {start}
        ahead = _follow_from(shapes, doubles, start, forward, used, config)
        behind = _follow_from(shapes, doubles, start, backward, used, config)
        line = (*reversed(behind), start, *ahead)
        if len(line) > len(best):
            best = line
    return best


def _follow_from(
    shapes: list[Shape],
    doubles: Sequence[bool],
    tile: int,
    way: tuple[np.ndarray, np.ndarray, int],
    used: set[int],
    config: TableConfig,
) -> list[int]:
    """The longest line that follows ``tile`` from its open end ``way`` (point, heading, which half
    lies behind it: -1 for a double's side), marking its tiles ``used``."""
    point, heading, behind = way
    first = _Step(tile, -1 if behind == -1 else 1 - behind, 0.0, point, heading, shapes[tile].width)
    line = _longest(shapes, doubles, first, used, [config.longest_search], config)
    used.update(line)
    return line


def _longest(
    shapes: list[Shape], doubles: Sequence[bool], last: _Step, used: set[int], budget: list[int], config: TableConfig
) -> list[int]:
    """The longest line of tiles from ``last`` on (where a line of play branches, the labels of real
    photos, like players, take the longest way first), the surer join first among equals."""
    best: list[int] = []
    for step in sorted(_joins(shapes, doubles, last, used, config, branches=True), key=lambda step: step.error):
        if budget[0] <= 0:
            break
        budget[0] -= 1
        line = [step.tile, *_longest(shapes, doubles, step, used | {step.tile}, budget, config)]
        if len(line) > len(best):
            best = line
    return best


def _touch(a: Shape, b: Shape, config: TableConfig) -> bool:
    """Whether two tiles touch end to end, or one lies across the other's end."""
    scale = min(a.width, b.width)
    for half_a in (0, 1):
        for half_b in (0, 1):
            if float(np.linalg.norm(a.end(half_a) - b.end(half_b))) / scale <= config.end_gap:
                if abs(float(a.axis @ b.axis)) >= config.along:
                    return True
    for end_tile, side_tile in ((a, b), (b, a)):
        if abs(float(end_tile.axis @ side_tile.axis)) > config.across:
            continue
        for half in (0, 1):
            offset = end_tile.end(half) - side_tile.centre
            along, across = float(offset @ side_tile.axis), float(offset @ side_tile.normal)
            if (
                abs(abs(across) - side_tile.width / 2) <= config.side_gap * side_tile.width
                and abs(along) <= side_tile.length / 2
            ):
                return True
    return False


def with_markers(
    layout: Layout, corners: Sequence[np.ndarray], markers: Sequence[np.ndarray], config: TableConfig = TABLE_CONFIG
) -> Layout:
    """``layout`` with each marker (``(4, 2)`` corners, surest first) given to the train it stands by:
    the train whose first or last tile (``corners``, indexed as the layout's) is nearest its centre,
    within ``config.marker_reach`` widths; a train keeps the first marker given to it.

    >>> tile = lambda x: np.array([[x, 10], [x, -10], [x + 40, -10], [x + 40, 10]], np.float32)
    >>> layout = Layout(None, None, (Train(0.0, (0, 1), (0, 0)),), (), ())
    >>> beside_end = np.array([[60, 15], [60, 35], [75, 35], [75, 15]], np.float32)
    >>> far_off = beside_end + 200
    >>> [train.marker for train in with_markers(layout, [tile(0), tile(41)], [far_off, beside_end]).trains]
    [1]
    """
    shapes = {index: Shape.of(corners[index]) for train in layout.trains for index in train.tile_ids}
    given: dict[int, int] = {}
    for index, marker in enumerate(markers):
        centre = np.asarray(marker, np.float64).mean(axis=0)
        reach = [
            (min(widths_off(shapes[train.tile_ids[0]], centre), widths_off(shapes[train.tile_ids[-1]], centre)), t)
            for t, train in enumerate(layout.trains)
            if train.tile_ids
        ]
        nearest = min(reach, default=None)
        if nearest is not None and nearest[0] <= config.marker_reach:
            given.setdefault(nearest[1], index)
    trains = tuple(replace(train, marker=given.get(t)) for t, train in enumerate(layout.trains))
    return replace(layout, trains=trains)


def widths_off(shape: Shape, point: np.ndarray) -> float:
    """How far ``point`` lies outside the tile, in its widths (0 inside it)."""
    offset = point - shape.centre
    along = max(abs(float(offset @ shape.axis)) - shape.length / 2, 0.0)
    across = max(abs(float(offset @ shape.normal)) - shape.width / 2, 0.0)
    return math.hypot(along, across) / shape.width
