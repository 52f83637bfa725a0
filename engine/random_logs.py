"""Random referee logs: legal play mixed with injected events of every kind (for the fuzz and soak
tests and the referee benchmark)."""

from __future__ import annotations

import random
from itertools import product
from typing import Any

from engine.legality import is_legal
from engine.moves import Move
from engine.players import choose_move, random_strategy
from engine.referee import moves_to_log
from engine.rules import Rules
from engine.state import RoundState
from engine.tiles import Tile, domino_set
from engine.transitions import apply

SET_SIZES = (6, 9, 12, 15, 18)


def every_variant() -> list[dict[str, Any]]:
    """One rules block per combination of the variants of RULES.md 6 (players chosen later)."""
    combos = product(SET_SIZES, ("cover", "anywhere"), ("single", "chain"), ("own_train", "any_play"), (False, True))
    return [
        {
            "set": size,
            "double_follow_up": follow_up,
            "first_turn": first_turn,
            "marker_removal": removal,
            "mexican_from_second_turn": closed,
            "double_blank_points": (0, 25, 50)[index % 3],
        }
        for index, (size, follow_up, first_turn, removal, closed) in enumerate(combos)
    ]


def random_rules(rng: random.Random, variant: dict[str, Any]) -> Rules:
    """A table for ``variant``: a few players, with small hands now and then so rounds run long."""
    size = variant["set"]
    players = rng.randint(2, {6: 4, 9: 5, 12: 8, 15: 10, 18: 12}[size])
    values: dict[str, Any] = {**variant, "players": players}
    tiles = len(domino_set(size)) - 1
    if size == 6 or rng.random() < 0.3:
        values["hand_size"] = rng.randint(1, min(15, tiles // players))
    else:
        try:
            return Rules.from_dict(values)
        except ValueError:
            values["hand_size"] = rng.randint(1, min(15, tiles // players))
    return Rules.from_dict(values)


def random_log(rng: random.Random, rules: Rules, injected: float = 0.3, max_events: int = 400) -> dict[str, Any]:
    """A dealt round played by a random player, with illegal and odd events injected."""
    engine = rng.randint(0, rules.set)
    state = RoundState.deal(rules, engine, rng.randrange(rules.players), rng)
    start = state
    events: list[dict[str, Any]] = []
    trailing = rng.randint(0, 3)  # a few events after the round ends
    while len(events) < max_events:
        if state.round_over:
            if trailing == 0:
                break
            trailing -= 1
        if state.round_over or rng.random() < injected:
            event = odd_event(rng, state)
        else:
            event = choose_move(state, random_strategy, rng).to_event()
        events.append(event)
        move = Move(event["player"], event["action"], _tile(event.get("tile")), event.get("train"))
        if is_legal(state, move):
            state = apply(state, move)
    log = moves_to_log(start, [])
    log["events"] = events
    return log


def without_hands(log: dict[str, Any]) -> dict[str, Any]:
    """The camera's view of the same round: hands and boneyard unknown."""
    return {key: value for key, value in log.items() if key not in ("hands", "boneyard")}


def odd_event(rng: random.Random, state: RoundState) -> dict[str, Any]:
    seat = state.turn
    players = state.players
    player = seat if rng.random() < 0.8 else rng.choice([(seat + 1) % players, seat - 1, players, -1, 99])
    action = rng.choice(["play", "play", "play", "draw", "pass", "end_turn"])
    if action == "play":
        return {"player": player, "action": "play", "tile": odd_tile(rng, state), "train": odd_train(rng, state)}
    if action == "draw":
        # With hands known a legal draw must name its tile; one from an empty boneyard can never be legal.
        if state.boneyard == frozenset() and rng.random() < 0.5:
            return {"player": player, "action": "draw"}
        return {"player": player, "action": "draw", "tile": odd_tile(rng, state)}
    return {"player": player, "action": action}


def odd_tile(rng: random.Random, state: RoundState) -> str:
    highest = state.rules.set
    pools: list[list[Tile]] = [sorted(state.on_table)]
    if state.hands is not None and state.boneyard is not None:
        pools += [sorted(state.hands[state.turn])] * 3 + [sorted(hand) for hand in state.hands]
        pools.append(sorted(state.boneyard))
    else:
        pools.append(sorted(domino_set(highest) - state.on_table))
    pools = [pool for pool in pools if pool]
    roll = rng.random()
    if roll < 0.08:
        return rng.choice([f"{highest + 1}-0", f"{highest}-{highest + 3}", "x", "", "1-2-3", "-1-2", "99-1"])
    tile = rng.choice(rng.choice(pools))
    if roll < 0.5:
        return f"{tile.low}-{tile.high}"  # the other way round is the same tile
    return str(tile)


def odd_train(rng: random.Random, state: RoundState) -> Any:
    roll = rng.random()
    if roll < 0.08:
        return rng.choice([state.players, -1, "Mexican", "0", "m", 1.5, True])
    if roll < 0.35:
        return "mexican"
    return rng.randrange(state.players)


def _tile(text: Any) -> Any:
    if text is None:
        return None
    try:
        return Tile.parse(text)
    except ValueError:
        return text  # as injected: a string, number or other value the referee must refuse
