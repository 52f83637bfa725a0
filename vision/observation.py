"""What vision saw in one photo: a sighting per tile, and the photo's observation of them all.

The one result type of vision: ``hubcam score`` prints it, ``hubcam eval --predictions`` reads it
back, and the table reader, the video watcher and the service build on it. Evaluation imports
this module, never the reverse.

>>> corners = [[0, 0], [0, 40], [80, 40], [80, 0]]
>>> seen = Observation((Sighting(np.array(corners), (6, 3), 0.91), Sighting(np.array(corners), (2, 2), 0.3,
...     Reason.READ_UNSURE)), width=640, height=480)
>>> seen.total, seen.uncertain
(9, [1])
>>> Observation.from_json(seen.to_json("hand.jpg")).to_json("hand.jpg") == seen.to_json("hand.jpg")
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from typing import Any

import cv2
import numpy as np

from engine.tiles import Tile
from vision.flags import Flag
from vision.trains import Hub, Layout


class Reason(StrEnum):
    """Why a tile found is left out of the total as uncertain (the JSON's ``reason``)."""

    BEYOND_FRAME = "beyond_frame"
    READ_UNSURE = "read_unsure"
    NO_COUNT = "no_count"
    ODD_SHAPE = "odd_shape"
    PART_OF_TILE = "part_of_tile"
    OTHER_POSE = "other_pose"
    ACROSS_TWO = "across_two"
    FOUND_UNSURELY = "found_unsurely"
    READ_ALIKE = "read_alike"
    ON_HUB = "on_hub"

    @property
    def message(self) -> str:
        """The reason as a person reads it in ``hubcam score``'s table."""
        return _MESSAGES[self]

    @property
    def word(self) -> str:
        """The reason in a word, as an overlay writes it after a "?"."""
        return _WORDS[self]


_MESSAGES = {
    Reason.BEYOND_FRAME: "beyond the frame",
    Reason.READ_UNSURE: "read unsure",
    Reason.NO_COUNT: "a half holds no count",
    Reason.ODD_SHAPE: "not a tile's shape",
    Reason.PART_OF_TILE: "part of a tile",
    Reason.OTHER_POSE: "seen face down or standing",
    Reason.ACROSS_TWO: "across two tiles",
    Reason.FOUND_UNSURELY: "found unsurely",
    Reason.READ_ALIKE: "read as a surer tile",
    Reason.ON_HUB: "on the hub, not the engine",
}
_WORDS = {
    Reason.BEYOND_FRAME: "edge",
    Reason.READ_UNSURE: "unsure",
    Reason.NO_COUNT: "no count",
    Reason.ODD_SHAPE: "shape",
    Reason.PART_OF_TILE: "part",
    Reason.OTHER_POSE: "pose",
    Reason.ACROSS_TWO: "across",
    Reason.FOUND_UNSURELY: "box",
    Reason.READ_ALIKE: "twin",
    Reason.ON_HUB: "hub",
}


@dataclass(frozen=True, eq=False)
class Sighting:
    """One tile found in a photo (compared by identity: its corners are an array)."""

    corners: np.ndarray
    """``(4, 2)`` float32 pixels; corners[0]->corners[1] is the short edge at the end of ``pips[0]``."""
    pips: tuple[int, int] | None
    """The halves as read, in the corners' order; None where nothing was read."""
    confidence: float = 1.0
    reason: Reason | None = None
    """Why it is left out of the total as uncertain; None when it is counted."""
    cut: bool = False
    """Whether the photo's frame cuts it."""
    odds: np.ndarray | None = None
    """``(2, counts)``: each half's probability of each count, in ``pips``' order, where the pip
    reader gave them (not in the JSON): what a rules prior weighs (``vision.reconcile``)."""

    @property
    def uncertain(self) -> bool:
        return self.reason is not None

    @property
    def tile(self) -> Tile | None:
        """The domino read, unordered as the engine compares tiles."""
        return None if self.pips is None else Tile(*self.pips)

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "pips": list(self.pips) if self.pips else None,
            "corners": corners_json(self.corners),
            "confidence": round(self.confidence, 3),
        }
        if self.cut:
            entry["cut"] = True
        if self.reason is not None:
            entry["reason"] = self.reason.value
        return entry

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> Sighting:
        pips = entry.get("pips")
        corners = np.array(entry["corners"], dtype=np.float32)
        if corners.shape != (4, 2):
            raise ValueError(f"a tile's corners must be 4 points [x, y], got shape {corners.shape}")
        reason = entry.get("reason")
        return cls(
            corners,
            None if pips is None else (int(pips[0]), int(pips[1])),
            float(entry.get("confidence", 1.0)),
            None if reason is None else _reason(reason),
            bool(entry.get("cut", False)),
        )


