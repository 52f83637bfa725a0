"""The state of one round: trains, markers, open doubles, hands, boneyard, whose turn.

A RoundState is frozen and only a value: the verbs on it live where they are written,
``engine.legality`` (``judge``, ``legal_moves``), ``engine.transitions`` (``apply``, which
returns a new state) and ``engine.notation`` (``to_notation``). Hands and boneyard are either
known (every tile's place is known) or unknown, as when the camera watches a table
and only sees what is played (RULES.md 7).

>>> from engine.rules import Rules
>>> state = RoundState.start(Rules(players=2, set=6, hand_size=7), engine=6)
>>> state.turn, state.open_end(state.mexican), state.hands_known
(0, 6, False)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from engine.errors import ParseError
from engine.moves import MEXICAN, TrainRef
from engine.rules import Rules
from engine.tiles import Tile, domino_set, tiles_with


@dataclass(frozen=True)
class Train:
    """A line of tiles leaving the hub. ``tiles`` are ``(inner end, outer end)`` pairs."""

    owner: int | str
    tiles: tuple[tuple[int, int], ...]
    open_end: int
    marker: bool

    @classmethod
    def empty(cls, owner: int | str, engine: int) -> Train:
        return cls(owner, (), engine, owner == MEXICAN)

    def extended(self, tile: Tile) -> Train:
        """This train with ``tile`` laid on its open end (RULES.md 2)."""
        outer = tile.other_end(self.open_end)
        return Train(self.owner, self.tiles + ((self.open_end, outer),), outer, self.marker)

    @property
    def last_tile(self) -> Tile | None:
        return Tile(*self.tiles[-1]) if self.tiles else None


@dataclass(frozen=True)
class OpenDouble:
    """An uncovered double: its number and the index of the train it ends."""

    number: int
    train: int


@dataclass(frozen=True)
class RoundState:
    rules: Rules
    engine: int
    trains: tuple[Train, ...]
    """Seats 0..P-1, then the Mexican train at index P."""
    open_doubles: tuple[OpenDouble, ...] = ()
    """Oldest first (RULES.md 4)."""
    hands: tuple[frozenset[Tile], ...] | None = None
    """Known hands by seat, or None when unknown."""
    boneyard: frozenset[Tile] | None = None
    """The boneyard when hands are known, else None."""
    turn: int = 0
    drew: bool = False
    played: int = 0
    """Tiles the current seat has played this turn."""
    turn_doubles: frozenset[int] = frozenset()
    """Numbers of the open doubles that the current seat played this turn."""
    first_turns_done: frozenset[int] = frozenset()
    passes: int = 0
    """Passes in a row made with an empty boneyard (RULES.md 3.8)."""
    round_over: bool = False

    # --- construction -----------------------------------------------------

    @classmethod
    def start(
        cls,
        rules: Rules,
        engine: int | None = None,
        starter: int = 0,
        hands: Sequence[Iterable[Tile]] | None = None,
        boneyard: Iterable[Tile] | None = None,
    ) -> RoundState:
        """The position before the first event. ``hands`` given means known hands.

        Raises ParseError when the engine, starter or the tiles do not fit the rules.
        """
        engine = rules.set if engine is None else engine
        if type(engine) is not int or not 0 <= engine <= rules.set:
            raise ParseError(f"invalid engine: {engine!r} (expected a double from 0 to {rules.set})")
        if type(starter) is not int or not 0 <= starter < rules.players:
            raise ParseError(f"invalid starter: {starter!r} (expected a seat from 0 to {rules.players - 1})")
        trains = tuple(Train.empty(seat, engine) for seat in range(rules.players)) + (Train.empty(MEXICAN, engine),)
        state = cls(rules, engine, trains, turn=starter)
        if hands is None:
            return state
        hand_lists = [list(hand) for hand in hands]
        if len(hand_lists) != rules.players:
            raise ParseError(f"invalid hands: {len(hand_lists)} given for {rules.players} players")
        if boneyard is None:
            held = {tile for hand in hand_lists for tile in hand}
            boneyard = domino_set(rules.set) - held - {Tile(engine, engine)}
        boneyard_list = list(boneyard)
        places = [(f"seat {seat}'s hand", hand) for seat, hand in enumerate(hand_lists)]
        check_every_tile_once(rules, engine, [*places, ("the boneyard", boneyard_list)])
        known_hands = tuple(frozenset(hand) for hand in hand_lists)
        return replace(state, hands=known_hands, boneyard=frozenset(boneyard_list))

    @classmethod
    def deal(cls, rules: Rules, engine: int, starter: int, rng: random.Random) -> RoundState:
        """A fresh round with shuffled hands of ``rules.dealt_per_player`` tiles."""
        tiles = sorted(domino_set(rules.set) - {Tile(engine, engine)})
        rng.shuffle(tiles)
        size = rules.dealt_per_player
        hands = [tiles[seat * size : (seat + 1) * size] for seat in range(rules.players)]
        return cls.start(rules, engine, starter, hands, tiles[rules.players * size :])

    # --- what the position says ---------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def mexican(self) -> int:
        """The index of the Mexican train in ``trains``."""
        return self.rules.players

    @property
    def hands_known(self) -> bool:
        return self.hands is not None

    @cached_property
    def on_table(self) -> frozenset[Tile]:
        """Every tile on the table, the engine in the hub included."""
        placed = {Tile(*pair) for train in self.trains for pair in train.tiles}
        placed.add(Tile(self.engine, self.engine))
        return frozenset(placed)

    def open_end(self, train: int) -> int:
        return self.trains[train].open_end

    def train_index(self, ref: TrainRef | None) -> int | None:
        """The index in ``trains`` that a log's ``train`` names, or None for no such train."""
        if ref == MEXICAN:
            return self.mexican
        if type(ref) is int and 0 <= ref < self.players:
            return ref
        return None

    def train_name(self, index: int) -> str:
        return "the Mexican train" if index == self.mexican else f"seat {index}'s train"

    def in_first_turn(self, seat: int | None = None) -> bool:
        return (self.turn if seat is None else seat) not in self.first_turns_done

    @property
    def in_chain_turn(self) -> bool:
        """RULES.md 6 first_turn=chain: the current seat is in its first turn."""
        return self.rules.first_turn == "chain" and self.in_first_turn()

    @property
    def own_doubles_bind(self) -> bool:
        """Whether this turn's own doubles must be covered before anything else (RULES.md 4)."""
        return self.rules.double_follow_up == "cover" or self.in_chain_turn

    def binding_double(self) -> OpenDouble | None:
        """The open double the current seat must cover next, if any (RULES.md 3.3 and 4)."""
        for double in self.open_doubles:
            if double.number not in self.turn_doubles or self.own_doubles_bind:
                return double
        return None

    def holds_open_double(self, train: int) -> bool:
        return any(double.train == train for double in self.open_doubles)

    def is_eligible(self, train: int, seat: int | None = None) -> bool:
        """Whether ``seat`` (default: the current one) may play on ``train`` (RULES.md 2, 3.3, 6)."""
        seat = self.turn if seat is None else seat
        if self.holds_open_double(train) or train == seat:
            return True  # covering an open double overrides every eligibility limit
        if self.rules.first_turn == "chain" and self.in_first_turn(seat):
            return False
        if train == self.mexican:
            return not (self.rules.mexican_from_second_turn and self.in_first_turn(seat))
        return self.trains[train].marker

    @cached_property
    def open_trains(self) -> tuple[int, ...]:
        """The trains the current seat may play on at all: the binding double's alone, else
        every eligible train (RULES.md 3.3)."""
        binding = self.binding_double()
        if binding is not None:
            return (binding.train,)
        return tuple(index for index in range(len(self.trains)) if self.is_eligible(index))

    def play_targets(self, tile: Tile) -> Iterator[int]:
        """The trains the current seat may legally play ``tile`` on, ignoring who holds it."""
        return (index for index in self.open_trains if tile.has(self.trains[index].open_end))

    @cached_property
    def playable_ends(self) -> frozenset[int]:
        """The numbers a tile needs to be playable now (a binding double's train ends in its number)."""
        return frozenset(self.trains[index].open_end for index in self.open_trains)

    def has_legal_play(self) -> bool:
        """Whether the current seat holds a tile it may play (hands known only)."""
        assert self.hands is not None
        ends = self.playable_ends
        return any(tile[0] in ends or tile[1] in ends for tile in self.hands[self.turn])

    def holder(self, tile: Tile) -> int | None:
        if self.hands is not None:
            for seat, hand in enumerate(self.hands):
                if tile in hand:
                    return seat
        return None

    def scores(self) -> list[int] | None:
        """Pips left in each hand once the round is over and hands are known (RULES.md 5)."""
        if not self.round_over or self.hands is None:
            return None
        return [hand_points(hand, self.rules.double_blank_points) for hand in self.hands]


