"""hubcam's calibration profile: one versioned JSON file holding what was measured at a table.

    {"version": 1, "camera": {"camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
                              "distortion": [k1, k2, p1, p2, k3], "image_size": [width, height],
                              "reprojection_error_px": 0.14}}

Each part is redone on its own: writing the camera keeps every other part the file holds (parts a
later version adds, such as the table's plane or the seats, are kept as they are). A file of another
version, or a part with a field missing, is refused with the reason, never half read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraCalibration

VERSION = 1
CAMERA_FIELDS = ("camera_matrix", "distortion", "image_size", "reprojection_error_px")


class ProfileError(ValueError):
    """A profile that cannot be read: another version, a missing or malformed field; the message says which."""


@dataclass(frozen=True)
class CameraPart:
    """The camera part: intrinsics and lens distortion, for photos of ``image_size``."""

    camera_matrix: np.ndarray
    """``(3, 3)`` pixels."""
    distortion: np.ndarray
    """``(n,)`` OpenCV's order (k1 k2 p1 p2 k3, and k4 k5 k6 where a model has them)."""
    image_size: tuple[int, int]
    """(width, height)."""
    reprojection_error_px: float

    @classmethod
    def of(cls, calibration: CameraCalibration) -> CameraPart:
        return cls(
            calibration.camera_matrix,
            calibration.distortion,
            calibration.image_size,
            calibration.reprojection_error_px,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "camera_matrix": [[float(value) for value in row] for row in self.camera_matrix],
            "distortion": [float(value) for value in self.distortion],
            "image_size": list(self.image_size),
            "reprojection_error_px": float(self.reprojection_error_px),
        }

    @classmethod
    def from_json(cls, data: object) -> CameraPart:
        if not isinstance(data, Mapping):
            raise ProfileError(f"camera: expected an object with {', '.join(CAMERA_FIELDS)}, got {data!r:.60}")
        missing = [name for name in CAMERA_FIELDS if name not in data]
        if missing:
            raise ProfileError(f"camera: missing {', '.join(missing)} (expected {', '.join(CAMERA_FIELDS)})")
        try:
            matrix = np.array(data["camera_matrix"], np.float64)
            distortion = np.array(data["distortion"], np.float64).reshape(-1)
            width, height = (int(value) for value in data["image_size"])
            error = float(data["reprojection_error_px"])
        except (TypeError, ValueError) as problem:
            raise ProfileError(f"camera: a field is not made of numbers: {problem}") from None
        if matrix.shape != (3, 3):
            raise ProfileError(f"camera: camera_matrix {data['camera_matrix']!r:.80} is not 3x3")
        if len(distortion) not in (4, 5, 8, 12, 14):
            raise ProfileError(
                f"camera: distortion has {len(distortion)} coefficients (expected OpenCV's 4, 5, 8, 12 or 14)"
            )
        if width <= 0 or height <= 0:
            raise ProfileError(f"camera: image_size {[width, height]} (expected a positive width and height)")
        return cls(matrix, distortion, (width, height), error)


@dataclass(frozen=True)
class Profile:
    camera: CameraPart | None = None
    others: Mapping[str, Any] = field(default_factory=dict)
    """Parts this version does not read yet, kept as they were written."""

    def to_json(self) -> dict[str, Any]:
        parts = dict(self.others)
        if self.camera is not None:
            parts["camera"] = self.camera.to_json()
        return {"version": VERSION, **parts}

    @classmethod
    def from_json(cls, data: object) -> Profile:
        if not isinstance(data, Mapping):
            raise ProfileError(f"expected a JSON object with a version, got {type(data).__name__}")
        if "version" not in data:
            raise ProfileError(f"missing version (expected {VERSION})")
        if data["version"] != VERSION:
            raise ProfileError(f"version {data['version']!r}: this hubcam reads profiles of version {VERSION}")
        camera = CameraPart.from_json(data["camera"]) if "camera" in data else None
        others = {name: part for name, part in data.items() if name not in ("version", "camera")}
        return cls(camera, others)


def read_profile(path: Path) -> Profile:
    """The profile in ``path``; a ProfileError names the file and what is wrong with it."""
    try:
        data = json.loads(path.read_text())
    except OSError as error:
        raise ProfileError(f"cannot read {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise ProfileError(f"{path} is not JSON: {error}") from None
    try:
        return Profile.from_json(data)
    except ProfileError as error:
        raise ProfileError(f"{path}: {error}") from None


def write_camera(path: Path, camera: CameraPart) -> Profile:
    """``path``'s profile with its camera part replaced (a new profile where there is no file yet)."""
    profile = read_profile(path) if path.exists() else Profile()
    updated = Profile(camera, profile.others)
    path.write_text(json.dumps(updated.to_json(), indent=1) + "\n")
    return updated
