"""A profile put to work on photos: the table's plane at the photo's size, and the seat map.

A profile is measured on photos of one size; a photo of another size by the same camera (a phone's
photo scaled down, a webcam's smaller mode) keeps the same aspect, and its pixels are the profile's
scaled. A photo of another aspect was taken by another camera or cropped: the profile does not fit it,
and that is said, never guessed round.

Photos are read as the lens shows them, not undistorted first: on 12 rendered tables by a webcam with
strong barrel distortion (k1 -0.2 to -0.3), undistorting each photo before reading found fewer tiles
(167 of 190 as shown; 162 undistorted to the valid pixels, 147 keeping every pixel) and fewer tables'
trains right (6; 4) (benchmarks/HISTORY.md). The camera part serves the table's plane
(``hubcam calibrate table``), whose homography then maps the photo's pixels as the profile's
``undistorted`` says: near the frame's edge a strong lens bends the view redrawn square-on a little,
which reading again there does not mind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from calibration.profile import Profile, ProfileError, TablePart

ASPECT_TOLERANCE = 0.01
"""A photo's width / height may differ this much (relatively) from the profile's and still be its camera's."""


def plane_at(table: TablePart, size: tuple[int, int]) -> np.ndarray:
    """The table part's homography (pixels to mm) for photos of ``size`` (width, height); a ProfileError
    where their aspect is not the one it was measured on."""
    measured = table.image_size
    if abs((size[0] / size[1]) / (measured[0] / measured[1]) - 1) > ASPECT_TOLERANCE:
        raise ProfileError(
            f"the profile's table part was measured on {measured[0]}x{measured[1]} photos, this one is "
            f"{size[0]}x{size[1]} (another camera, or a crop: expected the same camera's photos, at any size "
            "of the same shape)"
        )
    scale = size[0] / measured[0]
    matrix: np.ndarray = table.image_to_table @ np.diag([1 / scale, 1 / scale, 1.0])
    return matrix


class AtTheTable:
    """What a profile changes in a reading: the table's plane for reading a slanted photo again
    square-on (its table part), the seat map (its seats part). Without a profile, or without a part,
    that part changes nothing."""

    def __init__(self, profile: Profile | None = None) -> None:
        self.profile = profile
        self.table = None if profile is None else profile.table

    @property
    def seats(self) -> Mapping[str, Any] | None:
        return None if self.profile is None else self.profile.seats

    def plane(self, size: tuple[int, int]) -> np.ndarray | None:
        """The table part's plane for photos of ``size`` (width, height); None without one. A ProfileError
        where the photo is not that camera's shape."""
        return None if self.table is None else plane_at(self.table, size)
