"""Soak: 1,000 random rounds over every variant combination and set size, with the invariants
checked in every position (tests/invariants.py; the costliest in every fifth round)."""

from __future__ import annotations

import random

import pytest

from engine import RoundState, apply
from engine.players import STRATEGIES, choose_move
from engine.random_logs import every_variant, random_rules
from tests.invariants import check_all

ROUNDS = 1000


@pytest.mark.soak
def test_a_thousand_random_rounds_keep_every_invariant():
    rng = random.Random(7)
    variants = every_variant()
    endings = {"out": 0, "blocked": 0}
    positions = 0
    for number in range(ROUNDS):
        rules = random_rules(rng, variants[number % len(variants)])
        state = RoundState.deal(rules, rng.randint(0, rules.set), rng.randrange(rules.players), rng)
        strategy = STRATEGIES["greedy" if number % 2 else "random"]
        while True:
            # Notation and judge-versus-generator checks cost most: every position of every fifth round.
            check_all(state, thorough=number % 5 == 0)
            positions += 1
            if state.round_over:
                break
            state = apply(state, choose_move(state, strategy, rng))
        assert state.scores() is not None
        endings["out" if any(not hand for hand in state.hands or ()) else "blocked"] += 1
    assert endings["out"] > 0 and endings["blocked"] > 0, endings
    assert positions > 50_000, positions
