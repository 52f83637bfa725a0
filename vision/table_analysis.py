"""What ``hubcam analyze`` says of a table photo: the tiles as read, the hub and engine, each train
from the hub out with its owner and marker, the lines of play, the loose tiles, the markers and the
flags. The table stage's one result type, as ``Observation`` is a hand's: the CLI prints it, the
service answers it (``POST /analyze``) and the page draws its JSON.

>>> from vision.trains import Layout
>>> corners = np.array([[0, 0], [0, 20], [40, 20], [40, 0]], np.float32)
>>> tiles = (Sighting(corners, (9, 9)), Sighting(corners + 60, (9, 4)), Sighting(corners + 120, (4, 11)))
>>> layout = Layout(Hub((20.0, 10.0), 50.0), 0, (Train(90.0, (1, 2), (0, 0)),), (), ())
>>> analysis = TableAnalysis.of(Observation(tiles, 640, 480, layout=layout, flags=()), "table.jpg")
>>> analysis.engine, analysis.trains[0].pips, analysis.trains[0].open_end
((9, 9), ((9, 4), (4, 11)), 11)
>>> TableAnalysis.from_json(analysis.to_json()) == analysis
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.flags import Flag
from vision.geometry import tile_length
from vision.observation import Marker, Observation, Sighting
from vision.reconcile import sure_pips, train_pips
from vision.trains import Hub, Train

Pips = tuple[int, int]


@dataclass(frozen=True)
class Seats:
    """Who owns the train leaving each slot of the hub (``--seats FILE``): slot angles in degrees, as
    ``Train.slot_angle`` measures them, to seat numbers, and the Mexican train's slot.

    >>> seats = Seats.from_json({"slots": {"90": 0, "180": 1}, "mexican": 270})
    >>> seats.owner(95.0), seats.owner(268.0), seats.owner(10.0)
    (0, 'mexican', None)
    """

    slots: dict[float, int | str]

    @classmethod
    def from_json(cls, data: Any) -> Seats:
        """The seat map as ``{"slots": {"<angle>": seat, ...}, "mexican": <angle>}`` (ValueError naming
        what is wrong otherwise)."""
        if not isinstance(data, dict) or not isinstance(data.get("slots"), dict):
            raise ValueError('a seat map must be {"slots": {"<angle>": seat, ...}, "mexican": <angle>}')
        try:
            slots: dict[float, int | str] = {float(angle) % 360: int(seat) for angle, seat in data["slots"].items()}
            if data.get("mexican") is not None:
                slots[float(data["mexican"]) % 360] = "mexican"
        except (TypeError, ValueError):
            raise ValueError(f"invalid seat map: {data!r} (angles and seats must be numbers)") from None
        return cls(slots)

    def owner(self, slot_angle: float) -> int | str | None:
        """The owner of the slot nearest ``slot_angle``, if it lies within half the gap between slots."""
        if not self.slots:
            return None
        reach = 180.0 / len(self.slots)
        nearest = min(self.slots, key=lambda angle: _apart(angle, slot_angle))
        return self.slots[nearest] if _apart(nearest, slot_angle) <= reach else None


def _apart(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


@dataclass(frozen=True)
class TrainReading:
    """A train as read: its tiles from the hub out, each as (inner end, outer end)."""

    slot_angle: float
    """Degrees, counter-clockwise from the image's right as seen (``Train.slot_angle``)."""
    owner: int | str | None
    """Its seat, or "mexican", from the seat map; None without one, or off its slots."""
    tile_ids: tuple[int, ...]
    pips: tuple[Pips | None, ...]
    """Each tile as (inner end, outer end); None where it was not read surely."""
    marker: bool
    """Whether a train marker stands by it."""

    @property
    def open_end(self) -> int | None:
        """The number the next tile must match: the last tile's outer end (None where it was not read surely)."""
        last = self.pips[-1] if self.pips else None
        return None if last is None else last[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "slot_angle": self.slot_angle,
            "owner": self.owner,
            "tile_ids": list(self.tile_ids),
            "pips": [_listed(pair) for pair in self.pips],
            "open_end": self.open_end,
            "marker": self.marker,
        }

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> TrainReading:
        owner = entry["owner"]
        return cls(
            float(entry["slot_angle"]),
            owner if owner is None or owner == "mexican" else int(owner),
            _ids(entry["tile_ids"]),
            tuple(_pips(pair) for pair in entry["pips"]),
            bool(entry["marker"]),
        )


