"""A whole game: N+1 rounds with descending engines and a rotating starter (RULES.md 1, 5).

>>> from engine.rules import Rules
>>> sheet = play_game(Rules(players=3, set=6, hand_size=7), seed=1)
>>> len(sheet.rounds), [round_.engine for round_ in sheet.rounds][:3]
(7, [6, 5, 4])
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.moves import Move
from engine.players import STRATEGIES, Strategy, choose_move
from engine.rules import Rules
from engine.scoresheet import RoundScore, Scoresheet
from engine.state import RoundState
from engine.transitions import apply


@dataclass(frozen=True)
class PlayedRound:
    """One round as played: its deal, its moves, and where it ended."""

    number: int
    start: RoundState
    moves: tuple[Move, ...]
    end: RoundState


def engines(rules: Rules) -> list[int]:
    """Round r uses the double N-r as its engine: N, N-1, ..., 0."""
    return list(range(rules.set, -1, -1))


def starter_of(round_number: int, first_starter: int, players: int) -> int:
    """The starter moves one seat clockwise each round."""
    return (first_starter + round_number) % players


def play_round(start: RoundState, strategies: Sequence[Strategy], rng: random.Random, number: int = 0) -> PlayedRound:
    """Play a dealt round to its end with one strategy per seat."""
    state, moves = start, []
    while not state.round_over:
        move = choose_move(state, strategies[state.turn], rng)
        state = apply(state, move)
        moves.append(move)
    return PlayedRound(number, start, tuple(moves), state)


def play_rounds(
    rules: Rules, seed: int = 0, strategies: Sequence[str] = ("random",), first_starter: int = 0
) -> Iterator[PlayedRound]:
    """Deal and play every round of a game, one at a time, from one seed."""
    chosen = [STRATEGIES[strategies[seat % len(strategies)]] for seat in range(rules.players)]
    rng = random.Random(seed)
    for number, engine in enumerate(engines(rules)):
        start = RoundState.deal(rules, engine, starter_of(number, first_starter, rules.players), rng)
        yield play_round(start, chosen, rng, number)


def play_game(rules: Rules, seed: int = 0, strategies: Sequence[str] = ("random",)) -> Scoresheet:
    """Play a whole game and return its scoresheet."""
    return Scoresheet.from_rounds(rules, [round_score(played) for played in play_rounds(rules, seed, strategies)])


def round_score(played: PlayedRound) -> RoundScore:
    scores = played.end.scores()
    assert scores is not None, "a finished round with known hands always has scores"
    went_out = [seat for seat, hand in enumerate(played.end.hands or ()) if not hand]
    return RoundScore(
        number=played.number,
        engine=played.start.engine,
        starter=played.start.turn,
        scores=tuple(scores),
        ended="out" if went_out else "blocked",
        events=len(played.moves),
    )
