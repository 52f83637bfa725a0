"""A one-line text notation for a round state, like chess's FEN.

Fields, separated by spaces::

    RULES ENGINE TRAINS OPEN HANDS BONEYARD TURN [FLAG ...]

- RULES: the non-default rules as ``key=value`` joined by commas (``players`` always).
- ENGINE: the engine double's number.
- TRAINS: seats 0..P-1 then the Mexican train, joined by ``/``; each train its tiles
  as ``inner-outer`` joined by ``.`` (``-`` when empty), ``*`` after a marked train.
- OPEN: open doubles oldest first as ``number@train`` (``m`` for the Mexican train)
  joined by ``,``; ``!`` after one played in the current turn; ``-`` for none.
- HANDS: each seat's tiles joined by ``.``, seats joined by ``/`` (``-`` for an empty
  hand); ``?`` when hands are unknown.
- BONEYARD: tiles joined by ``.``, ``-`` when empty, ``?`` when unknown.
- TURN: the seat whose turn it is.
- FLAGS, only where not the default: ``drew``, ``played=N``, ``done=S.S`` (seats whose
  first turn is over), ``passes=N`` (passes in a row with an empty boneyard), ``over``.

>>> from engine.rules import Rules
>>> from engine.state import RoundState
>>> text = to_notation(RoundState.start(Rules(players=2, set=6, hand_size=3), engine=6))
>>> text
'players=2,set=6,hand_size=3 6 -/-/- - ? ? 0'
>>> to_notation(from_notation(text)) == text
True
"""

from __future__ import annotations

from typing import Any

from engine.errors import ParseError, RulesError
from engine.moves import MEXICAN
from engine.rules import Rules
from engine.state import OpenDouble, RoundState, Train, check_every_tile_once, is_dead
from engine.tiles import Tile, parse_in_set


def to_notation(state: RoundState) -> str:
    rules = ",".join(f"{key}={_value_text(value)}" for key, value in state.rules.non_defaults().items())
    trains = "/".join(_train_text(train) for train in state.trains)
    open_doubles = ",".join(
        f"{double.number}@{_train_ref_text(state, double.train)}{'!' if double.number in state.turn_doubles else ''}"
        for double in state.open_doubles
    )
    hands = "?" if state.hands is None else "/".join(_tiles_text(hand) for hand in state.hands)
    boneyard = "?" if state.boneyard is None else _tiles_text(state.boneyard)
    fields = [rules, str(state.engine), trains, open_doubles or "-", hands, boneyard, str(state.turn)]
    if state.drew:
        fields.append("drew")
    if state.played:
        fields.append(f"played={state.played}")
    if state.first_turns_done:
        fields.append("done=" + ".".join(map(str, sorted(state.first_turns_done))))
    if state.passes:
        fields.append(f"passes={state.passes}")
    if state.round_over:
        fields.append("over")
    return " ".join(fields)


def from_notation(text: str) -> RoundState:
    """Read a state written by ``to_notation``; raises ParseError naming the bad field."""
    words = text.split()
    if len(words) < 7:
        raise ParseError(f"invalid notation: {text!r} (expected at least 7 fields, got {len(words)})")
    rules_text, engine_text, trains_text, open_text, hands_text, boneyard_text, turn_text = words[:7]
    rules = _parse_rules(rules_text)
    engine = _parse_int(engine_text, "engine", rules.set)
    trains = _parse_trains(trains_text, RoundState.start(rules, engine))
    state = RoundState(rules, engine, trains)
    open_doubles, turn_doubles = _parse_open(open_text, state)
    hands = None if hands_text == "?" else _parse_hands(hands_text, rules)
    boneyard = None if boneyard_text == "?" else _parse_tiles(boneyard_text, rules.set, "boneyard")
    if (hands is None) != (boneyard is None):
        raise ParseError("invalid notation: hands and boneyard must both be known or both be '?'")
    if hands is not None and boneyard is not None:
        places = [(f"seat {seat}'s hand", hand) for seat, hand in enumerate(hands)]
        on_table = [Tile(*pair) for train in trains for pair in train.tiles]
        check_every_tile_once(rules, engine, [*places, ("the trains", on_table), ("the boneyard", boneyard)])
    else:
        _check_once([Tile(*pair) for train in trains for pair in train.tiles] + [Tile(engine, engine)])
    flags = _parse_flags(words[7:], rules.players)
    return RoundState(
        rules,
        engine,
        trains,
        open_doubles,
        None if hands is None else tuple(frozenset(hand) for hand in hands),
        None if boneyard is None else frozenset(boneyard),
        turn=_parse_int(turn_text, "turn", rules.players - 1),
        turn_doubles=turn_doubles,
        **flags,
    )


