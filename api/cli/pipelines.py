"""The model-backed pipelines the verbs run, one builder each, so that a verb says which it runs.
A model missing or unfit is a usage error that says how to make one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from api.cli.common import UsageError

if TYPE_CHECKING:
    import numpy as np

    from vision.pipeline import HandScorer
    from vision.table_analysis import Seats
    from vision.table_reader import TableReader
    from vision.watch.watcher import Watcher

Models = Mapping[str, Path | None]
"""ONNX files in place of the bundled ones, by role (``counter``, ``peaks``, ``detector``, ``verifier``,
``refiner``); None for ``peaks``, ``verifier`` or ``refiner``: run without that stage."""


@contextmanager
def models_at_hand() -> Iterator[None]:
    """Loading models: one not found, or a refiner with no verdict of its own and no verifier, is a usage error."""
    try:
        yield
    except FileNotFoundError as error:
        raise UsageError(f"{error} (train one: hubcam train detector / pips / verifier / refiner)") from None
    except ValueError as error:  # a refiner with no verdict of its own, and no verifier given
        raise UsageError(f"{error} (--verifier ONNX, or teach it: hubcam train verdict --start-from ONNX)") from None


def hand_scorer(models: Models | None = None, highest: int | None = None) -> HandScorer:
    """``hubcam score``'s pipeline: the tiles of a hand found, verified, refined and their pips counted."""
    from vision.pipeline import HandScorer

    with models_at_hand():
        return HandScorer(highest=highest, **(models or {}))


def table_reader(
    models: Models | None = None, highest: int | None = None, plane: np.ndarray | str | None = None
) -> TableReader:
    """``hubcam analyze``'s pipeline: a hand scorer with the table's models, then the hub, engine and trains
    (``plane``: read again square-on, ``vision.table_reader.TableReader``)."""
    from vision.table_reader import TableReader

    with models_at_hand():
        return TableReader(highest=highest, plane=plane, **(models or {}))


def table_watcher(
    players: int, highest: int, seats: Seats | None, starter: int, models: Models | None = None
) -> Watcher:
    """``hubcam watch``'s pipeline: the stability gate, ``hubcam analyze``'s reader with the watch counter
    (``models.WATCH_COUNTER``, unless ``models`` names another) on each new stable frame, and the engine
    judging each play in unknown-hands mode."""
    from models import WATCH_COUNTER
    from vision.watch.watcher import Watcher

    reader = table_reader({"counter": WATCH_COUNTER, **(models or {})}, highest)
    return Watcher(reader, players=players, highest=highest, seats=seats, starter=starter)
