"""Every reason code of RULES.md 7, and the order in which they apply when several could."""

from __future__ import annotations

import pytest

from engine import Move
from tests.positions import play, position, reason

KNOWN = position(trains="6-1/6-2/-", hands="1-3.6-4.2-5/2-4.0-0")
"""Seat 0 to play; seat 0's train ends 1, seat 1's (unmarked) ends 2, the Mexican ends 6."""

UNKNOWN = position(trains="6-1/6-2/-")
OVER = play(position(trains="6-1/-/-", hands="1-2/4-5"), "0 play 1-2 0")
CHAIN = "players=2,set=6,hand_size=7,first_turn=chain"

CASES = [
    # (name, state, move, expected reason)
    ("round over: any event", OVER, "1 play 4-5 mexican", "round_over"),
    ("round over before not your turn", OVER, "1 pass", "round_over"),
    ("round over for the player who went out", OVER, "0 end_turn", "round_over"),
    ("another seat", KNOWN, "1 play 2-4 1", "not_your_turn"),
    ("a seat out of range", KNOWN, "7 pass", "not_your_turn"),
    ("a negative seat", KNOWN, "-1 pass", "not_your_turn"),
    ("another seat drawing", KNOWN, "1 draw", "not_your_turn"),
    ("not your turn before unknown tile", KNOWN, "1 play 9-9 mexican", "not_your_turn"),
    ("a tile out of the set", KNOWN, "0 play 7-1 0", "unknown_tile"),
    ("the engine counts as on the table", KNOWN, "0 play 6-6 mexican", "unknown_tile"),
    ("a tile already played", KNOWN, "0 play 6-1 mexican", "unknown_tile"),
    ("drawing a tile someone holds", KNOWN, "0 draw 2-4", "unknown_tile"),
    ("drawing one's own tile", KNOWN, "0 draw 1-3", "unknown_tile"),
    ("drawing a tile on the table", UNKNOWN, "0 draw 6-2", "unknown_tile"),
    ("unknown tile before tile not in hand", KNOWN, "0 play 6-2 0", "unknown_tile"),
    ("another seat's tile", KNOWN, "0 play 2-4 1", "tile_not_in_hand"),
    ("a boneyard tile", KNOWN, "0 play 1-5 0", "tile_not_in_hand"),
    ("not in hand before unknown train", KNOWN, "0 play 2-4 5", "tile_not_in_hand"),
    ("a seat out of range as train", KNOWN, "0 play 1-3 5", "unknown_train"),
    ("a misspelt Mexican train", KNOWN, "0 play 6-4 Mexican", "unknown_train"),
    ("unknown train before not eligible", UNKNOWN, "0 play 2-3 m", "unknown_train"),
    ("an unmarked train of another seat", KNOWN, "0 play 2-5 1", "train_not_eligible"),
    ("not eligible before no match", KNOWN, "0 play 1-3 1", "train_not_eligible"),
    ("unknown hands judge eligibility too", UNKNOWN, "0 play 2-3 1", "train_not_eligible"),
    ("no match on one's own train", KNOWN, "0 play 2-5 0", "no_match"),
    ("no match on the Mexican train", KNOWN, "0 play 1-3 mexican", "no_match"),
    ("drawing while holding a play", KNOWN, "0 draw 1-5", "must_play"),
    ("passing while holding a play", KNOWN, "0 pass", "must_play"),
    ("end_turn outside a chain first turn", KNOWN, "0 end_turn", "turn_not_over"),
]


@pytest.mark.parametrize(("name", "state", "move", "expected"), CASES, ids=[case[0] for case in CASES])
def test_reason_code(name, state, move, expected):
    assert reason(state, move) == expected


def test_legal_moves_in_the_base_position():
    assert reason(KNOWN, "0 play 1-3 0") is None
    assert reason(KNOWN, "0 play 6-4 mexican") is None


def test_must_satisfy_double_for_a_double_left_by_an_earlier_turn():
    state = position(trains="6-1.1-1*/6-2/-", hands="4-5/1-2.6-4", open_doubles="1@0", turn=1)
    assert reason(state, "1 play 6-4 mexican") == "must_satisfy_double"
    # must_satisfy_double comes before no_match: the train is wrong before the tile is.
    assert reason(state, "1 play 6-4 1") == "must_satisfy_double"
    assert reason(state, "1 play 6-4 0") == "no_match"


def test_must_satisfy_double_for_ones_own_double_under_cover():
    doubled = play(position(trains="6-1/-/-", hands="1-1.1-3.6-5/4-5"), "0 play 1-1 0")
    assert reason(doubled, "0 play 6-5 mexican") == "must_satisfy_double"
    assert reason(doubled, "0 end_turn") == "must_satisfy_double"  # before turn_not_over


def test_must_draw_then_already_drew_then_must_play():
    state = position(trains="6-1/-/-", hands="2-3/4-5", boneyard="1-4.0-0")
    assert reason(state, "0 pass") == "must_draw"
    drew = play(state, "0 draw 0-0")
    assert reason(drew, "0 draw 1-4") == "already_drew"
    assert reason(drew, "0 pass") is None
    playable = play(state, "0 draw 1-4")
    assert reason(playable, "0 pass") == "must_play"  # a pass after drawing a playable tile


def test_boneyard_empty():
    state = position(trains="6-0.0-1.1-6/6-2.2-3.3-6/6-4.4-5.5-6", hands="0-0.1-1.2-2/3-3")
    # Tiles not named in the hands went to the boneyard; empty it by naming it explicitly.
    assert reason(state, "0 draw") is None
    empty = position(
        trains="6-0.0-1.1-6/6-2.2-3.3-6/6-4.4-5.5-6",
        hands="0-0.1-1.2-2.0-2.0-3.0-4.0-5.1-2.1-3/3-3.4-4.5-5.1-4.1-5.2-4.2-5.3-4.3-5",
    )
    assert reason(empty, "0 draw") == "boneyard_empty"


def test_train_not_eligible_in_a_chain_first_turn_and_mexican_from_second_turn():
    chain = position(CHAIN, "-/-*/-", "6-1.6-2/6-5")
    assert reason(chain, "0 play 6-1 mexican") == "train_not_eligible"
    assert reason(chain, "0 play 6-1 1") == "train_not_eligible"  # even a marked train
    closed = position("players=2,set=6,hand_size=7,mexican_from_second_turn=true", "-/-/-", "6-1/6-5")
    assert reason(closed, "0 play 6-1 mexican") == "train_not_eligible"


def test_turn_not_over_before_a_chain_turn_has_a_tile():
    assert reason(position(CHAIN, "-/-/-", "6-1/6-5"), "0 end_turn") == "turn_not_over"


def test_unknown_hands_skip_hand_checks_but_not_table_checks():
    assert reason(UNKNOWN, "0 play 1-5 0") is None  # anyone may hold 1-5
    assert reason(UNKNOWN, "0 pass") is None
    assert reason(UNKNOWN, "0 draw") is None
    assert reason(UNKNOWN, "0 draw 5-5") is None


def test_an_illegal_move_raises_with_its_reason_when_applied():
    from engine import IllegalMoveError, apply

    with pytest.raises(IllegalMoveError) as error:
        apply(KNOWN, Move.parse("0 play 2-5 0"))
    assert error.value.reason == "no_match"
    assert "5-2 does not match open end 1 of seat 0's train" in str(error.value)
