"""A profile put to work on photos: the lens's distortion taken out, the table's plane at the photo's size.

A profile is measured on photos of one size; a photo of another size by the same camera (a phone's
photo scaled down, a webcam's smaller mode) keeps the same aspect, and its pixels are the profile's
scaled. A photo of another aspect was taken by another camera or cropped: the profile does not fit it,
and that is said, never guessed round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np

from calibration.profile import CameraPart, Profile, ProfileError, TablePart

ASPECT_TOLERANCE = 0.01
"""A photo's width / height may differ this much (relatively) from the profile's and still be its camera's."""


def scale_to(measured: tuple[int, int], size: tuple[int, int], part: str) -> float:
    """How much larger a ``size`` (width, height) photo is than the ``measured`` ones; a ProfileError
    naming ``part`` where its aspect is another."""
    if abs((size[0] / size[1]) / (measured[0] / measured[1]) - 1) > ASPECT_TOLERANCE:
        raise ProfileError(
            f"the profile's {part} part was measured on {measured[0]}x{measured[1]} photos, this one is "
            f"{size[0]}x{size[1]} (another camera, or a crop: expected the same camera's photos, at any size "
            "of the same shape)"
        )
    return size[0] / measured[0]


def camera_matrix_at(camera: CameraPart, size: tuple[int, int]) -> np.ndarray:
    """The camera's matrix for photos of ``size`` (width, height)."""
    scale = scale_to(camera.image_size, size, "camera")
    matrix: np.ndarray = np.diag([scale, scale, 1.0]) @ camera.camera_matrix
    return matrix


def plane_at(table: TablePart, size: tuple[int, int]) -> np.ndarray:
    """The table part's homography (pixels to mm) for photos of ``size`` (width, height)."""
    scale = scale_to(table.image_size, size, "table")
    matrix: np.ndarray = table.image_to_table @ np.diag([1 / scale, 1 / scale, 1.0])
    return matrix


class Undistorter:
    """Photos by the profile's camera with the lens's distortion taken out (the same camera matrix, so
    straight lines on the table come out straight and sizes stay as they were)."""

    def __init__(self, camera: CameraPart) -> None:
        self.camera = camera
        self._maps: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def __call__(self, image_bgr: np.ndarray) -> np.ndarray:
        size = (image_bgr.shape[1], image_bgr.shape[0])
        if size not in self._maps:  # a webcam's frames: made once, used for each
            matrix = camera_matrix_at(self.camera, size)
            self._maps[size] = cv2.initUndistortRectifyMap(
                matrix, self.camera.distortion, None, matrix, size, cv2.CV_16SC2
            )
        first, second = self._maps[size]
        return cv2.remap(image_bgr, first, second, cv2.INTER_LINEAR)


class AtTheTable:
    """What a profile changes in a reading: each photo's lens distortion taken out (its camera part),
    the table's plane for reading a slanted photo again square-on (its table part), the seat map (its
    seats part). Without a profile, or without a part, that part changes nothing."""

    def __init__(self, profile: Profile | None = None) -> None:
        self.profile = profile
        camera = None if profile is None else profile.camera
        self.undistorter = None if camera is None else Undistorter(camera)
        self.table = None if profile is None else profile.table
        if self.table is not None and self.table.undistorted and camera is None:
            raise ProfileError(
                "its table part was measured on undistorted photos but it holds no camera part "
                "(write one with hubcam calibrate camera --out)"
            )

    @property
    def seats(self) -> Mapping[str, Any] | None:
        return None if self.profile is None else self.profile.seats

    def photo(self, image_bgr: np.ndarray) -> np.ndarray:
        """The photo undistorted (as it is without a camera part); a ProfileError where it is not that
        camera's shape."""
        return image_bgr if self.undistorter is None else self.undistorter(image_bgr)

    def plane(self, size: tuple[int, int]) -> np.ndarray | None:
        """The table part's plane for photos of ``size`` (width, height); None without one. A ProfileError
        where the photo is not that camera's shape."""
        return None if self.table is None else plane_at(self.table, size)
