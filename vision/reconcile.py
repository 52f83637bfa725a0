"""The one bridge from what the camera saw to the rules: a table's layout and readings in, RULES.md
section 8's flags out.

Geometry (``vision.trains``) says which tile touches which and which half faces the hub; this
module alone asks whether the pips agree. A tile read unsurely is flagged ``unreadable_tile`` and
judged no further: a join is only called illegal between two sure readings.

>>> import numpy as np
>>> from vision.trains import Layout, Train
>>> corners = np.zeros((4, 2), np.float32)
>>> seen = [Sighting(corners, (9, 9)), Sighting(corners, (9, 4)), Sighting(corners, (5, 11))]
>>> layout = Layout(None, 0, (Train(90.0, (1, 2), (0, 0)),), (), ())
>>> [(flag["kind"], flag["train"], flag["index"]) for flag in table_flags(seen, layout, highest=12)]
[('illegal_join', 0, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.tiles import Tile
from vision.observation import Reason, Sighting
from vision.trains import Layout, Train

NOT_A_TILE = frozenset({Reason.ODD_SHAPE, Reason.PART_OF_TILE, Reason.ACROSS_TWO, Reason.OTHER_POSE})
"""Boxes left out because they are not one face-up tile: no part of the table's layout."""
UNREADABLE = frozenset({Reason.READ_UNSURE, Reason.NO_COUNT, Reason.BEYOND_FRAME, Reason.FOUND_UNSURELY})
"""Tiles found whose pips could not be read with confidence (RULES.md 8 ``unreadable_tile``)."""

Flag = dict[str, Any]


def in_layout(tile: Sighting) -> bool:
    """Whether a tile found takes part in the table's layout (a box that is no tile does not)."""
    return tile.reason not in NOT_A_TILE


def sure_pips(tile: Sighting) -> tuple[int, int] | None:
    """The pips read, where they were read with confidence (a twin of a surer tile's reading too:
    it is a duplicate, judged as read)."""
    return tile.pips if tile.reason is None or tile.reason is Reason.READ_ALIKE else None


def train_pips(tiles: Sequence[Sighting], train: Train) -> list[tuple[int, int] | None]:
    """Each tile of ``train`` as ``(inner end, outer end)``; None where it was not read surely."""
    ordered: list[tuple[int, int] | None] = []
    for tile_id, inner in zip(train.tile_ids, train.inner_halves, strict=True):
        pips = sure_pips(tiles[tile_id])
        ordered.append(None if pips is None else (pips[inner], pips[1 - inner]))
    return ordered


def table_flags(tiles: Sequence[Sighting], layout: Layout, highest: int | None) -> list[Flag]:
    """RULES.md 8's flags for the table: each names its kind, train and index (None off the trains),
    the tiles at fault (indices into ``tiles``) and a message a person understands."""
    flags: list[Flag] = []
    place = {tile_id: (number, index) for number, train in enumerate(layout.trains)
             for index, tile_id in enumerate(train.tile_ids)}  # fmt: skip
    engine = None if layout.engine is None else sure_pips(tiles[layout.engine])
    for number, train in enumerate(layout.trains):
        flags += _train_flags(tiles, train, number, None if engine is None else engine[0])
    for tile_id, tile in enumerate(tiles):
        if not in_layout(tile):
            continue
        train, index = place.get(tile_id, (None, None))
        where = _where(tile_id, train, index)
        if tile.reason in UNREADABLE:
            flags.append(
                _flag("unreadable_tile", train, index, [tile_id], f"{where} could not be read with confidence")
            )
        pips = sure_pips(tile)
        if pips is not None and highest is not None and max(pips) > highest:
            text = f"{where} reads {pips[0]}-{pips[1]}, above the double-{highest} set's highest"
            flags.append(_flag("out_of_set", train, index, [tile_id], text))
    flags += _duplicates(tiles, place)
    return flags


def _train_flags(tiles: Sequence[Sighting], train: Train, number: int, engine: int | None) -> list[Flag]:
    """A train's mismatched joins and its open double at the end (RULES.md 8)."""
    flags: list[Flag] = []
    open_end, previous = engine, None
    ordered = train_pips(tiles, train)
    for index, (tile_id, pips) in enumerate(zip(train.tile_ids, ordered, strict=True)):
        if pips is not None and open_end is not None and pips[0] != open_end:
            joined = [tile_id] if previous is None else [previous, tile_id]
            what = "the engine" if previous is None else f"the {open_end} before it"
            text = f"train {number + 1}: the {pips[0]}-{pips[1]} (tile {index + 1}) does not match {what} ({open_end})"
            flags.append(_flag("illegal_join", number, index, joined, text))
        open_end, previous = (None if pips is None else pips[1]), tile_id
    last = ordered[-1] if ordered else None
    if last is not None and last[0] == last[1]:
        text = f"train {number + 1} ends in the double {last[0]}-{last[1]}: it must be satisfied before other play"
        flags.append(_flag("unsatisfied_double", number, len(ordered) - 1, [train.tile_ids[-1]], text))
    return flags


def _duplicates(tiles: Sequence[Sighting], place: dict[int, tuple[int, int]]) -> list[Flag]:
    """Each tile seen surely a second time (two sets mixed, or a misread)."""
    flags, first_seen = [], {}
    for tile_id, tile in enumerate(tiles):
        pips = sure_pips(tile) if in_layout(tile) else None
        if pips is None:
            continue
        domino = Tile(*pips)
        if domino not in first_seen:
            first_seen[domino] = tile_id
            continue
        train, index = place.get(tile_id, (None, None))
        twice = f"tiles {first_seen[domino] + 1} and {tile_id + 1}"
        text = f"the {domino} is seen twice ({twice}): two sets mixed, or a misread"
        flags.append(_flag("duplicate_tile", train, index, [first_seen[domino], tile_id], text))
    return flags


def _where(tile_id: int, train: int | None, index: int | None) -> str:
    if train is None or index is None:
        return f"tile {tile_id + 1}"
    return f"tile {tile_id + 1} (train {train + 1}, place {index + 1})"


def _flag(kind: str, train: int | None, index: int | None, tile_ids: list[int], message: str) -> Flag:
    return {"kind": kind, "train": train, "index": index, "tiles": tile_ids, "message": message}