@dataclass(frozen=True)
class ChainReading:
    """A line of play away from the hub: its tiles end to end, each as read (None where not surely)."""

    tile_ids: tuple[int, ...]
    pips: tuple[Pips | None, ...]

    def to_json(self) -> dict[str, Any]:
        return {"tile_ids": list(self.tile_ids), "pips": [_listed(pair) for pair in self.pips]}

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> ChainReading:
        return cls(_ids(entry["tile_ids"]), tuple(_pips(pair) for pair in entry["pips"]))


@dataclass(frozen=True, eq=False)
class MarkerReading:
    """A train marker seen, and the train it stands by (an index into the trains; None: by none)."""

    marker: Marker
    train: int | None

    def to_json(self) -> dict[str, Any]:
        return {**self.marker.to_json(), "train": self.train}

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> MarkerReading:
        corners = np.array(entry["corners"], dtype=np.float32)
        if corners.shape != (4, 2):
            raise ValueError(f"a marker's corners must be 4 points [x, y], got shape {corners.shape}")
        train = entry["train"]
        return cls(Marker(corners, float(entry["confidence"])), None if train is None else int(train))


SURE_TILE_PX = 64.0
"""Tiles at least this long are read surely enough to referee: on the held-out rendered tables per-half
was 0.87 at 32-47 px, 0.92 at 48-63, 0.97 at 64-79 and 1.00 from 112 px (issue 65)."""


def too_small(length_px: float | None, sure_px: float = SURE_TILE_PX) -> str | None:
    """What to tell a user whose tiles are seen ``length_px`` long (the median), where that is too small.

    >>> too_small(41.6)
    'tiles are 42 px long: too small to read surely (from 64 px); move the camera closer, or use 1920x1080 or more'
    >>> too_small(80.0) is None, too_small(None) is None
    (True, True)
    """
    if length_px is None or length_px >= sure_px:
        return None
    return (
        f"tiles are {length_px:.0f} px long: too small to read surely (from {sure_px:.0f} px); "
        "move the camera closer, or use 1920x1080 or more"
    )


