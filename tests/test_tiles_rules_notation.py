"""Tiles and sets (RULES.md 1), rules and presets (RULES.md 6), and the position notation."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import PRESETS, ParseError, Rules, RulesError, Tile, domino_set, from_notation, to_notation
from engine.rules import standard_hand_size
from tests.positions import play, position

# --- tiles ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "high", "low"), [("12-5", 12, 5), ("5-12", 12, 5), (" 0-0 ", 0, 0), ("18-17", 18, 17)]
)
def test_tile_parse_is_unordered(text, high, low):
    tile = Tile.parse(text)
    assert (tile.high, tile.low) == (high, low)
    assert str(tile) == f"{high}-{low}"
    assert tile == Tile(low, high) and hash(tile) == hash(Tile(low, high))


@pytest.mark.parametrize("text", ["", "12", "12-", "-5", "a-b", "1-2-3", "12_5", "-1-2", "1.5-2"])
def test_tile_parse_rejects_text_that_names_no_tile(text):
    with pytest.raises(ParseError, match="invalid tile"):
        Tile.parse(text)


def test_tile_pips_doubles_and_ends():
    assert Tile(12, 5).pips == 17 and not Tile(12, 5).is_double and Tile(3, 3).is_double
    assert Tile(12, 5).other_end(5) == 12 and Tile(3, 3).other_end(3) == 3
    with pytest.raises(ValueError):
        Tile(12, 5).other_end(4)


@pytest.mark.parametrize(("highest", "count"), [(6, 28), (9, 55), (12, 91), (15, 136), (18, 190)])
def test_set_sizes(highest, count):
    tiles = domino_set(highest)
    assert len(tiles) == count
    assert all(0 <= tile.low <= tile.high <= highest for tile in tiles)


def test_unknown_set_size_is_refused():
    with pytest.raises(ParseError, match="invalid set: 10"):
        domino_set(10)


# --- rules --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("highest", "players", "size"),
    [
        (9, 2, 15), (9, 3, 12), (9, 4, 10), (9, 5, None),
        (12, 2, 15), (12, 4, 15), (12, 5, 12), (12, 6, 12), (12, 7, 10), (12, 8, 10), (12, 9, None),
        (15, 2, 15), (15, 7, 15), (15, 8, 12), (15, 9, 12), (15, 10, 10), (15, 11, 10), (15, 12, None),
        (18, 4, 15), (18, 5, 12), (18, 6, 12), (18, 8, 10), (18, 9, 9), (18, 12, 9),
        (6, 2, None),
    ],
)  # fmt: skip
def test_hand_size_table(highest, players, size):
    assert standard_hand_size(highest, players) == size


def test_defaults():
    rules = Rules(players=4)
    assert (rules.set, rules.dealt_per_player, rules.double_follow_up, rules.first_turn) == (12, 15, "cover", "single")
    assert (rules.marker_removal, rules.double_blank_points, rules.mexican_from_second_turn) == ("own_train", 0, False)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"players": 4, "doubel_follow_up": "cover"}, "'doubel_follow_up' (did you mean 'double_follow_up'?)"),
        ({"players": 4, "colour": "red"}, "unknown rule: 'colour'"),
        ({"set": 12}, "must give 'players'"),
        ({"players": 1}, "invalid players: 1"),
        ({"players": 13}, "invalid players: 13"),
        ({"players": True}, "invalid players: True"),
        ({"players": "4"}, "invalid players: '4'"),
        ({"players": 4, "set": 10}, "invalid set: 10 (expected one of 12, 6, 9, 15, 18)"),
        ({"players": 4, "double_follow_up": "later"}, "invalid double_follow_up: 'later'"),
        ({"players": 4, "double_blank_points": 10}, "invalid double_blank_points: 10"),
        ({"players": 4, "mexican_from_second_turn": 1}, "invalid mexican_from_second_turn: 1"),
        ({"players": 4, "mexican_from_second_turn": "true"}, "invalid mexican_from_second_turn: 'true'"),
        ({"players": 4, "set": 6}, "hand_size is required"),
        ({"players": 9, "set": 12}, "hand_size is required"),
        ({"players": 4, "set": 6, "hand_size": 7}, "deal does not fit"),
        ({"players": 4, "hand_size": 0}, "invalid hand_size: 0"),
        ({"players": 4, "hand_size": 2.5}, "invalid hand_size: 2.5"),
    ],
)  # fmt: skip
def test_invalid_rules_are_refused_with_a_clear_message(values, message):
    with pytest.raises(RulesError) as error:
        Rules.from_dict(values)
    assert message in str(error.value)


def test_a_deal_that_just_fits_is_allowed():
    # double-6 has 27 tiles besides the engine: 3 hands of 9 fit, 4 hands of 7 do not.
    assert Rules(players=3, set=6, hand_size=9).dealt_per_player == 9


def test_presets_are_valid_and_found_by_name():
    for name in PRESETS:
        assert Rules.preset(name, players=4).players == 4
    assert Rules.preset("double18", players=10).set == 18
    with pytest.raises(RulesError, match="did you mean 'anywhere'"):
        Rules.preset("anywere", players=4)


# --- notation -----------------------------------------------------------------------------


def test_notation_round_trips_a_played_position():
    state = position(trains="6-1/6-2*/6-5", hands="1-1.1-3.5-4/2-4.0-0")
    state = play(state, "0 play 1-1 0")
    text = to_notation(state)
    assert "1@0!" in text and "played=1" in text
    assert from_notation(text) == state
    assert to_notation(from_notation(text)) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("players=2,set=6,hand_size=7 6 -/-/- - ?", "expected at least 7 fields"),
        ("players=2,set=6 6 -/-/- - ? ? 0", "hand_size is required"),
        ("players=2,set=6,hand_size=7 7 -/-/- - ? ? 0", "invalid engine: '7'"),
        ("players=2,set=6,hand_size=7 6 -/- - ? ? 0", "expected 3 trains"),
        ("players=2,set=6,hand_size=7 6 6-1.2-3/-/- - ? ? 0", "does not follow open end 1"),
        ("players=2,set=6,hand_size=7 6 6-1/6-1/- - ? ? 0", "on the table twice"),
        ("players=2,set=6,hand_size=7 6 6-1/-/- 1@0 ? ? 0", "does not end with 1-1"),
        ("players=2,set=6,hand_size=7 6 -/-/- - ? ? 2", "invalid turn: '2'"),
        ("players=2,set=6,hand_size=7 6 -/-/- - ? ? 0 jumped", "invalid flag: 'jumped'"),
        ("players=2,set=6,hand_size=7 6 -/-/- - 1-1/2-2 ? 0", "both be known"),
        ("players=2,set=6,hand_size=7 6 -/-/- - 1-1/2-2 3-3 0", "tiles missing"),
    ],
)
def test_bad_notation_is_refused_naming_the_field(text, message):
    with pytest.raises(ParseError) as error:
        from_notation(text)
    assert message in str(error.value)


def test_the_engine_docs_notation_example_is_a_real_position():
    readme = (Path(__file__).parent.parent / "docs" / "engine.md").read_text()
    line = next(line.strip() for line in readme.splitlines() if line.strip().startswith("players=2,set=6"))
    state = from_notation(line)
    assert to_notation(state) == line
    assert state.binding_double() is not None and state.turn == 0