def corners_json(corners: np.ndarray) -> list[list[float]]:
    """Pixel corners as the JSON gives them: ``[[x, y], ...]`` to a tenth of a pixel."""
    return [[round(float(x), 1), round(float(y), 1)] for x, y in corners]


def _reason(code: str) -> Reason:
    try:
        return Reason(code)
    except ValueError:
        known = ", ".join(reason.value for reason in Reason)
        raise ValueError(f"unknown reason {code!r} (expected one of {known})") from None


@dataclass(frozen=True, eq=False)
class Marker:
    """A train marker seen on a table: a little engine, a coin, a peg (compared by identity)."""

    corners: np.ndarray
    """``(4, 2)`` float32 pixels, the rectangle round it."""
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {"corners": corners_json(self.corners), "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class Observation:
    """What was seen in one photo (the shape of ``hubcam score --json``)."""

    tiles: tuple[Sighting, ...]
    width: int = 0
    height: int = 0
    chains: tuple[tuple[int, ...], ...] | None = None
    """Lines of play, each as indices into ``tiles`` (table photos only)."""
    flags: tuple[Flag, ...] | None = None
    """RULES.md section 8's flags (table photos only)."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    over_set: int = 0
    """How many tiles were read surely as more pips than the set given allows (a hint that it is larger)."""
    cut_by_frame: tuple[Sighting, ...] = ()
    """Tiles the photo's frame cuts that could not be counted (the JSON's ``cut_by_frame``): found, and
    told so that a wider photo can be taken, but not among ``tiles``: a crop of one tile holds one tile,
    not the slivers of its neighbours."""
    markers: tuple[Marker, ...] = ()
    """Train markers seen (table photos, with a detector that knows them); ``Layout.trains`` say
    which stands by which train."""
    hub: Hub | None = None
    """The hub where a detector that knows hubs saw it (table photos); ``layout.hub`` is the one read."""
    layout: Layout | None = None
    """How the tiles lie on a table: hub, engine, trains, chains and loose tiles (``hubcam analyze``
    only; indices into ``tiles``)."""

    @cached_property  # evaluation indexes it tile by tile
    def found(self) -> tuple[Sighting, ...]:
        """Every tile found: ``tiles``, then ``cut_by_frame``."""
        return self.tiles + self.cut_by_frame

    @property
    def total(self) -> int | None:
        """The pips on every tile counted (not uncertain); None where the photo could not be read."""
        if self.error is not None:
            return None
        return sum(sum(tile.pips) for tile in self.tiles if tile.pips and not tile.uncertain)

    @property
    def uncertain(self) -> list[int]:
        """The indices of the tiles left out of the total."""
        return [index for index, tile in enumerate(self.tiles) if tile.uncertain]

    def with_decode(self, decode_ms: float) -> Observation:
        """The same, its timings with the photo's decoding added in front and to the total."""
        return self.with_stage("decode", decode_ms, first=True)

    def with_stage(self, stage: str, ms: float, first: bool = False) -> Observation:
        """The same, its timings with ``stage`` added (after the others, or ``first``) and to the total."""
        others = {name: spent for name, spent in self.timings_ms.items() if name != "total"}
        added = {stage: ms, **others} if first else {**others, stage: ms}
        return replace(self, timings_ms={**added, "total": self.timings_ms.get("total", 0.0) + ms})

    def moved(self, dx: float, dy: float, width: int, height: int) -> Observation:
        """The same seen in a larger picture (``width`` x ``height``) that holds this one at ``(dx, dy)``:
        a part of a frame read alone, put back in the frame's pixels."""
        return self.through(np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]), width, height)

    def through(self, matrix: np.ndarray, width: int, height: int) -> Observation:
        """The same in another picture (``width`` x ``height``) whose pixels ``matrix`` (``(3, 3)``, a
        homography) gives for this one's: a part of a frame, or a view redrawn square-on, put back. A
        layout's trains keep their slot angles (right for a shift; a view is put back before its trains
        are followed)."""

        def quad(corners: np.ndarray) -> np.ndarray:
            moved = cv2.perspectiveTransform(np.asarray(corners, np.float64).reshape(-1, 1, 2), matrix)
            return moved.reshape(-1, 2).astype(np.float32)

        def hub(at: Hub | None) -> Hub | None:
            return None if at is None else at.through(matrix)

        layout = None if self.layout is None else replace(self.layout, hub=hub(self.layout.hub))
        return replace(
            self,
            tiles=tuple(replace(tile, corners=quad(tile.corners)) for tile in self.tiles),
            cut_by_frame=tuple(replace(tile, corners=quad(tile.corners)) for tile in self.cut_by_frame),
            markers=tuple(replace(marker, corners=quad(marker.corners)) for marker in self.markers),
            hub=hub(self.hub),
            layout=layout,
            width=width,
            height=height,
        )

    def hub_and_markers(self) -> tuple[tuple[tuple[float, float], float] | None, list[tuple[np.ndarray, float]]]:
        """The hub (centre, radius) and each marker's (corners, confidence), as plain values: what
        ``calibration.seats.seats_from_photo`` draws the seat map from (calibration knows no vision)."""
        hub = None if self.hub is None else (self.hub.centre, self.hub.radius)
        return hub, [(marker.corners, marker.confidence) for marker in self.markers]

    def twin_of(self, index: int) -> int | None:
        """For a tile left out as read like a surer one (``Reason.READ_ALIKE``), that counted tile's index."""
        tile = self.tiles[index]
        if tile.reason is not Reason.READ_ALIKE or tile.tile is None:
            return None
        return next(
            (other for other, seen in enumerate(self.tiles) if not seen.uncertain and seen.tile == tile.tile), None
        )

    def to_json(self, image: str, timings: bool = False) -> dict[str, Any]:
        """The JSON object ``hubcam score --json`` prints for the photo at ``image``."""
        if self.error is not None:
            return {"image": image, "error": self.error}
        result: dict[str, Any] = {
            "image": image,
            "width": self.width,
            "height": self.height,
            "tiles": [tile.to_json() for tile in self.tiles],
            "total": self.total,
            "uncertain": self.uncertain,
            "cut_by_frame": [tile.to_json() for tile in self.cut_by_frame],
        }
        if self.chains is not None:
            result["chains"] = [list(chain) for chain in self.chains]
        if self.flags is not None:
            result["flags"] = [flag.to_json() for flag in self.flags]
        if timings:
            result["timings_ms"] = {stage: round(ms, 1) for stage, ms in self.timings_ms.items()}
        return result

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> Observation:
        """The observation ``to_json`` wrote (``ValueError`` naming what is wrong otherwise)."""
        try:
            tiles = tuple(Sighting.from_json(tile) for tile in item.get("tiles", []))
            uncertain = set(item.get("uncertain", []))
            if uncertain != {index for index, tile in enumerate(tiles) if tile.uncertain}:
                raise ValueError("'uncertain' must list exactly the tiles that give a reason")
            return cls(
                tiles,
                int(item.get("width", 0)),
                int(item.get("height", 0)),
                tuple(tuple(chain) for chain in item["chains"]) if "chains" in item else None,
                tuple(Flag.from_json(flag) for flag in item["flags"]) if "flags" in item else None,
                dict(item.get("timings_ms", {})),
                item.get("error"),
                cut_by_frame=tuple(Sighting.from_json(tile) for tile in item.get("cut_by_frame", [])),
            )
        except (KeyError, TypeError, IndexError) as error:
            raise ValueError(f"not an observation: {error!r}") from None
