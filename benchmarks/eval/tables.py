"""Scoring a table reading against its label: hub, engine, trains, lines of play and flags.

- **Hub found**: the centre read lies within half the labelled radius of the labelled centre.
- **Engine right**: the tile read as the engine is the labelled engine (matched by IoU).
- **Trains exactly right**: the multiset of non-empty trains, each its tiles in order from the hub,
  is the label's (tiles matched by IoU; an unmatched tile spoils its train).
- **Lines found** (any labelled line of play, real photos included): a labelled line equal to, or
  a contiguous run inside, a train or chain read (either way round).
- **Markers** (labels that place them): a train read with a marker is right when the label's train
  with the same first tile has a marker in the photo.
- **Flags** per kind: a flag read is right when the label has one of the same kind on the same tiles
  (a face-up tile the label calls unreadable, a half beyond the frame, stands for an
  ``unreadable_tile`` flag).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from datasets.labels import FACE_UP, LabelledImage
from vision.flags import FlagKind
from vision.observation import Observation
from vision.trains import Hub, Layout

HUB_CENTRE_SHARE = 0.5
"""A hub read counts as found when its centre lies within this share of the labelled radius."""
FLAG_KINDS = tuple(kind.value for kind in FlagKind)
"""The kinds of flag a table is scored on, in the order reports list them."""


@dataclass(frozen=True)
class TableScore:
    is_table: bool
    """Whether the label is of a table in play (a hub and trains), not only lines of play."""
    hub_found: bool | None
    engine_right: bool | None
    trains_label: int
    trains_right: bool | None
    lines_label: int
    lines_found: int
    flags: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    """Per kind: (right, read, labelled)."""
    markers: tuple[int, int, int] | None = None
    """Trains with a marker: (right, read, labelled); None where the label does not place markers."""


def score_table(label: LabelledImage, prediction: Observation, matches: list[tuple[int, int]]) -> TableScore | None:
    """The table's score; None where the prediction gives no layout (a hand scorer's)."""
    layout = prediction.layout
    if layout is None:
        return None
    to_label = {j: i for i, j in matches}
    is_table = "trains" in label.extra
    hub_found = engine_right = trains_right = None
    label_trains = [tuple(train["tiles"]) for train in label.extra.get("trains", []) if train["tiles"]]
    if is_table:
        hub_found = _hub_found(label.extra.get("hub"), layout.hub)
        engine = label.extra.get("engine")
        engine_right = layout.engine is not None and to_label.get(layout.engine) == engine
        read = [tuple(to_label.get(tile, -1) for tile in train.tile_ids) for train in layout.trains]
        trains_right = Counter(read) == Counter(label_trains)
    lines = [
        tuple(to_label.get(tile, -1) for tile in line)
        for line in (*(t.tile_ids for t in layout.trains), *layout.chains)
    ]
    found = sum(_inside(tuple(chain), lines) for chain in label.chains)
    return TableScore(
        is_table, hub_found, engine_right, len(label_trains), trains_right, len(label.chains), found,
        _flags_by_kind(label, prediction, to_label), _markers(label, layout, to_label),
    )  # fmt: skip


def _markers(label: LabelledImage, layout: Layout, to_label: dict[int, int]) -> tuple[int, int, int] | None:
    """(right, read, labelled) trains with a marker, trains told by their first tile."""
    if "markers" not in label.extra:
        return None
    trains = label.extra.get("trains", [])
    marked = {trains[marker["train"]]["tiles"][0] for marker in label.extra["markers"]}
    read = [to_label.get(train.tile_ids[0], -1) for train in layout.trains if train.marker is not None]
    return sum(first in marked for first in read), len(read), len(marked)


def _hub_found(label_hub: dict[str, Any] | None, read: Hub | None) -> bool:
    if label_hub is None or read is None:
        return label_hub is None and read is None
    centre = np.asarray(label_hub["centre"], float)
    return bool(np.linalg.norm(np.asarray(read.centre) - centre) <= HUB_CENTRE_SHARE * float(label_hub["radius"]))


def _inside(chain: tuple[int, ...], lines: Sequence[tuple[int, ...]]) -> bool:
    """Whether ``chain`` is a contiguous run of one of ``lines``, either way round."""
    size = len(chain)
    for line in lines:
        for run in (chain, chain[::-1]):
            if any(line[start : start + size] == run for start in range(len(line) - size + 1)):
                return True
    return False


def _flags_by_kind(
    label: LabelledImage, prediction: Observation, to_label: dict[int, int]
) -> dict[str, tuple[int, int, int]]:
    said = Counter(
        (flag.kind.value, frozenset(to_label.get(tile, -1) for tile in flag.tiles)) for flag in prediction.flags or ()
    )
    truth = Counter((str(flag.get("kind")), frozenset(flag.get("tiles", ()))) for flag in label.flags)
    # a face-up tile the label calls unreadable (a half beyond the frame) is one to flag unreadable_tile
    for index, tile in enumerate(label.tiles):
        if tile.pose == FACE_UP and tile.unreadable:
            truth[("unreadable_tile", frozenset({index}))] += 1
    result = {}
    for kind in FLAG_KINDS:
        read = sum(count for (k, _), count in said.items() if k == kind)
        labelled = sum(count for (k, _), count in truth.items() if k == kind)
        right = sum(min(count, said[key]) for key, count in truth.items() if key[0] == kind)
        if read or labelled:
            result[kind] = (right, read, labelled)
    return result
