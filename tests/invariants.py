"""What must hold in every position of every round (shared by the property and soak tests)."""

from __future__ import annotations

from collections import Counter

from engine import MEXICAN, Move, RoundState, Tile, domino_set, from_notation, is_legal, judge, legal_moves, to_notation


def check_tiles_conserved(state: RoundState) -> None:
    """With hands known, every tile of the set is in exactly one place: hub, train, hand or boneyard."""
    if state.hands is None or state.boneyard is None:
        return
    places = Counter([Tile(state.engine, state.engine)])
    places.update(Tile(*pair) for train in state.trains for pair in train.tiles)
    for hand in state.hands:
        places.update(hand)
    places.update(state.boneyard)
    assert set(places) == domino_set(state.rules.set), "a tile is missing or foreign"
    doubled = [str(tile) for tile, count in places.items() if count > 1]
    assert not doubled, f"tiles in two places: {doubled}"


def check_generated_moves_are_legal(state: RoundState) -> list[Move]:
    moves = list(legal_moves(state))
    for move in moves:
        verdict = judge(state, move)
        assert verdict.legal, f"generated {move} judged {verdict.reason} in {to_notation(state)}"
    if not state.round_over:
        assert moves, f"no legal move in {to_notation(state)}"
    return moves


def check_plays_are_complete(state: RoundState, moves: list[Move]) -> None:
    """Every play the judge accepts is generated (hands known: the seat's tiles on every train)."""
    if state.hands is None or state.round_over:
        return
    seat = state.turn
    refs: list[int | str] = [*range(state.players), MEXICAN]
    accepted = {
        (tile, ref) for tile in state.hands[seat] for ref in refs if is_legal(state, Move.play(seat, tile, ref))
    }
    generated = {(move.tile, move.train) for move in moves if move.action == "play"}
    assert accepted == generated, f"judge and generator differ in {to_notation(state)}"


def check_notation_round_trips(state: RoundState) -> None:
    text = to_notation(state)
    assert from_notation(text) == state, text
    assert to_notation(from_notation(text)) == text


def check_all(state: RoundState, thorough: bool = True) -> list[Move]:
    """Every invariant; ``thorough=False`` leaves out the costly notation and completeness checks."""
    check_tiles_conserved(state)
    moves = check_generated_moves_are_legal(state)
    if thorough:
        check_notation_round_trips(state)
        check_plays_are_complete(state, moves)
    return moves
