"""Differential fuzzing: the engine's referee against an independent one (tests/oracle.py).

Every variant combination of RULES.md 6, every set size, random seats and hand sizes;
a third of the events injected (wrong seat, tiles held, on the table, out of the set
or not tiles at all, trains that do not exist, stray draws, passes and end_turns).
Each log is judged with hands known and again with hands unknown (the camera case).
Any disagreement in a verdict or the final state is a defect in one of the two.
"""

from __future__ import annotations

import random
from collections import Counter

from engine import referee
from engine.random_logs import every_variant, random_log, random_rules, without_hands
from tests.oracle import oracle_referee

ALL_REASONS = {
    "round_over", "not_your_turn", "unknown_tile", "tile_not_in_hand", "unknown_train", "train_not_eligible",
    "must_satisfy_double", "no_match", "must_play", "must_draw", "already_drew", "boneyard_empty", "turn_not_over",
}  # fmt: skip


def compare(log, label):
    ours = referee(log)
    theirs = oracle_referee(log)
    got = [verdict["reason"] for verdict in ours["verdicts"]]
    for index, (mine, other) in enumerate(zip(got, theirs["reasons"], strict=True)):
        assert mine == other, f"{label}: event {index} {log['events'][index]}: engine {mine}, oracle {other}"
    assert ours["state"] == theirs["state"], f"{label}: final states differ"
    return got


def test_engine_and_oracle_agree_on_random_logs_of_every_variant():
    rng = random.Random(20261129)
    seen: Counter[str | None] = Counter()
    events = 0
    variants = every_variant()
    for round_number in range(3 * len(variants)):
        variant = variants[round_number % len(variants)]
        rules = random_rules(rng, variant)
        log = random_log(rng, rules, injected=rng.choice([0.1, 0.3, 0.5]))
        label = f"round {round_number} rules {rules.non_defaults()}"
        seen.update(compare(log, label + " (hands known)"))
        seen.update(compare(without_hands(log), label + " (hands unknown)"))
        events += 2 * len(log["events"])
    assert events >= 20_000, events
    missing = ALL_REASONS - set(seen)
    assert not missing, f"the fuzzer never produced {sorted(missing)}: {seen}"
