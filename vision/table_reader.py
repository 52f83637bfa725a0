"""A table photo in, its state out (``hubcam analyze``): the tiles as ``hubcam score`` finds and reads
them, then the hub, engine, trains, chains and loose tiles they make (``vision.trains``, as its
``TableConfig`` says), then the flags of RULES.md section 8 (``vision.reconcile``). What is said of
the table, in the CLI, the service and the page, is a ``vision.table_analysis.TableAnalysis``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from calibration.table_plane import TablePlane, square_on, table_plane, through
from models import PIP_PEAKS, TABLE_COUNTER, TABLE_DETECTOR
from vision.geometry import tile_length
from vision.observation import Observation, Reason
from vision.pipeline import HandScorer
from vision.read.fusion import FOR_TABLES
from vision.reconcile import (
    RULES_PRIOR,
    RulesPrior,
    each_tile_once,
    in_layout,
    table_flags,
    with_rules_prior,
)
from vision.square_on_view import LONGEST_SQUARE_ON, plane_from_hub, slanted
from vision.trains import TABLE_CONFIG, Layout, TableConfig, follow_trains, on_hub, with_markers

SQUARE_ON_BY_HUB = "hub"
"""``TableReader(plane=...)``: each photo's plane from its own hub and engine (``vision.square_on_view``)."""


class TableReader:
    """Load the models once; call with a BGR image. ``highest``: the set's highest double (None:
    judged from the photo, and no tile is flagged ``out_of_set``). Tiles, markers and the hub are found
    by the table detector (``models.TABLE_DETECTOR``) and pips counted by the table counter
    (``models.TABLE_COUNTER``), overruled by the pip-peak counter on large tiles (``vision.read.fusion``
    ``FOR_TABLES``), unless ``detector``, ``counter`` or ``peaks`` names another; trains are followed
    as ``config`` says. ``plane``: the table's plane, where the tiles are found and read again on the
    table redrawn square-on where the photo is slanted (``vision.square_on_view``): a ``(3, 3)``
    homography from the photo's pixels (a profile's table part), or SQUARE_ON_BY_HUB for each photo's
    own hub; None: read as the photo shows it."""

    def __init__(
        self,
        highest: int | None = None,
        config: TableConfig = TABLE_CONFIG,
        plane: np.ndarray | str | None = None,
        **models: Any,
    ) -> None:
        if isinstance(plane, str) and plane != SQUARE_ON_BY_HUB:
            raise ValueError(f"plane {plane!r}: expected a (3, 3) homography, {SQUARE_ON_BY_HUB!r} or None")
        self.highest = highest
        self.config = config
        self.plane = plane
        table_models = {"detector": TABLE_DETECTOR, "counter": TABLE_COUNTER, "peaks": PIP_PEAKS}
        self.scorer = HandScorer(highest=highest, overrule=FOR_TABLES, **{**table_models, **models})

    def __call__(self, image_bgr: np.ndarray, label: object = None) -> Observation:
        """Read a table photo (``label`` is accepted for the evaluation harness and ignored)."""
        return self.read(image_bgr, self.plane)

    def read(self, image_bgr: np.ndarray, plane: np.ndarray | str | None) -> Observation:
        """Read a table photo, again square-on where ``plane`` says (as the constructor's)."""
        seen = read_table(self.scorer(image_bgr), self.highest, config=self.config)
        if plane is None or not slanted(seen):
            return seen
        start = time.perf_counter()
        if isinstance(plane, str):
            plane = plane_from_hub(image_bgr, seen)
        if plane is None or not seen.tiles:
            return seen
        corners = [tile.corners for tile in seen.tiles]
        drawn, to_view = square_on(image_bgr, TablePlane(plane, slant=1.0), corners, LONGEST_SQUARE_ON)
        redrawing = (time.perf_counter() - start) * 1000
        height, width = image_bgr.shape[:2]
        again = self.scorer(drawn).through(np.linalg.inv(to_view), width, height)
        read = read_table(again, self.highest, config=self.config).with_stage("square-on", redrawing, first=True)
        return read.with_stage("first look", seen.timings_ms.get("total", 0.0), first=True)


def read_table(
    seen: Observation,
    highest: int | None,
    prior: RulesPrior | None = RULES_PRIOR,
    config: TableConfig = TABLE_CONFIG,
) -> Observation:
    """``seen`` (the tiles found and read) with the table's layout and flags added: its tiles are
    every tile found (``Observation.found``: a table reading lists the tiles the frame cuts as
    tiles, flagged ``unreadable_tile``), and the layout's indices point into them. Where the
    halves meeting at a train's joins were read close between counts, ``prior`` decides them
    jointly (None: each as read); trains are followed as ``config`` says."""
    start = time.perf_counter()
    seen = without_hub_marks(replace(seen, tiles=seen.found, cut_by_frame=()), config)
    part = [index for index, tile in enumerate(seen.tiles) if in_layout(tile)]
    # geometry takes an unsure reading's word for a double: it only tells how the tile may lie
    doubles = [(pips := seen.tiles[index].pips) is not None and pips[0] == pips[1] for index in part]
    corners = [seen.tiles[index].corners for index in part]
    plane = square_on_matrix(
        [quad for quad, index in zip(corners, part, strict=True) if not seen.tiles[index].uncertain]
    )
    found = follow_trains(corners, doubles, seen.hub, config, plane)
    markers = [marker.corners for marker in seen.markers]
    layout = with_markers(_renumbered(found, part), [tile.corners for tile in seen.tiles], markers, config)
    if prior is not None:
        seen = replace(seen, tiles=tuple(each_tile_once(with_rules_prior(seen.tiles, layout, prior), highest, prior)))
    flags = table_flags(seen.tiles, layout, highest)
    spent = (time.perf_counter() - start) * 1000
    return replace(seen, layout=layout, chains=layout.chains, flags=tuple(flags)).with_stage("trains", spent)


FOLLOW_SQUARE_ON = 1.3
"""A photo whose tiles show a slant (``calibration.table_plane``: the nearest tile this many times the
size of the farthest, or more) has its trains followed on the table seen square-on."""


def square_on_matrix(corners: Sequence[np.ndarray], least_slant: float = FOLLOW_SQUARE_ON) -> np.ndarray | None:
    """The homography from the photo to the table seen square-on, as the tiles read surely at
    ``corners`` show it, scaled so that their median length stays as long; None where the photo is
    not slanted enough to need it (or too few tiles tell)."""
    plane = table_plane(corners)
    if plane is None or plane.slant < least_slant:
        return None
    quads = np.asarray(corners, np.float64)
    on_plane = through(plane.to_plane, quads)
    scale = float(np.median([tile_length(quad) for quad in quads])) / max(
        float(np.median([tile_length(quad) for quad in on_plane])), 1e-12
    )
    matrix: np.ndarray = np.diag([scale, scale, 1.0]) @ plane.to_plane
    return matrix


HUB_MARK = Reason.ON_HUB
"""Why a box is left out of a table's layout: it lies on the hub the detector saw, and is not the engine."""


def without_hub_marks(seen: Observation, config: TableConfig = TABLE_CONFIG) -> Observation:
    """``seen`` with the boxes that lie on the hub it saw, the engine apart, left out as ``HUB_MARK``."""
    if seen.hub is None:
        return seen
    corners = [tile.corners for tile in seen.tiles]
    marks = set(on_hub(corners, seen.hub, [tile.reason is Reason.FOUND_UNSURELY for tile in seen.tiles], config))
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
