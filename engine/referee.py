"""The referee protocol of RULES.md 7: read a round's log, judge every event, report.

>>> log = {"rules": {"players": 2, "set": 6, "hand_size": 7},
...        "events": [{"player": 0, "action": "play", "tile": "6-1", "train": "mexican"},
...                   {"player": 0, "action": "pass"}]}
>>> report = referee(log)
>>> [verdict["reason"] for verdict in report["verdicts"]]
[None, 'not_your_turn']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import ParseError, RulesError
from engine.hints import did_you_mean
from engine.legality import Verdict, judge
from engine.moves import ACTIONS, MEXICAN, Move, TileRef, TrainRef
from engine.rules import Rules
from engine.state import RoundState
from engine.tiles import Tile, parse_in_set
from engine.transitions import apply


class LogError(ParseError):
    """A log that cannot be read (exit 2); the message names the field."""


LOG_KEYS = ("rules", "engine", "starter", "hands", "boneyard", "events")
EVENT_KEYS = ("player", "action", "tile", "train")


@dataclass(frozen=True)
class RoundLog:
    """A parsed log: the starting position and the events as moves."""

    start: RoundState
    moves: tuple[Move, ...]


def read_log(log: Any) -> RoundLog:
    """Check a log's shape and build its starting position; raises LogError naming the field."""
    if not isinstance(log, Mapping):
        raise LogError(f"log: expected a JSON object, got {_kind(log)}")
    _reject_typos(log, LOG_KEYS, "log")
    if "rules" not in log:
        raise LogError("rules: missing (an object with at least 'players')")
    try:
        rules = Rules.from_dict(log["rules"])
    except RulesError as error:
        raise LogError(f"rules: {error}") from None
    engine = log.get("engine", rules.set)
    starter = log.get("starter", 0)
    for field, value, highest in (("engine", engine, rules.set), ("starter", starter, rules.players - 1)):
        if type(value) is not int or not 0 <= value <= highest:
            raise LogError(f"{field}: expected a whole number from 0 to {highest}, got {json.dumps(value)}")
    hands = _read_hands(log.get("hands"), rules)
    boneyard = _read_tiles(log.get("boneyard"), rules, "boneyard")
    try:
        start = RoundState.start(rules, engine, starter, hands, boneyard if hands is not None else None)
    except ParseError as error:
        raise LogError(f"hands: {error}") from None
    events = log.get("events", [])
    if not isinstance(events, list):
        raise LogError(f"events: expected a list, got {_kind(events)}")
    return RoundLog(start, tuple(_read_event(event, f"events[{index}]") for index, event in enumerate(events)))


def replay(log: RoundLog) -> tuple[list[Verdict], RoundState]:
    """Judge every event in order; an illegal event is reported and not applied (RULES.md 7)."""
    state = log.start
    verdicts = []
    for index, move in enumerate(log.moves):
        verdict = judge(state, move)
        verdicts.append(verdict)
        if not verdict.legal:
            continue
        if move.action == "draw" and move.tile is None and state.hands_known:
            raise LogError(f"events[{index}].tile: a draw must name its tile when hands are known")
        state = apply(state, move)
    return verdicts, state


def referee(log: Any) -> dict[str, Any]:
    """The referee's JSON report for a log (RULES.md 7); raises LogError for an unreadable log."""
    verdicts, state = replay(read_log(log))
    return {
        "verdicts": [
            {"event": index, "legal": verdict.legal, "reason": verdict.reason, "message": verdict.message}
            for index, verdict in enumerate(verdicts)
        ],
        "state": state_json(state),
    }


def state_json(state: RoundState) -> dict[str, Any]:
    """A round state in the shape RULES.md 7 gives."""
    return {
        "turn": state.turn,
        "engine": [state.engine, state.engine],
        "trains": [
            {
                "owner": train.owner,
                "tiles": [list(pair) for pair in train.tiles],
                "open_end": train.open_end,
                "marker": train.marker or train.owner == MEXICAN,
            }
            for train in state.trains
        ],
        "open_doubles": [[double.number, double.number] for double in state.open_doubles],
        "boneyard": None if state.boneyard is None else len(state.boneyard),
        "hands": None if state.hands is None else [len(hand) for hand in state.hands],
        "round_over": state.round_over,
        "scores": state.scores(),
    }


