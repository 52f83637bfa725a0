"""A table's rules: every variant of RULES.md 6 as one frozen value.

>>> rules = Rules.from_dict({"players": 4, "first_turn": "chain"})
>>> rules.first_turn, rules.dealt_per_player
('chain', 15)
>>> Rules.from_dict({"players": 4, "doubel_follow_up": "cover"})
Traceback (most recent call last):
...
engine.errors.RulesError: unknown rule: 'doubel_follow_up' (did you mean 'double_follow_up'?)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from engine.errors import HandSizeRequired, RulesError
from engine.hints import nearest_or_all
from engine.tiles import domino_set

# RULES.md 6: each variant's allowed values, default first.
VARIANTS: dict[str, tuple[Any, ...]] = {
    "set": (12, 6, 9, 15, 18),
    "double_follow_up": ("cover", "anywhere"),
    "first_turn": ("single", "chain"),
    "marker_removal": ("own_train", "any_play"),
    "double_blank_points": (0, 25, 50),
    "mexican_from_second_turn": (False, True),
}

VARIANT_HELP: dict[str, str] = {
    "set": "the set's highest double",
    "hand_size": "tiles dealt per player (default: RULES.md 1's table)",
    "double_follow_up": "anywhere: after a double, one more tile on any eligible train",
    "first_turn": "chain: a first turn plays any number of tiles on one's own train",
    "marker_removal": "any_play: a marker comes off when its owner plays anywhere",
    "double_blank_points": "what the 0-0 counts in a hand at the end",
    "mexican_from_second_turn": "true: nobody may play on the Mexican train during their first turn",
}

# RULES.md 1: (set, lowest players, highest players) -> tiles per hand.
HAND_SIZES: dict[int, tuple[tuple[int, int, int], ...]] = {
    6: (),
    9: ((2, 2, 15), (3, 3, 12), (4, 4, 10)),
    12: ((2, 4, 15), (5, 6, 12), (7, 8, 10)),
    15: ((2, 7, 15), (8, 9, 12), (10, 11, 10)),
    18: ((2, 4, 15), (5, 6, 12), (7, 8, 10), (9, 12, 9)),
}

MIN_PLAYERS, MAX_PLAYERS = 2, 12


def standard_hand_size(highest: int, players: int) -> int | None:
    """RULES.md 1's hand size, or None where the table has no row."""
    for low, high, size in HAND_SIZES[highest]:
        if low <= players <= high:
            return size
    return None


@dataclass(frozen=True)
class Rules:
    """Every rule a table can choose, validated on construction."""

    players: int
    set: int = 12
    hand_size: int | None = None
    double_follow_up: str = "cover"
    first_turn: str = "single"
    marker_removal: str = "own_train"
    double_blank_points: int = 0
    mexican_from_second_turn: bool = False

    def __post_init__(self) -> None:
        players = self.players
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesError(f"invalid players: {players!r} (expected a whole number from 2 to 12)")
        for name, allowed in VARIANTS.items():
            value = getattr(self, name)
            # type() not isinstance(): JSON true must not pass for 1, nor 1 for true.
            if not any(type(value) is type(option) and value == option for option in allowed):
                listed = ", ".join(_json_text(option) for option in allowed)
                raise RulesError(f"invalid {name}: {_json_text(value)} (expected one of {listed})")
        hand_size = self.hand_size
        if hand_size is not None and (type(hand_size) is not int or hand_size < 1):
            raise RulesError(f"invalid hand_size: {_json_text(hand_size)} (expected a whole number >= 1)")
        if hand_size is None and standard_hand_size(self.set, players) is None:
            raise HandSizeRequired(
                f"hand_size is required: RULES.md 1 has no hand size for {players} players with double-{self.set}"
            )
        available = len(domino_set(self.set)) - 1  # the engine is not dealt
        if players * self.dealt_per_player > available:
            raise RulesError(
                f"deal does not fit: {players} hands of {self.dealt_per_player} need "
                f"{players * self.dealt_per_player} tiles, double-{self.set} has {available} besides the engine"
            )

    @property
    def dealt_per_player(self) -> int:
        size = self.hand_size if self.hand_size is not None else standard_hand_size(self.set, self.players)
        assert size is not None  # __post_init__ guarantees it
        return size

    @property
    def tile_count(self) -> int:
        return len(domino_set(self.set))

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Rules:
        """Build rules from a log's ``rules`` block; unknown keys get a "did you mean"."""
        if not isinstance(values, Mapping):
            raise RulesError(f"invalid rules: {_json_text(values)} (expected an object)")
        known = [f.name for f in fields(cls)]
        for key in values:
            if key not in known:
                raise RulesError(f"unknown rule: {key!r}{nearest_or_all(str(key), known, cutoff=0.5)}")
        if "players" not in values:
            raise RulesError("rules must give 'players' (a whole number from 2 to 12)")
        return cls(**values)

    @classmethod
    def preset(cls, name: str, players: int, **overrides: Any) -> Rules:
        """A named preset (see PRESETS) for ``players`` seats, with optional overrides."""
        if name not in PRESETS:
            raise RulesError(f"unknown preset: {name!r}{nearest_or_all(name, PRESETS, cutoff=0.5)}")
        return cls.from_dict({**PRESETS[name].values, "players": players, **overrides})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def non_defaults(self) -> dict[str, Any]:
        """Only the values that differ from the defaults (``players`` always)."""
        defaults = {f.name: f.default for f in fields(self) if f.name != "players"}
        return {"players": self.players} | {
            name: value for name, value in asdict(self).items() if name in defaults and value != defaults[name]
        }

    def with_players(self, players: int) -> Rules:
        return replace(self, players=players)


@dataclass(frozen=True)
class Preset:
    values: dict[str, Any]
    source: str


PRESETS: dict[str, Preset] = {
    "standard": Preset({}, "RULES.md defaults (rules text 004)"),
    "double18": Preset({"set": 18, "first_turn": "chain"}, "the double-18 rulebook (rules text 003)"),
    "anywhere": Preset(
        {"double_follow_up": "anywhere", "marker_removal": "any_play"}, "double-12 table variations (rules text 002)"
    ),
    "first_turn_off_mexican": Preset(
        {"double_follow_up": "anywhere", "mexican_from_second_turn": True}, "collected rule pages (rules text 000)"
    ),
}


def _json_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    return str(value) if isinstance(value, int) else repr(value)
