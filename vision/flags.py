"""A flag raised on a table: one of RULES.md section 8's kinds, where it lies and a message a person
reads (``vision.reconcile`` raises them; ``hubcam analyze``, the service and the page show them).

>>> flag = Flag(FlagKind.ILLEGAL_JOIN, 0, 1, (3, 4), "train 1: the 5-11 (tile 2) does not match the 4 before it (4)")
>>> flag.to_json()["kind"], flag.to_json()["tiles"]
('illegal_join', [3, 4])
>>> Flag.from_json(flag.to_json()) == flag
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class FlagKind(StrEnum):
    """RULES.md section 8's kinds of flag (the JSON's ``kind``), in the order reports list them."""

    ILLEGAL_JOIN = "illegal_join"
    UNSATISFIED_DOUBLE = "unsatisfied_double"
    DUPLICATE_TILE = "duplicate_tile"
    OUT_OF_SET = "out_of_set"
    UNREADABLE_TILE = "unreadable_tile"


@dataclass(frozen=True)
class Flag:
    kind: FlagKind
    train: int | None
    """The train it lies on (0 for the first); None off the trains."""
    index: int | None
    """Its place on that train (0 for the tile nearest the hub); None off the trains."""
    tiles: tuple[int, ...]
    """The tiles at fault, as indices into the reading's tiles."""
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "train": self.train,
            "index": self.index,
            "tiles": list(self.tiles),
            "message": self.message,
        }

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> Flag:
        """The flag ``to_json`` wrote (ValueError naming what is wrong otherwise)."""
        if not isinstance(entry, Mapping):
            raise ValueError(f"a flag must be an object with kind, train, index, tiles and message, got {entry!r}")
        missing = [key for key in ("kind", "train", "index", "tiles", "message") if key not in entry]
        if missing:
            raise ValueError(f"flag {dict(entry)!r} lacks {', '.join(missing)}")
        try:
            kind = FlagKind(entry["kind"])
        except ValueError:
            known = ", ".join(kind.value for kind in FlagKind)
            raise ValueError(f"unknown flag kind {entry['kind']!r} (expected one of {known})") from None
        try:
            return cls(
                kind,
                _place(entry["train"]),
                _place(entry["index"]),
                tuple(int(tile) for tile in entry["tiles"]),
                str(entry["message"]),
            )
        except (TypeError, ValueError):
            raise ValueError(f"flag {dict(entry)!r}: train and index must be numbers or null, tiles numbers") from None


def _place(value: Any) -> int | None:
    return None if value is None else int(value)
