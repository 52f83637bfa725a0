"""One test per rule point of RULES.md 2-5, each on a small double-6 position (engine 6-6)."""

from __future__ import annotations

from engine import OpenDouble, Tile
from tests.positions import play, position, reason

CHAIN = "players=2,set=6,hand_size=7,first_turn=chain"
ANYWHERE = "players=2,set=6,hand_size=7,double_follow_up=anywhere"


# --- 2. Trains -----------------------------------------------------------------


def test_a_train_starts_at_the_engine_and_its_open_end_follows_the_last_tile():
    state = position(hands="6-1.2-3/6-2.4-5")
    assert reason(state, "0 play 2-3 0") == "no_match"
    after = play(state, "0 play 6-1 0")
    assert after.trains[0].tiles == ((6, 1),)
    assert after.trains[0].open_end == 1


def test_a_tile_is_laid_with_its_matching_end_inward():
    state = position(trains="6-1/-/-", hands="4-1.2-3/6-2.4-5")
    after = play(state, "0 play 4-1 0")
    assert after.trains[0].tiles == ((6, 1), (1, 4))
    assert after.trains[0].open_end == 4


def test_eligible_trains_are_ones_own_the_mexican_and_marked_ones():
    unmarked = position(trains="6-1/6-2/-", hands="2-3.6-3.1-4/4-5")
    assert reason(unmarked, "0 play 2-3 1") == "train_not_eligible"
    assert reason(unmarked, "0 play 6-3 mexican") is None
    assert reason(unmarked, "0 play 1-4 0") is None
    marked = position(trains="6-1/6-2*/-", hands="2-3.6-3.1-4/4-5")
    assert reason(marked, "0 play 2-3 1") is None


def test_the_mexican_train_reports_a_marker_and_is_open_from_the_start():
    state = position(hands="6-3.1-4/4-5")
    assert state.trains[state.mexican].marker
    assert reason(state, "0 play 6-3 mexican") is None  # RULES.md 3.6: before one's own train


# --- 3.1 One tile, and a non-double ends the turn ---------------------------------


def test_a_non_double_ends_the_turn():
    after = play(position(hands="6-1.2-3/6-2.4-5"), "0 play 6-1 0")
    assert after.turn == 1 and after.played == 0


def test_play_passes_clockwise_and_wraps():
    state = position("players=3,set=6,hand_size=5", "-/-/-/-", "6-1/6-2/6-3.0-0", turn=2)
    assert play(state, "2 play 6-3 2").turn == 0


# --- 3.2 Doubles must be covered ---------------------------------------------------


def test_a_double_keeps_the_turn_until_it_is_covered():
    state = position(trains="6-1/-/-", hands="1-1.1-3.6-5/4-5")
    after = play(state, "0 play 1-1 0")
    assert after.turn == 0
    assert after.open_doubles == (OpenDouble(1, 0),)
    assert reason(after, "0 play 6-5 mexican") == "must_satisfy_double"
    covered = play(after, "0 play 1-3 0")
    assert covered.open_doubles == () and covered.turn == 1


def test_a_double_that_cannot_be_covered_draws_then_marks_and_stays_open():
    state = position(trains="6-1/-/-", hands="1-1.4-5/2-4", boneyard="2-3.0-0")
    after = play(state, "0 play 1-1 0")
    assert reason(after, "0 pass") == "must_draw"
    drew = play(after, "0 draw 2-3")
    assert reason(drew, "0 play 2-3 mexican") == "must_satisfy_double"
    passed = play(drew, "0 pass")
    assert passed.trains[0].marker
    assert passed.open_doubles == (OpenDouble(1, 0),)
    assert passed.turn == 1


def test_a_drawn_tile_that_covers_must_be_played():
    state = position(trains="6-1/-/-", hands="1-1.4-5/2-4", boneyard="1-3.0-0")
    drew = play(state, "0 play 1-1 0", "0 draw 1-3")
    assert reason(drew, "0 pass") == "must_play"
    assert play(drew, "0 play 1-3 0").turn == 1