def moves_to_log(start: RoundState, moves: Iterable[Move], starter: int | None = None) -> dict[str, Any]:
    """A referee log for ``moves`` played from the deal ``start`` (hands known)."""
    log: dict[str, Any] = {
        "rules": start.rules.non_defaults(),
        "engine": start.engine,
        "starter": start.turn if starter is None else starter,
        "events": [move.to_event() for move in moves],
    }
    if start.hands is not None and start.boneyard is not None:
        log["hands"] = [[str(tile) for tile in sorted(hand, reverse=True)] for hand in start.hands]
        log["boneyard"] = [str(tile) for tile in sorted(start.boneyard, reverse=True)]
    return log


def _read_hands(hands: Any, rules: Rules) -> list[list[Tile]] | None:
    """Known hands, or None when not all P hands are given (RULES.md 4)."""
    if hands is None or hands == []:
        return None
    if not isinstance(hands, list) or len(hands) != rules.players:
        raise LogError(f"hands: expected a list of {rules.players} hands (lists of tiles), got {_kind(hands)}")
    read = [_read_tiles(hand, rules, f"hands[{seat}]") for seat, hand in enumerate(hands)]
    if any(hand is None for hand in read):
        return None
    return [hand for hand in read if hand is not None]


def _read_tiles(tiles: Any, rules: Rules, field: str) -> list[Tile] | None:
    if tiles is None:
        return None
    if not isinstance(tiles, list):
        raise LogError(f"{field}: expected a list of tiles like '12-5', got {_kind(tiles)}")
    read = []
    for index, text in enumerate(tiles):
        try:
            read.append(parse_in_set(text, rules.set))
        except ParseError as error:
            raise LogError(f"{field}[{index}]: {error}") from None
    return read


def _read_event(event: Any, field: str) -> Move:
    if not isinstance(event, Mapping):
        raise LogError(f"{field}: expected an object, got {_kind(event)}")
    _reject_typos(event, EVENT_KEYS, field)
    action = event.get("action")
    if action not in ACTIONS:
        got = "nothing" if action is None else json.dumps(action)
        raise LogError(f"{field}.action: expected one of {', '.join(ACTIONS)}, got {got}")
    player = event.get("player")
    if type(player) is not int:
        raise LogError(f"{field}.player: expected a seat number, got {json.dumps(player)}")
    tile, train = event.get("tile"), event.get("train")
    if action == "play" and (tile is None or train is None):
        raise LogError(f"{field}: a play needs both 'tile' and 'train'")
    if action in ("pass", "end_turn") and (tile is not None or train is not None):
        raise LogError(f"{field}: {action} takes no tile or train")
    if action == "draw" and train is not None:
        raise LogError(f"{field}.train: a draw takes no train")
    if tile is not None and not isinstance(tile, str):
        raise LogError(f"{field}.tile: expected a tile like '12-5', got {json.dumps(tile)}")
    return Move(player, action, _tile_ref(tile), _train_ref(train))


def _tile_ref(text: str | None) -> TileRef | None:
    """A tile, or the text itself when it names none: the referee judges it unknown_tile."""
    if text is None:
        return None
    try:
        return Tile.parse(text)
    except ParseError:
        return text


def _train_ref(train: Any) -> TrainRef | None:
    """A seat number or text as given; anything else as its JSON text, judged unknown_train."""
    if train is None or isinstance(train, str) or type(train) is int:
        return train
    return json.dumps(train)


def _reject_typos(values: Mapping[str, Any], known: tuple[str, ...], field: str) -> None:
    """An unknown key close to a known one is a typo that would change the meaning: refuse it.

    Keys unlike any known one (a "comment", say) are left alone.
    """
    for key in values:
        if key not in known:
            hint = did_you_mean(str(key), known, cutoff=0.7)
            if hint:
                raise LogError(f"{field}: unknown key {key!r}{hint}")


def _kind(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
