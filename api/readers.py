"""The vision readers the service runs, loaded on first use (not at import, not at start: the games
routes never need them) and used one photo at a time per process, which bounds memory (about 550 MB
at the peak of one table photo); more workers read more photos at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from calibration.apply import AtTheTable, plane_at
from calibration.profile import CameraPart, ProfileError, TablePart
from vision.photo import PhotoError, decode_photo
from vision.table_analysis import Seats, TableAnalysis


class Readers:
    def __init__(self, profile: Path | None = None) -> None:
        """``profile``: a calibration profile whose table part and seats part table photos are read with
        (``Settings.profile``)."""
        from calibration.profile import read_profile

        self._lock = threading.Lock()
        self._scorers: dict[int | None, Any] = {}
        self._tables: dict[tuple[int | None, bool], Any] = {}
        self.at_table = AtTheTable(None if profile is None else read_profile(profile))

    @property
    def seats(self) -> Seats | None:
        """The profile's seat map: for a table whose request sends none."""
        return None if self.at_table.seats is None else Seats.from_json(self.at_table.seats)

    def score(self, data: bytes, name: str, highest: int | None = None) -> dict[str, Any]:
        """``hubcam score --json`` for one photo's bytes (``--set highest``); raises PhotoError for a bad
        photo."""
        image, decode_ms = _decoded(data, name)
        with self._lock:
            if highest not in self._scorers:
                from vision.pipeline import HandScorer

                self._scorers[highest] = HandScorer(highest=highest)
            seen = self._scorers[highest](image).with_decode(decode_ms)
        result: dict[str, Any] = seen.to_json(name, timings=True)
        return result

    def analyze(
        self, data: bytes, name: str, seats: Seats | None = None, table: TablePart | None = None
    ) -> TableAnalysis:
        """What ``hubcam analyze`` says of one photo's bytes (owners from ``seats``, else the profile's; read
        again square-on by ``table``'s plane, else the profile's); raises PhotoError for a bad photo, or one
        the plane was not measured for."""
        image, decode_ms = _decoded(data, name)
        size = (image.shape[1], image.shape[0])
        try:
            plane = self.at_table.plane(size) if table is None else plane_at(table, size)
        except ProfileError as error:
            whose = "the service's calibration profile" if table is None else "the table's plane sent"
            raise PhotoError(f"{whose}: {error}") from None
        with self._lock:
            seen = self._table(None).read(image, plane).with_decode(decode_ms)
        return TableAnalysis.of(seen, name, seats or self.seats, timings=True)

    def seats_from(self, data: bytes, name: str, players: int, first_deg: float) -> dict[str, Any]:
        """The seat map from one photo of the hub with each player's marker by their slot (``hubcam calibrate
        seats PHOTO``'s); raises PhotoError for a bad photo, SeatsError where the markers make no map."""
        from calibration.seats import seats_from_photo

        image, _ = _decoded(data, name)
        with self._lock:
            hub, markers = self._table(None)(image).hub_and_markers()
        return seats_from_photo(image, hub, markers, players, first_deg)

    def camera_from(self, photos: list[tuple[str, bytes]]) -> dict[str, Any]:
        """The camera's lens from photos of the printed board (``hubcam calibrate camera PHOTO... --json``'s
        answer): a photo that cannot be read or shows no board is left out, named with the reason; a
        CalibrationError (a ValueError) where the rest give no camera. Searched one at a time, outside
        the readers' lock (no model is used)."""
        from calibration.camera import BoardPhotos

        board = BoardPhotos()
        for name, data in photos:
            try:
                image, _ = _decoded(data, name)
            except PhotoError as error:
                board.skip(name, str(error))
                continue
            board.add(name, image)
        calibration, used = board.fitted()
        return {**CameraPart.of(calibration).to_json(), "photos_used": used, "photos_skipped": board.skipped}

    def table_from(
        self,
        data: bytes,
        name: str,
        tile_mm: float,
        span_mm: tuple[float, float] | None = None,
        camera: CameraPart | None = None,
    ) -> dict[str, Any]:
        """The table's plane from one photo (``hubcam calibrate table PHOTO --json``'s answer), by the four
        table markers, else the hub and engine, through ``camera`` (else the profile's) where there is one;
        raises PhotoError for a bad photo, TableError (a ValueError) for one that is not that camera's or where
        neither markers nor hub make a plane."""
        from calibration.table import camera_fits, table_from_photo
        from vision.square_on_view import hub_seen

        image, _ = _decoded(data, name)
        if camera is None and self.at_table.profile is not None:
            camera = self.at_table.profile.camera
        camera_fits(camera, (image.shape[1], image.shape[0]))
        with self._lock:
            hub = hub_seen(self._table(None)(image))
        part, fit_px = table_from_photo(image, hub, tile_mm, camera, span_mm)
        return part.to_json() | {"marker_fit_px": fit_px, "camera": "profile" if camera else "assumed"}

    def watch_reader(self, highest: int) -> Callable[[np.ndarray], Any]:
        """The live watcher's table reader for a double-``highest`` set (``hubcam watch``'s): one per set,
        shared by every game watched, run one frame at a time under the same lock as the photos."""

        def read(image: np.ndarray) -> Any:
            with self._lock:
                return self._table(highest, watching=True)(image)

        return read

    def _table(self, highest: int | None, watching: bool = False) -> Any:
        """The table reader for a double-``highest`` set (None: judged from the photo), made on first use;
        ``watching``: the watcher's, counting pips with the watch counter (``models.WATCH_COUNTER``).
        Called under the lock."""
        if (highest, watching) not in self._tables:
            from models import WATCH_COUNTER
            from vision.table_reader import TableReader

            models = {"counter": WATCH_COUNTER} if watching else {}
            self._tables[highest, watching] = TableReader(highest=highest, **models)
        return self._tables[highest, watching]


def _decoded(data: bytes, name: str) -> tuple[np.ndarray, float]:
    """The photo decoded, and the milliseconds that took (the timings' first stage)."""
    start = time.perf_counter()
    image = decode_photo(data, name)
    return image, (time.perf_counter() - start) * 1000
