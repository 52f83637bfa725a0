"""Settings as frozen dataclasses, changed by name: a mistyped name gets a "did you mean", not a
silent default (the hand scorer's ``ScorerConfig`` and the table stage's ``TableConfig``).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Look(Settings):
...     slant: float = 1.4
>>> Look().replace(slant=1.2)
Look(slant=1.2)
>>> Look().replace(slnat=1.2)
Traceback (most recent call last):
...
ValueError: unknown setting 'slnat' (did you mean 'slant'?)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Self

from engine.hints import nearest_or_all


class Settings:
    """A mixin for a frozen dataclass of settings: ``replace`` as ``dataclasses.replace``, but an
    unknown name is a ValueError naming the nearest known one (or all of them)."""

    def replace(self, **changes: Any) -> Self:
        known = [field.name for field in dataclasses.fields(self)]  # type: ignore[arg-type]
        for name in changes:
            if name not in known:
                raise ValueError(f"unknown setting {name!r}{nearest_or_all(name, known)}")
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]
