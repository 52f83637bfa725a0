"""What a reading looks like drawn on its photo: a hand's tiles and total, or a table's tiles, trains,
markers and flags. Each drawer returns a copy, for ``hubcam score/analyze --overlay`` to write (and
for the service or a watched video to show)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vision.draw import MAGENTA, RED, banner, draw_layout, draw_markers, draw_tile, thickness_for
from vision.observation import Observation, Reason, Sighting

if TYPE_CHECKING:
    from vision.table_analysis import TableAnalysis


def overlay_text(tile: Sighting) -> str:
    """What an overlay writes on a tile: its pips, or for one left out as uncertain "?" and its reason in a word."""
    if tile.reason is not None:
        return f"? {tile.reason.word}"
    return "?" if tile.pips is None else f"{tile.pips[0]}-{tile.pips[1]}"


def draw_hand(image_bgr: np.ndarray, seen: Observation) -> np.ndarray:
    """The photo with each tile read (magenta; red where uncertain and not counted), the tiles cut by the
    frame, and the total in a banner."""
    drawn = image_bgr.copy()
    thickness = thickness_for(drawn)
    for tile in seen.tiles:
        draw_tile(drawn, tile.corners, overlay_text(tile), RED if tile.uncertain else MAGENTA, thickness)
    for tile in seen.cut_by_frame:
        draw_tile(drawn, tile.corners, f"? {Reason.BEYOND_FRAME.word}", RED, thickness)
    unsure = len(seen.uncertain) + len(seen.cut_by_frame)
    banner(drawn, f"total {seen.total}" + (f", {unsure} uncertain (red, not counted)" if unsure else ""), thickness)
    return drawn


def draw_table(image_bgr: np.ndarray, seen: Observation, analysis: TableAnalysis) -> np.ndarray:
    """The photo with its tiles read, the hub, each train from the engine out (numbered), the markers in
    their train's colour, and a banner counting trains and flags. ``seen``: a table reading (its layout
    names the engine tile); ``analysis``: ``TableAnalysis.of(seen, ...)``, which says whose marker is whose."""
    if seen.layout is None:
        raise ValueError(f"{analysis.image}: no table to draw (a hand reading has no layout)")
    drawn = image_bgr.copy()
    thickness = thickness_for(drawn)
    for tile in seen.tiles:
        draw_tile(drawn, tile.corners, overlay_text(tile), RED if tile.uncertain else MAGENTA, thickness)
    layout = seen.layout
    centres = np.array([tile.corners.mean(axis=0) for tile in seen.tiles]).reshape(-1, 2)
    hub = None if layout.hub is None else (layout.hub.centre, layout.hub.radius)
    draw_layout(drawn, centres, hub, [train.tile_ids for train in layout.trains], layout.engine, thickness)
    draw_markers(drawn, [marker.corners for marker in seen.markers], [m.train for m in analysis.markers], thickness)
    flags = len(analysis.flags)
    banner(drawn, f"{len(layout.trains)} trains, {flags} {'flag' if flags == 1 else 'flags'}", thickness)
    return drawn
