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

from calibration.profile import ProfileError
from vision.photo import PhotoError, decode_photo
from vision.table_analysis import Seats, TableAnalysis


class Readers:
    def __init__(self, profile: Path | None = None) -> None:
        """``profile``: a calibration profile whose table part and seats part table photos are read with
        (``Settings.profile``)."""
        from calibration.apply import AtTheTable
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

    def analyze(self, data: bytes, name: str, seats: Seats | None = None) -> TableAnalysis:
        """What ``hubcam analyze`` says of one photo's bytes (owners from ``seats``, else the profile's);
        raises PhotoError for a bad photo."""
        image, decode_ms = _decoded(data, name)
        try:
            plane = self.at_table.plane((image.shape[1], image.shape[0]))
        except ProfileError as error:
            raise PhotoError(f"the service's calibration profile: {error}") from None
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
