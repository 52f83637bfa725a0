"""Applying a legal move to a round state, which returns the next state."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.errors import IllegalMoveError
from engine.legality import judge
from engine.moves import Move
from engine.state import OpenDouble, RoundState, is_dead
from engine.tiles import Tile


def apply(state: RoundState, move: Move) -> RoundState:
    """The state after ``move``; raises IllegalMoveError (with its reason code) if it is not legal."""
    verdict = judge(state, move)
    if not verdict.legal:
        assert verdict.reason is not None
        raise IllegalMoveError(verdict.reason, f"illegal move {move}: {verdict.message}")
    if move.action == "play":
        assert isinstance(move.tile, Tile)
        return _play(state, move.tile, state.train_index(move.train))  # type: ignore[arg-type]
    if move.action == "draw":
        return _draw(state, move.tile if isinstance(move.tile, Tile) else None)
    if move.action == "pass":
        return _pass(state)
    return _end_turn(state)


def _play(state: RoundState, tile: Tile, train: int) -> RoundState:
    seat = state.turn
    trains = list(state.trains)
    trains[train] = trains[train].extended(tile)
    # RULES.md 3.5 and 6 marker_removal: the owner's play takes the marker off.
    if train == seat or state.rules.marker_removal == "any_play":
        trains[seat] = replace(trains[seat], marker=False)
    on_table = state.on_table | {tile}

    # Any tile laid on a train covers the open double that ended it.
    open_doubles = [double for double in state.open_doubles if double.train != train]
    turn_doubles = state.turn_doubles
    if tile.is_double:
        open_doubles.append(OpenDouble(tile.high, train))
        turn_doubles = turn_doubles | {tile.high}
    # RULES.md 3.3: a double with no cover left outside the table is open no more.
    open_doubles = [double for double in open_doubles if not is_dead(double.number, on_table, state.rules.set)]
    turn_doubles = frozenset(double.number for double in open_doubles if double.number in turn_doubles)

    hands = state.hands
    if hands is not None:
        hands = tuple(hand - {tile} if index == seat else hand for index, hand in enumerate(hands))
    changes: dict[str, Any] = dict(
        trains=tuple(trains),
        open_doubles=tuple(open_doubles),
        hands=hands,
        turn_doubles=turn_doubles,
        played=state.played + 1,
        passes=0,
    )
    left_open = tile.high in turn_doubles and tile.is_double
    if hands is not None and not hands[seat]:
        changes["round_over"] = True  # RULES.md 3.7: going out ends the round at once
    elif not (state.in_chain_turn or left_open):
        # A chain first turn goes on, and an open double calls for another tile; else the turn ends.
        changes.update(_next_turn_changes(state))
    after = replace(state, **changes)
    after.__dict__["on_table"] = on_table  # seed the cached property rather than rebuild it
    return after


def _draw(state: RoundState, tile: Tile | None) -> RoundState:
    if state.hands is None or state.boneyard is None or tile is None:
        return replace(state, drew=True)
    seat = state.turn
    hands = tuple(hand | {tile} if index == seat else hand for index, hand in enumerate(state.hands))
    return replace(state, hands=hands, boneyard=state.boneyard - {tile}, drew=True)


def _pass(state: RoundState) -> RoundState:
    seat = state.turn
    trains = list(state.trains)
    trains[seat] = replace(trains[seat], marker=True)
    after = replace(state, trains=tuple(trains))
    # RULES.md 3.8: a pass with the boneyard empty counts toward a block.
    if state.boneyard is not None and not state.boneyard:
        after = replace(after, passes=state.passes + 1)
        if after.passes >= state.players:
            return replace(after, round_over=True)
    return _next_turn(after)


def _end_turn(state: RoundState) -> RoundState:
    return _next_turn(state)


def _next_turn(state: RoundState) -> RoundState:
    return replace(state, **_next_turn_changes(state))


def _next_turn_changes(state: RoundState) -> dict[str, Any]:
    return dict(
        turn=(state.turn + 1) % state.players,
        drew=False,
        played=0,
        turn_doubles=frozenset(),
        first_turns_done=state.first_turns_done | {state.turn},
    )
