"""Simple automatic players, for ``hubcam simulate``, tests and benchmarks.

A player chooses among the legal moves; which tile a draw brings is chance, not
choice, so ``choose_move`` resolves draws with the random generator it is given.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.legality import legal_moves
from engine.moves import Move
from engine.notation import to_notation
from engine.state import RoundState

Strategy = Callable[[RoundState, list[Move], random.Random], Move]


def random_strategy(state: RoundState, plays: list[Move], rng: random.Random) -> Move:
    """Any legal play, chosen at random; in a chain first turn, stop now and then."""
    return rng.choice(plays)


def greedy_strategy(state: RoundState, plays: list[Move], rng: random.Random) -> Move:
    """Shed the most pips first; among equals prefer one's own train, then doubles."""

    def value(move: Move) -> tuple[int, bool, bool]:
        tile = move.tile
        assert tile is not None and not isinstance(tile, str)
        return (tile.pips, move.train == state.turn, tile.is_double)

    return max(plays, key=value)


STRATEGIES: dict[str, Strategy] = {"random": random_strategy, "greedy": greedy_strategy}


def choose_move(state: RoundState, strategy: Strategy, rng: random.Random) -> Move:
    """The next move for the current seat: a play if any (chosen by ``strategy``), else
    end a chain turn, draw a random tile, or pass, whichever is legal."""
    moves = list(legal_moves(state))
    plays = [move for move in moves if move.action == "play"]
    can_end = any(move.action == "end_turn" for move in moves)
    # A chain first turn may stop once a tile is down; the random player stops one time in four.
    if plays and not (can_end and strategy is random_strategy and rng.random() < 0.25):
        return strategy(state, plays, rng)
    for action in ("end_turn", "draw", "pass"):
        options = [move for move in moves if move.action == action]
        if options:
            return rng.choice(options)
    raise AssertionError(f"no legal move in {to_notation(state)}")  # the rules always leave one
