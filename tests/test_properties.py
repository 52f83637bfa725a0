"""Hypothesis properties of the engine (STYLE.md: tiles conserved, generated moves legal,
notation round-trips, replaying a log twice gives the same verdicts)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Move, RoundState, Rules, apply, referee
from engine.players import STRATEGIES, choose_move
from engine.random_logs import every_variant, random_log, random_rules, without_hands
from engine.referee import moves_to_log, state_json
from tests.invariants import check_all


@st.composite
def tables(draw: st.DrawFn) -> tuple[Rules, int]:
    variant = draw(st.sampled_from(every_variant()))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_rules(random.Random(seed), variant), seed


def played_round(rules: Rules, seed: int, strategy: str = "random") -> tuple[RoundState, list[RoundState], list[Move]]:
    rng = random.Random(seed)
    start = RoundState.deal(rules, rng.randint(0, rules.set), rng.randrange(rules.players), rng)
    states, moves = [start], []
    while not states[-1].round_over:
        move = choose_move(states[-1], STRATEGIES[strategy], rng)
        moves.append(move)
        states.append(apply(states[-1], move))
    return start, states, moves


@settings(max_examples=40, deadline=None)
@given(tables(), st.sampled_from(["random", "greedy"]))
def test_invariants_hold_in_every_position(table, strategy):
    rules, seed = table
    _, states, _ = played_round(rules, seed, strategy)
    for state in states:
        check_all(state)


@settings(max_examples=40, deadline=None)
@given(tables())
def test_the_referee_accepts_every_generated_move_and_reaches_the_same_state(table):
    rules, seed = table
    start, states, moves = played_round(rules, seed)
    log = moves_to_log(start, moves)
    report = referee(log)
    assert all(verdict["legal"] for verdict in report["verdicts"])
    assert report["state"] == state_json(states[-1])
    assert report["state"]["round_over"] and report["state"]["scores"] is not None


@settings(max_examples=40, deadline=None)
@given(tables())
def test_the_camera_view_of_a_legal_round_is_legal_and_builds_the_same_trains(table):
    rules, seed = table
    start, states, moves = played_round(rules, seed)
    report = referee(without_hands(moves_to_log(start, moves)))
    assert all(verdict["legal"] for verdict in report["verdicts"])
    assert report["state"]["trains"] == state_json(states[-1])["trains"]
    assert report["state"]["round_over"] is False and report["state"]["scores"] is None


@settings(max_examples=40, deadline=None)
@given(tables(), st.floats(0.0, 0.6))
def test_replaying_a_log_twice_gives_the_same_verdicts(table, injected):
    rules, seed = table
    log = random_log(random.Random(seed), rules, injected=injected, max_events=150)
    assert referee(log) == referee(log)
    assert referee(without_hands(log)) == referee(without_hands(log))


@settings(max_examples=40, deadline=None)
@given(tables(), st.floats(0.1, 0.6))
def test_an_illegal_event_leaves_the_state_unchanged(table, injected):
    rules, seed = table
    log = random_log(random.Random(seed), rules, injected=injected, max_events=60)
    before = referee(dict(log, events=[]))["state"]
    for index in range(len(log["events"])):
        report = referee(dict(log, events=log["events"][: index + 1]))
        if not report["verdicts"][-1]["legal"]:
            assert report["state"] == before, f"illegal event {index} changed the state"
        before = report["state"]