def test_a_drawn_double_left_uncovered_marks_the_train_without_a_second_draw():
    state = position(trains="6-1/-/-", hands="4-5/2-4", boneyard="1-1.0-0")
    drew = play(state, "0 draw 1-1", "0 play 1-1 0")
    assert drew.turn == 0
    assert reason(drew, "0 draw 0-0") == "already_drew"
    passed = play(drew, "0 pass")
    assert passed.trains[0].marker and passed.open_doubles == (OpenDouble(1, 0),)


# --- 3.3 An open double freezes the table ------------------------------------------


def test_an_open_double_must_be_covered_by_the_next_player():
    state = position(trains="6-1.1-1*/-/-", hands="4-5/1-2.6-4", open_doubles="1@0", turn=1)
    assert reason(state, "1 play 6-4 mexican") == "must_satisfy_double"
    assert reason(state, "1 draw 0-0") == "must_play"
    after = play(state, "1 play 1-2 0")
    assert after.open_doubles == () and after.turn == 0


def test_covering_overrides_every_eligibility_limit():
    # An unmarked train, a first turn under mexican_from_second_turn, a chain first turn.
    unmarked = position(trains="6-1.1-1/-/-", hands="4-5/1-2", open_doubles="1@0", turn=1)
    assert reason(unmarked, "1 play 1-2 0") is None
    rules = "players=2,set=6,hand_size=7,mexican_from_second_turn=true"
    on_mexican = position(rules, "-/-/6-1.1-1", "4-5/1-2", open_doubles="1@m", turn=1)
    assert reason(on_mexican, "1 play 1-2 mexican") is None
    in_chain = position(CHAIN, "6-1.1-1/-/-", "4-5/1-2", open_doubles="1@0", turn=1)
    assert reason(in_chain, "1 play 1-2 0") is None


def test_only_the_oldest_open_double_may_be_covered():
    state = position(trains="6-1.1-1*/6-2.2-2*/-", hands="1-3/2-3.1-4", open_doubles="1@0,2@1", turn=1)
    assert reason(state, "1 play 2-3 1") == "must_satisfy_double"
    after = play(state, "1 play 1-4 0")
    assert after.open_doubles == (OpenDouble(2, 1),)
    assert reason(after, "0 play 1-3 mexican") == "must_satisfy_double"


def test_a_double_with_no_cover_left_stops_binding():
    # Every 1-tile but 1-2 is on the table; covering 2-2 with 2-1 leaves 1-1 with nothing to cover it.
    trains = "6-1.1-1*/6-2.2-2*/6-5.5-1.1-3.3-4.4-1.1-0"
    state = position(trains=trains, hands="2-1.3-3/0-0", open_doubles="2@1,1@0")
    after = play(state, "0 play 2-1 1")
    assert after.open_doubles == ()
    assert after.turn == 1


def test_the_last_double_of_its_number_is_never_open_and_ends_the_turn():
    trains = "6-3/-/6-4.4-3.3-5.5-2.2-3.3-1.1-0.0-3"
    state = position(trains=trains, hands="3-3.5-5/2-4")
    after = play(state, "0 play 3-3 0")
    assert after.open_doubles == ()
    assert after.turn == 1


# --- 3.4 Cannot play: draw once, play it or mark and pass ---------------------------


def test_a_player_who_cannot_play_draws_and_must_play_a_playable_draw():
    state = position(trains="6-1/-/-", hands="2-3/4-5", boneyard="1-4.0-0")
    assert reason(state, "0 pass") == "must_draw"
    drew = play(state, "0 draw 1-4")
    assert reason(drew, "0 pass") == "must_play"
    assert reason(drew, "0 draw 0-0") == "must_play"  # must_play comes before already_drew
    assert play(drew, "0 play 1-4 0").turn == 1


def test_an_unplayable_draw_marks_the_train_and_passes():
    state = position(trains="6-1/-/-", hands="2-3/4-5", boneyard="2-4.0-0")
    passed = play(state, "0 draw 0-0", "0 pass")
    assert passed.trains[0].marker and passed.turn == 1
    assert passed.hands is not None and Tile(0, 0) in passed.hands[0]
    assert Tile(0, 0) not in (passed.boneyard or ())


