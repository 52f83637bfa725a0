"""A round played for a rendered video: the engine's automatic players with known hands, some
injected illegal plays and doubles left open, each tile judged as a camera would have it judged
(RULES.md 7, unknown hands).

Only what a hand does on the table becomes a ``TableStep``: a tile laid (legal or not) or a marker
put down by a seat that passes. Draws and the other passes change nothing in view. An illegal play
is not applied to the round (RULES.md 7) but its tile stays on the table, so nothing more is laid
on that train; the round stops when the only plays left would be there.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from engine import MEXICAN, Move, RoundState, Rules, Tile, apply, judge, legal_moves
from engine.players import STRATEGIES, choose_move

ILLEGAL_SHARE = 0.12
"""Turns that open with an illegal play (before the seat's real move) ..."""
ILLEGAL_AFTER, MOST_ILLEGAL = 4, 3
"""... once this many tiles are down, at most this many a round (each blocks a train)."""
OPEN_DOUBLE_SHARE = 0.6
"""Turns that may leave a double open (the seat holds a double and nothing to cover it) that do."""


@dataclass(frozen=True)
class TableStep:
    """One thing a hand does on the table, in order."""

    kind: str
    """'play' (a tile laid) or 'marker' (a seat that passed puts its marker down)."""
    player: int
    train: int | str
    """A seat number or 'mexican'."""
    inner: int = 0
    outer: int = 0
    """The tile's end touching the train, and its open end (plays only)."""
    legal: bool = True
    reason: str | None = None
    message: str = ""
    takes_marker: bool = False
    """The play takes its train's marker off (its owner played on it)."""
    flags: tuple[dict[str, object], ...] = ()
    """Flags whose moment came before this step (a turn that left a double open has ended)."""


@dataclass(frozen=True)
class PlayedVideoRound:
    players: int
    engine: int
    starter: int
    strategies: tuple[str, ...]
    steps: tuple[TableStep, ...]
    moves: tuple[Move, ...]
    """Every move the engine applied (draws and passes included), in order."""
    pending_flags: tuple[dict[str, object], ...]
    """Flags whose moment came after the last step (seen by nobody: the video stops first)."""


def train_ref(state: RoundState, index: int) -> int | str:
    return MEXICAN if index == state.mexican else index


def play_video_round(
    rng: random.Random, players: int, highest: int = 12, max_plays: int = 20, strategy: str | None = None
) -> PlayedVideoRound:
    """Deal and play one round until ``max_plays`` tiles (legal or not) are down, or it ends."""
    rules = Rules(players=players, set=highest)
    engine = highest - rng.randint(0, min(highest, 3))
    starter = rng.randrange(players)
    names = tuple(strategy or rng.choice(sorted(STRATEGIES)) for _ in range(players))
    known = RoundState.deal(rules, engine, starter, rng)
    seen = RoundState.start(rules, engine, starter)  # what the camera's referee knows: no hands
    steps: list[TableStep] = []
    moves: list[Move] = []
    spoiled: set[int] = set()
    flags: list[dict[str, object]] = []
    played_turn_start = True
    plays = 0
    while not known.round_over and plays < max_plays:
        seat = known.turn
        may_inject = plays >= ILLEGAL_AFTER and len(spoiled) < MOST_ILLEGAL
        if may_inject and played_turn_start and known.played == 0 and not known.drew and rng.random() < ILLEGAL_SHARE:
            injected = _illegal_play(known, seen, rng, spoiled)
            if injected is not None:
                tile_move, inner, outer = injected
                verdict = judge(seen, tile_move)
                assert not verdict.legal, f"injected play {tile_move} is legal"
                index = seen.train_index(tile_move.train)
                assert index is not None and known.hands is not None and isinstance(tile_move.tile, Tile)
                hands = tuple(hand - {tile_move.tile} if s == seat else hand for s, hand in enumerate(known.hands))
                known = dataclasses.replace(known, hands=hands)  # the tile left the hand for the table
                spoiled.add(index)
                step = TableStep(
                    "play", seat, train_ref(seen, index), inner, outer, False, verdict.reason, verdict.message
                )
                steps.append(dataclasses.replace(step, flags=tuple(flags)))
                flags = []
                plays += 1
                continue
        played_turn_start = False
        move = _next_move(known, names[seat], rng, spoiled)
        if move is None:
            break  # the only plays left go on a train an illegal tile blocks
        verdict = judge(seen, _unseen(move))
        assert verdict.legal, f"{move} legal with hands known but not without: {verdict}"
        before = seen
        known, seen = apply(known, move), apply(seen, _unseen(move))
        moves.append(move)
        ended = seen.turn != before.turn or seen.round_over
        left_open = _left_open(before, seen) if ended else []
        if move.action == "play":
            assert isinstance(move.tile, Tile)
            index = before.train_index(move.train)
            assert index is not None
            inner = before.open_end(index)
            takes = before.trains[index].marker and not seen.trains[index].marker and index != before.mexican
            steps.append(
                TableStep(
                    "play",
                    seat,
                    train_ref(before, index),
                    inner,
                    move.tile.other_end(inner),
                    takes_marker=takes,
                    flags=tuple(flags),
                )
            )
            flags = left_open  # known once the next thing happens on the table
            plays += 1
        elif move.action == "pass" and not before.trains[seat].marker:
            steps.append(TableStep("marker", seat, seat, flags=tuple(flags + left_open)))  # the turn ends in view
            flags = []
        else:
            flags += left_open
        played_turn_start = played_turn_start or ended
    return PlayedVideoRound(players, engine, starter, names, tuple(steps), tuple(moves), tuple(flags))


def _unseen(move: Move) -> Move:
    """The move as the camera's referee hears of it: a draw does not say what it drew."""
    return Move.draw(move.player) if move.action == "draw" else move


def _next_move(known: RoundState, strategy: str, rng: random.Random, spoiled: set[int]) -> Move | None:
    """The seat's next move: its strategy's, kept off spoiled trains; a double it cannot cover now and
    then (it then draws a tile that does not cover it either); None when stuck on a spoiled train."""
    moves = list(legal_moves(known))
    plays = [move for move in moves if move.action == "play"]
    open_plays = [move for move in plays if known.train_index(move.train) not in spoiled]
    if plays and not open_plays:
        return None
    if plays:
        assert known.hands is not None
        hand = known.hands[known.turn]
        doubles = [
            move
            for move in open_plays
            if isinstance(move.tile, Tile)
            and move.tile.is_double
            and not any(tile.has(move.tile.high) for tile in hand if tile != move.tile)
        ]
        if doubles and rng.random() < OPEN_DOUBLE_SHARE:
            return rng.choice(doubles)
        return STRATEGIES[strategy](known, open_plays, rng)
    draws = [move for move in moves if move.action == "draw"]
    if draws:
        ends = known.playable_ends
        misses = [
            move for move in draws if isinstance(move.tile, Tile) and not (move.tile[0] in ends or move.tile[1] in ends)
        ]
        binding = known.binding_double()
        if binding is not None and misses and rng.random() < OPEN_DOUBLE_SHARE:
            return rng.choice(misses)  # the double stays open this turn
        return rng.choice(draws)
    return choose_move(known, STRATEGIES[strategy], rng)


def _illegal_play(
    known: RoundState, seen: RoundState, rng: random.Random, spoiled: set[int]
) -> tuple[Move, int, int] | None:
    """A tile from the seat's hand laid where the rules forbid: on a train whose open end it does not
    match, or on another seat's train that carries no marker. Returns the move and the tile's
    (inner, outer) ends as laid, or None when the hand offers none."""
    assert known.hands is not None
    seat = known.turn
    hand = sorted(known.hands[seat])
    trains = [index for index in range(len(seen.trains)) if index not in spoiled]
    if not hand or not trains:
        return None
    if rng.random() < 0.5:  # no_match: on one's own or the Mexican train
        candidates = [index for index in trains if index in (seat, seen.mexican)]
        options = [(tile, index) for index in candidates for tile in hand if not tile.has(seen.open_end(index))]
    else:  # train_not_eligible: another seat's train without a marker, the tile matching or not
        candidates = [index for index in trains if index not in (seat, seen.mexican) and not seen.trains[index].marker]
        options = [(tile, index) for index in candidates for tile in hand]
        matching = [(tile, index) for tile, index in options if tile.has(seen.open_end(index))]
        options = matching or options
    if not options:
        return None
    tile, index = rng.choice(options)
    end = seen.open_end(index)
    inner = end if tile.has(end) else rng.choice([tile.high, tile.low])
    return Move.play(seat, tile, train_ref(seen, index)), inner, tile.other_end(inner)


def _left_open(before: RoundState, after: RoundState) -> list[dict[str, object]]:
    """The unsatisfied_double flags of a turn that just ended: doubles it played still open."""
    seat = before.turn
    flags: list[dict[str, object]] = []
    for double in after.open_doubles:
        if double.number in before.turn_doubles:
            train = train_ref(after, double.train)
            flags.append(
                {
                    "event": "flag",
                    "kind": "unsatisfied_double",
                    "player": seat,
                    "tile": f"{double.number}-{double.number}",
                    "train": train,
                    "message": f"seat {seat} left the double {double.number}-{double.number} on "
                    f"{after.train_name(double.train)} uncovered",
                }
            )
    return flags