def hand_points(hand: Iterable[Tile], double_blank_points: int = 0) -> int:
    """The pips in a hand; the double-blank counts ``double_blank_points`` (RULES.md 5)."""
    return sum(double_blank_points if tile == Tile(0, 0) else tile.pips for tile in hand)


def check_every_tile_once(rules: Rules, engine: int, places: list[tuple[str, list[Tile]]]) -> None:
    """RULES.md 4: with known hands, the engine and ``places`` hold every tile exactly once."""
    every = domino_set(rules.set)
    seen: dict[Tile, str] = {Tile(engine, engine): "the engine"}
    for place, tiles in places:
        for tile in tiles:
            if tile not in every:
                raise ParseError(f"invalid tile in {place}: {str(tile)!r} (not in the double-{rules.set} set)")
            if tile in seen:
                raise ParseError(f"tile {tile} is in {place} and also in {seen[tile]}")
            seen[tile] = place
    missing = sorted(every - seen.keys(), reverse=True)
    if missing:
        shown = ", ".join(map(str, missing[:5])) + (", ..." if len(missing) > 5 else "")
        raise ParseError(f"tiles missing from hands and boneyard: {shown}")


def is_dead(number: int, on_table: frozenset[Tile], highest: int) -> bool:
    """RULES.md 3.3: a double stops binding when every tile of its number is on the table."""
    return all(tile in on_table for tile in tiles_with(number, highest))