def test_with_an_empty_boneyard_a_player_passes_without_drawing():
    state = position(trains=BLOCKED_TRAINS, hands=BLOCKED_HANDS)
    assert state.boneyard == frozenset()
    assert reason(state, "0 draw") == "boneyard_empty"
    assert reason(state, "0 draw 0-0") == "unknown_tile"  # seat 0 holds it: nothing can be drawn
    assert reason(state, "0 pass") is None


def test_a_player_holding_a_play_may_neither_draw_nor_pass():
    state = position(trains="6-1/-/-", hands="1-3/4-5")
    assert reason(state, "0 draw 0-0") == "must_play"
    assert reason(state, "0 pass") == "must_play"


# --- 3.5 Markers ----------------------------------------------------------------------


def test_a_marker_comes_off_only_when_its_owner_plays_on_their_own_train():
    state = position(trains="6-1*/6-2*/-", hands="6-3.1-4/2-5.4-5")
    on_mexican = play(state, "0 play 6-3 mexican")
    assert on_mexican.trains[0].marker
    on_own = play(state, "0 play 1-4 0")
    assert not on_own.trains[0].marker


def test_another_player_on_a_marked_train_leaves_the_marker():
    state = position(trains="6-1*/6-2/-", hands="6-3/1-4.4-5", turn=1)
    assert play(state, "1 play 1-4 0").trains[0].marker


def test_any_play_removes_the_marker_wherever_the_owner_plays():
    rules = "players=2,set=6,hand_size=7,marker_removal=any_play"
    state = position(rules, "6-1*/6-2*/-", "6-3.1-4/2-5.4-5")
    assert not play(state, "0 play 6-3 mexican").trains[0].marker


# --- 3.7 Going out, 3.8 blocked rounds ----------------------------------------------------


def test_playing_the_last_tile_ends_the_round_and_scores_the_hands():
    state = position(trains="6-1/-/-", hands="1-2/4-5.0-0")
    over = play(state, "0 play 1-2 0")
    assert over.round_over and over.turn == 0
    assert over.scores() == [0, 9]
    assert reason(over, "1 play 4-5 mexican") == "round_over"


def test_going_out_on_a_double_ends_the_round_and_leaves_it_open():
    over = play(position(trains="6-1/-/-", hands="1-1/4-5"), "0 play 1-1 0")
    assert over.round_over and over.turn == 0
    assert over.open_doubles == (OpenDouble(1, 0),)


# Every tile with a 6 is on the table and every train ends in 6: nobody can play.
BLOCKED_TRAINS = "6-0.0-1.1-6/6-2.2-3.3-6/6-4.4-5.5-6"
BLOCKED_HANDS = "0-0.1-1.2-2.0-2.0-3.0-4.0-5.1-2.1-3/3-3.4-4.5-5.1-4.1-5.2-4.2-5.3-4.3-5"


def test_passes_in_a_row_with_an_empty_boneyard_block_the_round():
    state = position(trains=BLOCKED_TRAINS, hands=BLOCKED_HANDS)
    one = play(state, "0 pass")
    assert not one.round_over and one.passes == 1
    two = play(one, "1 pass")
    assert two.round_over and two.turn == 1
    assert two.scores() == [27, 63]


def test_a_play_resets_the_block_count():
    trains = "6-0.0-1.1-6/6-2.2-3.3-6/6-4.4-5"  # the Mexican train ends in 5
    state = position(trains=trains, hands="5-6." + BLOCKED_HANDS, flags="passes=1")
    after = play(state, "0 play 5-6 mexican")
    assert after.passes == 0 and not after.round_over


# --- 4. Precise points ------------------------------------------------------------------


def test_unknown_hands_never_end_the_round():
    state = position(trains="6-1/-/-", hands=None)
    after = play(state, "0 play 1-2 0", "1 pass", "0 pass", "1 pass")
    assert not after.round_over and after.scores() is None


def test_unknown_hands_skip_checks_that_need_a_hand():
    state = position(trains="6-1/-/-", hands=None)
    assert reason(state, "0 play 3-4 mexican") == "no_match"  # still judged from the table
    assert reason(state, "0 pass") is None  # no must_draw or must_play
    assert reason(state, "0 draw") is None
    assert reason(play(state, "0 draw"), "0 draw") == "already_drew"


# --- 5. Scoring ---------------------------------------------------------------------------