def _value_text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _tiles_text(tiles: Any) -> str:
    return ".".join(str(tile) for tile in sorted(tiles, reverse=True)) or "-"


def _train_text(train: Train) -> str:
    body = ".".join(f"{inner}-{outer}" for inner, outer in train.tiles) or "-"
    return body + ("*" if train.marker and train.owner != MEXICAN else "")


def _train_ref_text(state: RoundState, index: int) -> str:
    return "m" if index == state.mexican else str(index)


def _parse_int(text: str, field: str, highest: int) -> int:
    if not text.isdigit() or int(text) > highest:
        raise ParseError(f"invalid {field}: {text!r} (expected a whole number from 0 to {highest})")
    return int(text)


def _parse_rules(text: str) -> Rules:
    values: dict[str, Any] = {}
    for item in text.split(","):
        key, sep, raw = item.partition("=")
        if not sep:
            raise ParseError(f"invalid rules: {item!r} (expected key=value)")
        values[key] = {"true": True, "false": False}.get(raw, int(raw) if raw.isdigit() else raw)
    try:
        return Rules.from_dict(values)
    except RulesError as error:
        raise ParseError(f"invalid rules: {error}") from None


def _parse_trains(text: str, state: RoundState) -> tuple[Train, ...]:
    parts = text.split("/")
    if len(parts) != state.players + 1:
        raise ParseError(f"invalid trains: {text!r} (expected {state.players + 1} trains joined by '/')")
    trains = []
    for train, part in zip(state.trains, parts, strict=True):
        marker = part.endswith("*")
        body = part.rstrip("*")
        for tile_text in [] if body == "-" else body.split("."):
            tile = parse_in_set(tile_text, state.rules.set)
            inner = int(tile_text.split("-")[0])
            if inner != train.open_end:
                raise ParseError(f"invalid trains: {tile_text} does not follow open end {train.open_end} in {part!r}")
            train = train.extended(tile)
        trains.append(Train(train.owner, train.tiles, train.open_end, marker or train.owner == MEXICAN))
    return tuple(trains)


def _parse_open(text: str, state: RoundState) -> tuple[tuple[OpenDouble, ...], frozenset[int]]:
    if text == "-":
        return (), frozenset()
    doubles, this_turn = [], set()
    for item in text.split(","):
        number_text, sep, train_text = item.rstrip("!").partition("@")
        train = state.mexican if train_text == "m" else int(train_text) if train_text.isdigit() else -1
        if not sep or not number_text.isdigit() or not 0 <= train <= state.mexican:
            raise ParseError(f"invalid open double: {item!r} (expected number@train, e.g. 5@2 or 5@m)")
        number = int(number_text)
        if state.trains[train].last_tile != Tile(number, number):
            raise ParseError(f"invalid open double: {item!r} (the train does not end with {number}-{number})")
        if is_dead(number, state.on_table, state.rules.set):
            raise ParseError(f"invalid open double: {item!r} (no tile is left to cover it)")
        doubles.append(OpenDouble(number, train))
        if item.endswith("!"):
            this_turn.add(number)
    return tuple(doubles), frozenset(this_turn)


def _parse_tiles(text: str, highest: int, field: str) -> list[Tile]:
    if text == "-":
        return []
    try:
        return [parse_in_set(item, highest) for item in text.split(".")]
    except ParseError as error:
        raise ParseError(f"invalid {field}: {error}") from None


def _parse_hands(text: str, rules: Rules) -> list[list[Tile]]:
    parts = text.split("/")
    if len(parts) != rules.players:
        raise ParseError(f"invalid hands: {text!r} (expected {rules.players} hands joined by '/')")
    return [_parse_tiles(part, rules.set, f"hand of seat {seat}") for seat, part in enumerate(parts)]


def _check_once(tiles: list[Tile]) -> None:
    seen: set[Tile] = set()
    for tile in tiles:
        if tile in seen:
            raise ParseError(f"invalid trains: {tile} is on the table twice")
        seen.add(tile)


def _parse_flags(words: list[str], players: int) -> dict[str, Any]:
    flags: dict[str, Any] = {}
    for word in words:
        key, _, value = word.partition("=")
        if key == "drew" and not value:
            flags["drew"] = True
        elif key == "over" and not value:
            flags["round_over"] = True
        elif key in ("played", "passes") and value.isdigit():
            flags[key] = int(value)
        elif key == "done":
            seats = value.split(".")
            if not all(seat.isdigit() and int(seat) < players for seat in seats):
                raise ParseError(f"invalid flag: {word!r} (expected done=SEAT.SEAT...)")
            flags["first_turns_done"] = frozenset(int(seat) for seat in seats)
        else:
            raise ParseError(f"invalid flag: {word!r} (expected drew, played=N, done=S.S, passes=N or over)")
    return flags
