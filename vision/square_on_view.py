"""A table photo redrawn square-on before its tiles are found and read (issue 68).

Seen at a slant, a table's far tiles are short and its near ones long, and the detector's boxes round
them are less sure. Where the table's plane is known (a profile's table part, ``hubcam calibrate
table``; or the hub's rim and the engine's length in the photo itself, as that command finds it
without markers), the part of the table where the tiles lie is redrawn as seen from above, every tile
about as long as the photo's median one (``calibration.table_plane.square_on``, as the hand scorer
redraws a slanted hand), read there, and what was found is put back in the photo's pixels. Measured
with ``hubcam eval --pipeline table-square-on`` (benchmarks/HISTORY.md): it pays on photos whose tiles
show a slant, and costs found tiles and trains on flatter views, so a photo is read again only where
SQUARE_ON_FROM_SPREAD says.
"""

from __future__ import annotations

import numpy as np

from calibration.table import HubSeen, TableError, table_part
from calibration.table_plane import size_spread
from vision.observation import Observation

TILE_MM = 50.0
"""The length the plane's millimetres are scaled to when it comes from the hub (any length does: the
view is drawn at the photo's own tile size)."""
LONGEST_SQUARE_ON = 2600
"""The longest side of the view (``calibration.table_plane.square_on``, which draws it round the tiles
found with a tile's length to spare): a long train on a steep photo is drawn smaller rather than larger."""
SQUARE_ON_FROM_SPREAD = 1.4
"""A photo is read again square-on where its tiles read surely show this spread of sizes or more (the
largest over the smallest, ``calibration.table_plane.size_spread``): chosen on the tuning tables
(seeds 77 and 87), where tables with every train right went 87 -> 89 of 100 usual ones and 51 -> 53
of 60 tilted ones; every photo read again lost 1 and gained 2, and found 3 tiles fewer. A plane found
from the hub without a calibrated camera tells the tilt too roughly to choose by (benchmarks/HISTORY.md)."""


def hub_seen(seen: Observation) -> HubSeen | None:
    """The hub, the engine on it and the other tiles read surely, as a table reading found them: what
    ``calibration.table`` takes a plane from without markers (None without a hub)."""
    if seen.hub is None:
        return None
    engine = None if seen.layout is None else seen.layout.engine
    read = [
        tile.corners for index, tile in enumerate(seen.tiles)
        if index != engine and tile.pips is not None and tile.reason is None
    ]  # fmt: skip
    return HubSeen(seen.hub.centre, seen.hub.radius, None if engine is None else seen.tiles[engine].corners, read)


def slanted(seen: Observation, least_spread: float = SQUARE_ON_FROM_SPREAD) -> bool:
    """Whether a reading's tiles read surely show a slant worth reading again square-on."""
    return size_spread([tile.corners for tile in seen.tiles if not tile.uncertain]) >= least_spread


def plane_from_hub(image_bgr: np.ndarray, seen: Observation) -> np.ndarray | None:
    """The table's plane (photo pixels to mm) from the hub's rim and the engine's length in a table reading
    ``seen`` of ``image_bgr``, with no calibrated camera; None where they are not seen."""
    hub = hub_seen(seen)
    if hub is None or hub.engine is None:
        return None
    try:
        part, _ = table_part(image_bgr, {}, hub, TILE_MM)
    except TableError:
        return None
    return part.image_to_table