def test_the_double_blank_counts_double_blank_points():
    rules = "players=2,set=6,hand_size=7,double_blank_points=50"
    over = play(position(rules, "6-1/-/-", "1-2/0-0.4-5"), "0 play 1-2 0")
    assert over.scores() == [0, 59]


# --- 6. Variants --------------------------------------------------------------------------


def test_anywhere_lets_the_follow_up_go_to_any_eligible_train():
    state = position(ANYWHERE, "6-1/6-2*/6-5", "1-1.5-4.0-0/3-3")
    doubled = play(state, "0 play 1-1 0")
    after = play(doubled, "0 play 5-4 mexican")
    assert after.turn == 1
    assert after.open_doubles == (OpenDouble(1, 0),)  # binds from the next turn on
    assert reason(after, "1 play 3-3 1") == "must_satisfy_double"


def test_anywhere_a_double_follow_up_calls_for_one_more_tile_and_doubles_bind_in_order():
    state = position(ANYWHERE, "6-1/6-2*/6-5", "1-1.5-5.2-3.0-0/1-4.5-3")
    after = play(state, "0 play 1-1 0", "0 play 5-5 mexican")
    assert after.turn == 0
    assert reason(after, "0 end_turn") == "turn_not_over"  # own doubles do not bind under anywhere
    done = play(after, "0 play 2-3 1")
    assert done.turn == 1
    assert done.open_doubles == (OpenDouble(1, 0), OpenDouble(5, 2))
    assert reason(done, "1 play 5-3 mexican") == "must_satisfy_double"
    covered = play(done, "1 play 1-4 0")
    assert covered.open_doubles == (OpenDouble(5, 2),)


def test_chain_first_turn_plays_many_tiles_on_ones_own_train():
    state = position(CHAIN, "-/-/-", "6-1.1-2.2-3.6-4/6-5.5-4")
    after = play(state, "0 play 6-1 0", "0 play 1-2 0")
    assert after.turn == 0 and after.played == 2
    assert reason(after, "0 play 6-4 mexican") == "train_not_eligible"
    ended = play(after, "0 end_turn")
    assert ended.turn == 1 and ended.first_turns_done == frozenset({0})


def test_chain_end_turn_needs_a_tile_and_only_ends_a_chain_turn():
    state = position(CHAIN, "-/-/-", "6-1.1-2/6-5.5-4")
    assert reason(state, "0 end_turn") == "turn_not_over"
    second = position(CHAIN, "6-1/6-5/-", "1-2.0-0/5-4", flags="done=0.1")
    assert reason(second, "0 end_turn") == "turn_not_over"
    assert play(second, "0 play 1-2 0").turn == 1  # from the second turn on, default play


def test_chain_doubles_must_be_covered_before_end_turn():
    rules = CHAIN + ",double_follow_up=anywhere"
    state = position(rules, "-/-/-", "6-1.1-1.1-2.0-0/6-5")
    doubled = play(state, "0 play 6-1 0", "0 play 1-1 0")
    assert reason(doubled, "0 end_turn") == "must_satisfy_double"
    assert reason(play(doubled, "0 play 1-2 0"), "0 end_turn") is None


def test_chain_a_player_who_could_not_start_draws_and_goes_on_chaining():
    state = position(CHAIN, "-/-/-", "2-3.4-4/6-5", boneyard="6-2.0-0")
    after = play(state, "0 draw 6-2", "0 play 6-2 0")
    assert after.turn == 0
    assert play(after, "0 play 2-3 0", "0 end_turn").turn == 1


def test_chain_pass_marks_the_passers_train():
    state = position(CHAIN, "-/-/-", "2-3/6-5", boneyard="0-0")
    passed = play(state, "0 draw 0-0", "0 pass")
    assert passed.trains[0].marker and passed.turn == 1


def test_mexican_from_second_turn_closes_the_mexican_train_in_a_first_turn():
    rules = "players=2,set=6,hand_size=7,mexican_from_second_turn=true"
    first = position(rules, "-/-/-", "6-1/6-5")
    assert reason(first, "0 play 6-1 mexican") == "train_not_eligible"
    second = position(rules, "-/-/-", "6-1/6-5", flags="done=0.1")
    assert reason(second, "0 play 6-1 mexican") is None