@dataclass(frozen=True, eq=False)
class TableAnalysis:
    """A table photo as read (the shape of ``hubcam analyze --json``). Two analyses are equal when their
    JSON is: tiles and markers are compared by what the JSON says of them (their corners are arrays)."""

    image: str
    width: int
    height: int
    hub: Hub | None
    """The hub read (``Layout.hub``); None where none was seen."""
    engine: Pips | None
    """The engine's pips, where it was found and read surely."""
    tiles: tuple[Sighting, ...]
    trains: tuple[TrainReading, ...]
    chains: tuple[ChainReading, ...]
    loose: tuple[int, ...]
    markers: tuple[MarkerReading, ...]
    flags: tuple[Flag, ...]
    timings_ms: dict[str, float] | None = None
    """Time per stage, where asked for (None: left out of the JSON)."""

    @classmethod
    def of(cls, seen: Observation, image: str, seats: Seats | None = None, timings: bool = False) -> TableAnalysis:
        """The analysis of ``seen``, a table reading (``vision.table_reader``) of the photo at ``image``:
        train owners from ``seats`` (None without), time per stage with ``timings``."""
        if seen.error is not None or seen.layout is None:
            raise ValueError(f"{image}: no table reading to analyse ({seen.error or 'no layout: a hand reading'})")
        layout = seen.layout
        engine = None if layout.engine is None else sure_pips(seen.tiles[layout.engine])
        marks = {train.marker: t for t, train in enumerate(layout.trains) if train.marker is not None}
        return cls(
            image,
            seen.width,
            seen.height,
            layout.hub,
            engine,
            seen.tiles,
            tuple(_train_reading(seen.tiles, train, seats) for train in layout.trains),
            tuple(ChainReading(chain, tuple(sure_pips(seen.tiles[i]) for i in chain)) for chain in layout.chains),
            layout.loose,
            tuple(MarkerReading(marker, marks.get(m)) for m, marker in enumerate(seen.markers)),
            tuple(seen.flags or ()),
            dict(seen.timings_ms) if timings else None,
        )

    @property
    def tile_px(self) -> float | None:
        """The tiles' median length in pixels (None: no tile found)."""
        return float(np.median([tile_length(tile.corners) for tile in self.tiles])) if self.tiles else None

    @property
    def advice(self) -> str | None:
        """Where the tiles are seen too small to read surely, what the user should change."""
        return too_small(self.tile_px)

    def to_json(self) -> dict[str, Any]:
        length = self.tile_px
        result: dict[str, Any] = {
            "image": self.image,
            "width": self.width,
            "height": self.height,
            "tile_px": None if length is None else round(length, 1),
            "advice": self.advice,
            "hub": None if self.hub is None else _hub_json(self.hub),
            "engine": _listed(self.engine),
            "tiles": [tile.to_json() for tile in self.tiles],
            "trains": [train.to_json() for train in self.trains],
            "chains": [chain.to_json() for chain in self.chains],
            "loose": list(self.loose),
            "markers": [marker.to_json() for marker in self.markers],
            "flags": [flag.to_json() for flag in self.flags],
        }
        if self.timings_ms is not None:
            result["timings_ms"] = {stage: round(ms, 1) for stage, ms in self.timings_ms.items()}
        return result

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> TableAnalysis:
        """The analysis ``to_json`` wrote (ValueError naming what is wrong otherwise)."""
        try:
            hub = item["hub"]
            timings = item.get("timings_ms")
            return cls(
                str(item["image"]),
                int(item["width"]),
                int(item["height"]),
                None if hub is None else Hub((float(hub["center"][0]), float(hub["center"][1])), float(hub["radius"])),
                _pips(item["engine"]),
                tuple(Sighting.from_json(tile) for tile in item["tiles"]),
                tuple(TrainReading.from_json(train) for train in item["trains"]),
                tuple(ChainReading.from_json(chain) for chain in item["chains"]),
                _ids(item["loose"]),
                tuple(MarkerReading.from_json(marker) for marker in item["markers"]),
                tuple(Flag.from_json(flag) for flag in item["flags"]),
                None if timings is None else {str(stage): float(ms) for stage, ms in timings.items()},
            )
        except (KeyError, TypeError, IndexError, AttributeError) as error:
            raise ValueError(f"not a table analysis: {error!r}") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TableAnalysis) and self.to_json() == other.to_json()


def _train_reading(tiles: tuple[Sighting, ...], train: Train, seats: Seats | None) -> TrainReading:
    return TrainReading(
        train.slot_angle,
        None if seats is None else seats.owner(train.slot_angle),
        train.tile_ids,
        tuple(train_pips(tiles, train)),
        train.marker is not None,
    )


def _listed(pips: Pips | None) -> list[int] | None:
    return None if pips is None else list(pips)


def _pips(pair: Any) -> Pips | None:
    if pair is None:
        return None
    if len(pair) != 2:
        raise ValueError(f"pips must be [a, b] or null, got {pair!r}")
    return int(pair[0]), int(pair[1])


def _ids(ids: Any) -> tuple[int, ...]:
    return tuple(int(index) for index in ids)


def _hub_json(hub: Hub) -> dict[str, Any]:
    return {"center": [round(value, 1) for value in hub.centre], "radius": round(hub.radius, 1)}
