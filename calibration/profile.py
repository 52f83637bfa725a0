"""hubcam's calibration profile: one versioned JSON file holding what was measured at a table.

    {"version": 1, "camera": {"camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
                              "distortion": [k1, k2, p1, p2, k3], "image_size": [width, height],
                              "reprojection_error_px": 0.14}}

    {"table": {"image_to_table": [[...], [...], [...]], "image_size": [w, h], "undistorted": true,
               "method": "markers", "tile_mm": 50.0, "tile_px": 31.5, "tilt_deg": 32.1,
               "hub_centre_px": [x, y] or null, "hub_centre_mm": [x, y] or null},
     "seats": {"slots": {"<angle>": seat, ...}, "mexican": <angle>}}

The table part maps the photo's pixels (undistorted by the camera part first, where ``undistorted``)
to the table seen from above in mm (``calibration.table``); the seats part is the seat map ``hubcam
analyze --seats`` reads (``calibration.seats``). Each part is redone on its own: writing one keeps
every other part the file holds (parts a later version adds are kept as they are). A file of another
version, or a part with a field missing, is refused with the reason, never half read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraCalibration
from calibration.seats import SeatsError, checked_seats

VERSION = 1
CAMERA_FIELDS = ("camera_matrix", "distortion", "image_size", "reprojection_error_px")
TABLE_FIELDS = ("image_to_table", "image_size", "undistorted", "method", "tile_mm", "tile_px", "tilt_deg")
TABLE_METHODS = ("markers", "hub")


class ProfileError(ValueError):
    """A profile that cannot be read: another version, a missing or malformed field; the message says which."""


def _part_fields(part: str, data: object, fields: Sequence[str]) -> Mapping[str, Any]:
    """``data`` as a part's object holding every one of ``fields`` (ProfileError naming what is not)."""
    if not isinstance(data, Mapping):
        raise ProfileError(f"{part}: expected an object with {', '.join(fields)}, got {data!r:.60}")
    missing = [name for name in fields if name not in data]
    if missing:
        raise ProfileError(f"{part}: missing {', '.join(missing)} (expected {', '.join(fields)})")
    return data


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
        data = _part_fields("camera", data, CAMERA_FIELDS)
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
class TablePart:
    """The table part: the table's plane in one photo by the camera, as ``hubcam calibrate table`` found it."""

    image_to_table: np.ndarray
    """``(3, 3)``: pixels (undistorted where ``undistorted``) to the table seen from above, mm."""
    image_size: tuple[int, int]
    undistorted: bool
    method: str
    """"markers" or "hub"."""
    tile_mm: float
    tile_px: float
    """A tile's length in the photo at the hub (or the table's middle)."""
    tilt_deg: float
    hub_centre_px: tuple[float, float] | None = None
    hub_centre_mm: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "image_to_table": [[float(value) for value in row] for row in self.image_to_table],
            "image_size": list(self.image_size),
            "undistorted": self.undistorted,
            "method": self.method,
            "tile_mm": float(self.tile_mm),
            "tile_px": round(float(self.tile_px), 2),
            "tilt_deg": round(float(self.tilt_deg), 2),
            "hub_centre_px": None if self.hub_centre_px is None else [round(float(v), 2) for v in self.hub_centre_px],
            "hub_centre_mm": None if self.hub_centre_mm is None else [round(float(v), 2) for v in self.hub_centre_mm],
        }

    @classmethod
    def from_json(cls, data: object) -> TablePart:
        data = _part_fields("table", data, TABLE_FIELDS)
        try:
            matrix = np.array(data["image_to_table"], np.float64)
            width, height = (int(value) for value in data["image_size"])
            numbers = float(data["tile_mm"]), float(data["tile_px"]), float(data["tilt_deg"])
            hub_px, hub_mm = (
                None if data.get(name) is None else (float(data[name][0]), float(data[name][1]))
                for name in ("hub_centre_px", "hub_centre_mm")
            )
        except (TypeError, ValueError, IndexError) as problem:
            raise ProfileError(f"table: a field is not made of numbers: {problem}") from None
        if matrix.shape != (3, 3) or not np.isfinite(matrix).all() or abs(np.linalg.det(matrix)) < 1e-15:
            raise ProfileError(f"table: image_to_table {data['image_to_table']!r:.80} is not an invertible 3x3 matrix")
        if data["method"] not in TABLE_METHODS:
            raise ProfileError(f"table: method {data['method']!r} (expected {' or '.join(TABLE_METHODS)})")
        if not isinstance(data["undistorted"], bool):
            raise ProfileError(f"table: undistorted {data['undistorted']!r} (expected true or false)")
        return cls(matrix, (width, height), data["undistorted"], data["method"], *numbers, hub_px, hub_mm)


PARTS = ("camera", "table", "seats")


@dataclass(frozen=True)
class Profile:
    camera: CameraPart | None = None
    others: Mapping[str, Any] = field(default_factory=dict)
    """Parts this version does not read yet, kept as they were written."""
    table: TablePart | None = None
    seats: Mapping[str, Any] | None = None
    """The seat map, as ``hubcam analyze --seats`` reads it."""

    def to_json(self) -> dict[str, Any]:
        parts = dict(self.others)
        if self.camera is not None:
            parts["camera"] = self.camera.to_json()
        if self.table is not None:
            parts["table"] = self.table.to_json()
        if self.seats is not None:
            parts["seats"] = dict(self.seats)
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
        table = TablePart.from_json(data["table"]) if "table" in data else None
        try:
            seats = checked_seats(data["seats"]) if "seats" in data else None
        except SeatsError as error:
            raise ProfileError(f"seats: {error}") from None
        others = {name: part for name, part in data.items() if name not in ("version", *PARTS)}
        return cls(camera, others, table, seats)


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
    return _write(path, replace(profile, camera=camera))


def write_table(path: Path, table: TablePart) -> Profile:
    """``path``'s profile with its table part replaced, the others kept."""
    profile = read_profile(path) if path.exists() else Profile()
    return _write(path, replace(profile, table=table))


def write_seats(path: Path, seats: Mapping[str, Any]) -> Profile:
    """``path``'s profile with its seats part replaced, the others kept."""
    profile = read_profile(path) if path.exists() else Profile()
    try:
        checked = checked_seats(seats)
    except SeatsError as error:
        raise ProfileError(f"seats: {error}") from None
    return _write(path, replace(profile, seats=checked))


def _write(path: Path, profile: Profile) -> Profile:
    path.write_text(json.dumps(profile.to_json(), indent=1) + "\n")
    return profile
