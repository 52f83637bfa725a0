"""A table photo in, its state out (``hubcam analyze``): the tiles as ``hubcam score`` finds and reads
them, then the hub, engine, trains, chains and loose tiles they make (``vision.trains``), then the
flags of RULES.md section 8 (``vision.reconcile``)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from models import TABLE_COUNTER, TABLE_DETECTOR
from vision.observation import Observation, Reason
from vision.pipeline import HandScorer
from vision.reconcile import (
    RULES_PRIOR,
    RulesPrior,
    each_tile_once,
    in_layout,
    sure_pips,
    table_flags,
    train_pips,
    with_rules_prior,
)
from vision.trains import Hub, Layout, follow_trains, on_hub, with_markers


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


class TableReader:
    """Load the models once; call with a BGR image. ``highest``: the set's highest double (None:
    judged from the photo, and no tile is flagged ``out_of_set``). Tiles, markers and the hub are found
    by the table detector (``models.TABLE_DETECTOR``) and pips counted by the table counter
    (``models.TABLE_COUNTER``) unless ``detector`` or ``counter`` names another."""

    def __init__(self, highest: int | None = None, **models: Any) -> None:
        self.highest = highest
        self.scorer = HandScorer(highest=highest, **{"detector": TABLE_DETECTOR, "counter": TABLE_COUNTER, **models})

    def __call__(self, image_bgr: np.ndarray, label: object = None) -> Observation:
        """Read a table photo (``label`` is accepted for the evaluation harness and ignored)."""
        return read_table(self.scorer(image_bgr), self.highest)


def read_table(seen: Observation, highest: int | None, prior: RulesPrior | None = RULES_PRIOR) -> Observation:
    """``seen`` (the tiles found and read) with the table's layout and flags added: its tiles are
    every tile found (``Observation.found``: a table reading lists the tiles the frame cuts as
    tiles, flagged ``unreadable_tile``), and the layout's indices point into them. Where the
    halves meeting at a train's joins were read close between counts, ``prior`` decides them
    jointly (None: each as read)."""
    start = time.perf_counter()
    seen = without_hub_marks(replace(seen, tiles=seen.found, cut_by_frame=()))
    part = [index for index, tile in enumerate(seen.tiles) if in_layout(tile)]
    # geometry takes an unsure reading's word for a double: it only tells how the tile may lie
    doubles = [(pips := seen.tiles[index].pips) is not None and pips[0] == pips[1] for index in part]
    found = follow_trains([seen.tiles[index].corners for index in part], doubles, seen.hub)
    markers = [marker.corners for marker in seen.markers]
    layout = with_markers(_renumbered(found, part), [tile.corners for tile in seen.tiles], markers)
    if prior is not None:
        seen = replace(seen, tiles=tuple(each_tile_once(with_rules_prior(seen.tiles, layout, prior), highest, prior)))
    flags = table_flags(seen.tiles, layout, highest)
    spent = (time.perf_counter() - start) * 1000
    return replace(seen, layout=layout, chains=layout.chains, flags=tuple(flags)).with_stage("trains", spent)


HUB_MARK = Reason.ON_HUB
"""Why a box is left out of a table's layout: it lies on the hub the detector saw, and is not the engine."""


def without_hub_marks(seen: Observation) -> Observation:
    """``seen`` with the boxes that lie on the hub it saw, the engine apart, left out as ``HUB_MARK``."""
    if seen.hub is None:
        return seen
    corners = [tile.corners for tile in seen.tiles]
    marks = set(on_hub(corners, seen.hub, [tile.reason is Reason.FOUND_UNSURELY for tile in seen.tiles]))
    tiles = tuple(replace(tile, reason=HUB_MARK) if index in marks else tile for index, tile in enumerate(seen.tiles))
    return replace(seen, tiles=tiles)


def _renumbered(layout: Layout, ids: list[int]) -> Layout:
    """``layout`` of a subset of the tiles, its indices turned into the whole list's."""

    def ids_of(indices: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(ids[index] for index in indices)

    trains = tuple(replace(train, tile_ids=ids_of(train.tile_ids)) for train in layout.trains)
    return Layout(
        layout.hub,
        None if layout.engine is None else ids[layout.engine],
        trains,
        tuple(ids_of(chain) for chain in layout.chains),
        ids_of(layout.loose),
    )


def analysis_json(seen: Observation, image: str, timings: bool = False, seats: Seats | None = None) -> dict[str, Any]:
    """The JSON object ``hubcam analyze --json`` prints for the photo at ``image`` (train owners from
    ``seats``, null without)."""
    if seen.error is not None or seen.layout is None:
        return seen.to_json(image, timings)
    layout = seen.layout
    engine = None if layout.engine is None else sure_pips(seen.tiles[layout.engine])
    trains = []
    for train in layout.trains:
        pips = train_pips(seen.tiles, train)
        last = pips[-1]
        trains.append(
            {
                "slot_angle": train.slot_angle,
                "owner": None if seats is None else seats.owner(train.slot_angle),
                "tile_ids": list(train.tile_ids),
                "pips": [_listed(tile) for tile in pips],
                "open_end": None if last is None else last[1],
                "marker": train.marker is not None,
            }
        )
    marks = {train.marker: t for t, train in enumerate(layout.trains) if train.marker is not None}
    result: dict[str, Any] = {
        "image": image,
        "width": seen.width,
        "height": seen.height,
        "hub": None if layout.hub is None else _hub_json(layout.hub),
        "engine": _listed(engine),
        "tiles": [tile.to_json() for tile in seen.tiles],
        "trains": trains,
        "chains": [
            {"tile_ids": list(chain), "pips": [_listed(sure_pips(seen.tiles[i])) for i in chain]}
            for chain in layout.chains
        ],
        "loose": list(layout.loose),
        "markers": [{**marker.to_json(), "train": marks.get(m)} for m, marker in enumerate(seen.markers)],
        "flags": list(seen.flags or ()),
    }
    if timings:
        result["timings_ms"] = {stage: round(ms, 1) for stage, ms in seen.timings_ms.items()}
    return result


def _listed(pips: tuple[int, int] | None) -> list[int] | None:
    return None if pips is None else list(pips)


def _hub_json(hub: Hub) -> dict[str, Any]:
    return {"center": [round(value, 1) for value in hub.centre], "radius": round(hub.radius, 1)}
