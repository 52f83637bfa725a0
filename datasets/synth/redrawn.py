"""Synthetic hands photographed steeply and redrawn square-on, as the pipeline redraws a slanted photo.

A photo whose tiles say it was taken at a slant is found again in a view of the table's plane
(``vision.pipeline.HandScorer.square_on_again``): there a far tile is drawn from few pixels and every
tile's side is stretched away from the camera. The small models that look at boxes there (the box
refiner, the tile verifier) learn such views from these.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from calibration.table_plane import back_to_photo, square_on, table_plane
from datasets.labels import FACE_UP
from datasets.synth.scene import FULL, SceneOptions

STEEP_TILT = (25.0, 65.0)
"""How far off vertical the cameras of scenes taught in a redrawn view look (degrees): from photos
slanted enough to be redrawn by their tiles' sizes (``vision.pipeline.SLANT``) to those taken from a
chair (``hubcam synth --tilt 45-60``) and a little beyond."""
STEEP_SCENE: SceneOptions = replace(FULL, min_tilt_deg=STEEP_TILT[0], max_tilt_deg=STEEP_TILT[1])
"""The full renderer's options with every camera STEEP_TILT off vertical (what the small models'
``steep_scenes`` and ``view_scenes`` draw)."""
PLANE_JITTER = 0.015
"""The spread of the corners the view's plane is fitted to, as a share of their tile's length: the
boxes the pipeline fits it to, found and refined, lie that near their tiles (a plane fitted to boxes
loosened as ``datasets.corners.loosen`` loosens them made views the pipeline never draws)."""


Label = dict[str, Any]
"""A rendered scene's label (``datasets.synth.scene.render``)."""


def redrawn(image: np.ndarray, label: Label, rng: np.random.Generator) -> tuple[np.ndarray, Label] | None:
    """The photo redrawn square-on on the plane fitted to its whole face-up tiles' corners, each moved
    at random by about PLANE_JITTER of its tile's length, at the size the pipeline draws it; and its
    label with every tile's corners taken into the view. None where too few tiles fit a plane (the
    pipeline would not redraw the photo either)."""
    from vision.pipeline import DETECTOR_SIZE, VIEW_OVER_INPUT

    whole = [
        np.array(tile["corners"], np.float64) for tile in label["tiles"] if tile["pose"] == FACE_UP and not tile["cut"]
    ]
    jitter = [rng.normal(0, PLANE_JITTER * np.linalg.norm(tile[2] - tile[1]), (4, 2)) for tile in whole]
    plane = table_plane([tile + moved for tile, moved in zip(whole, jitter, strict=True)])
    if plane is None:
        return None
    view, matrix = square_on(image, plane, whole, VIEW_OVER_INPUT * DETECTOR_SIZE)
    # the pipeline's own way from photo to view: back_to_photo through the inverse
    in_view = back_to_photo(np.linalg.inv(matrix), [tile["corners"] for tile in label["tiles"]])
    tiles = [{**tile, "corners": quad.tolist()} for tile, quad in zip(label["tiles"], in_view, strict=True)]
    height, width = view.shape[:2]
    return view, {**label, "width": width, "height": height, "tiles": tiles}
