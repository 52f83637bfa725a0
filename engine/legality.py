"""Judging moves: the reason codes of RULES.md 7, checked in the order written there.

Each check is a small named predicate that returns None (no objection) or the
message of its reason code; ``judge`` runs the checks an action needs, in order,
and stops at the first objection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engine.moves import Move
from engine.state import RoundState
from engine.tiles import Tile, domino_set


@dataclass(frozen=True)
class Verdict:
    legal: bool
    reason: str | None = None
    message: str = ""


LEGAL = Verdict(True)

Check = Callable[[RoundState, Move], "str | None"]


def round_over(state: RoundState, move: Move) -> str | None:
    return "the round is over" if state.round_over else None


def not_your_turn(state: RoundState, move: Move) -> str | None:
    if move.player != state.turn:
        return f"it is seat {state.turn}'s turn, not seat {move.player}'s"
    return None


def unknown_tile(state: RoundState, move: Move) -> str | None:
    tile = move.tile
    if tile is None:  # a draw that does not say what it drew
        return None
    if not isinstance(tile, Tile):
        return f"{tile!r} names no tile (expected a-b, e.g. '12-5')"
    if tile not in domino_set(state.rules.set):
        return f"{tile} is not in the double-{state.rules.set} set"
    if tile in state.on_table:
        return f"{tile} is already on the table"
    if move.action == "draw":
        holder = state.holder(tile)
        if holder is not None:
            return f"{tile} cannot be drawn: seat {holder} holds it"
    return None


def tile_not_in_hand(state: RoundState, move: Move) -> str | None:
    if state.hands is not None and move.tile not in state.hands[move.player]:
        return f"seat {move.player} does not hold {move.tile}"
    return None


def unknown_train(state: RoundState, move: Move) -> str | None:
    if state.train_index(move.train) is None:
        return f"no train {move.train!r} (expected a seat from 0 to {state.players - 1} or 'mexican')"
    return None


def train_not_eligible(state: RoundState, move: Move) -> str | None:
    train = state.train_index(move.train)
    assert train is not None
    if state.is_eligible(train):
        return None
    if state.in_chain_turn:
        return f"a chain first turn plays on one's own train only, not on {state.train_name(train)}"
    if train == state.mexican:
        return "nobody may play on the Mexican train during their first turn (mexican_from_second_turn)"
    return f"{state.train_name(train)} carries no marker"


def must_satisfy_double(state: RoundState, move: Move) -> str | None:
    if move.action == "end_turn":
        if state.own_doubles_bind:
            for double in state.open_doubles:
                if double.number in state.turn_doubles:
                    return f"the double {double.number}-{double.number} played this turn must be covered first"
        return None
    binding = state.binding_double()
    if binding is not None and state.train_index(move.train) != binding.train:
        number = binding.number
        return f"the open double {number}-{number} on {state.train_name(binding.train)} must be covered first"
    return None


def no_match(state: RoundState, move: Move) -> str | None:
    train = state.train_index(move.train)
    assert train is not None and isinstance(move.tile, Tile)
    end = state.open_end(train)
    if not move.tile.has(end):
        return f"{move.tile} does not match open end {end} of {state.train_name(train)}"
    return None


def must_play(state: RoundState, move: Move) -> str | None:
    if state.hands is not None and state.has_legal_play():
        return f"seat {state.turn} holds a tile it can play"
    return None


def must_draw(state: RoundState, move: Move) -> str | None:
    if state.boneyard and not state.drew:
        return f"seat {state.turn} must draw before passing ({len(state.boneyard)} tiles in the boneyard)"
    return None


def already_drew(state: RoundState, move: Move) -> str | None:
    return f"seat {state.turn} already drew this turn" if state.drew else None


def boneyard_empty(state: RoundState, move: Move) -> str | None:
    return "the boneyard is empty" if state.boneyard is not None and not state.boneyard else None


def turn_not_over(state: RoundState, move: Move) -> str | None:
    if not state.in_chain_turn:
        return "end_turn only ends a chain first turn"
    if state.played == 0:
        return "a chain first turn needs at least one tile before end_turn"
    return None


# RULES.md 7: the checks each action needs, in the table's order.
CHECKS: dict[str, tuple[Check, ...]] = {
    "play": (
        round_over,
        not_your_turn,
        unknown_tile,
        tile_not_in_hand,
        unknown_train,
        train_not_eligible,
        must_satisfy_double,
        no_match,
    ),
    "draw": (round_over, not_your_turn, unknown_tile, must_play, already_drew, boneyard_empty),
    "pass": (round_over, not_your_turn, must_play, must_draw),
    "end_turn": (round_over, not_your_turn, must_satisfy_double, turn_not_over),
}


def judge(state: RoundState, move: Move) -> Verdict:
    """The verdict on ``move`` in ``state``: legal, or the first reason code that applies."""
    for check in CHECKS[move.action]:
        message = check(state, move)
        if message is not None:
            return Verdict(False, check.__name__, message)
    return LEGAL


def is_legal(state: RoundState, move: Move) -> bool:
    return judge(state, move).legal


def legal_moves(state: RoundState) -> Iterator[Move]:
    """Every legal move, lazily: plays first, then draws, pass and end_turn.

    With hands known a draw is listed once per boneyard tile (the log names it);
    with hands unknown every tile not yet on the table may be played, and a draw
    names no tile.
    """
    if state.round_over:
        return
    seat = state.turn
    if state.hands is not None:
        candidates = sorted(state.hands[seat])
    else:
        candidates = sorted(domino_set(state.rules.set) - state.on_table)
    for tile in candidates:
        for train in state.play_targets(tile):
            yield Move.play(seat, tile, train if train != state.mexican else "mexican")
    if judge(state, Move.draw(seat)).legal:
        if state.boneyard is None:
            yield Move.draw(seat)
        else:
            for tile in sorted(state.boneyard):
                yield Move.draw(seat, tile)
    for move in (Move.pass_turn(seat), Move.end_turn(seat)):
        if judge(state, move).legal:
            yield move
