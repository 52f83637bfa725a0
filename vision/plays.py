"""The bridge from a tile seen landing on a train to a move the rules judge (``hubcam watch``).

Two jobs, both about what the camera may say of a play and no more:

- **Which tile** (generate and test): the candidates are the tiles not yet seen, each laid on the
  train's open end; the one whose expected halves the pip reader's odds support best is taken,
  a tile that matches the open end being likelier than one that does not (``RulesPrior.mismatch``,
  as a photo's joins are read). Where no candidate stands out, the answer is None: ask for a redo,
  never guess.
- **Who, and is it legal**: the engine in unknown-hands mode (RULES.md 7) keeps whose turn it is.
  A tile on a seat's own train was laid by that seat, unless the train is open (its marker seen out)
  and the marker is still seen after the tile, or a seat before its owner has no marker out (it cannot
  have passed unseen): then the seat whose turn it is laid it there. Any other tile was laid by the
  seat whose turn it is; where that seat's own double is open on another train, it passed unseen
  first (``must_cover_elsewhere``). A seat with its
  marker out may have drawn and passed unseen, so where a seat plays its own train out of turn and
  every seat before it has its marker out, they are taken to have passed; otherwise the play is
  judged ``not_your_turn`` (the watcher may first ``resync``, where it lost the turn). A marker that
  appears on the train of the seat whose turn it is is that seat's pass.

>>> from engine import Rules
>>> referee = WatchReferee.start(watch_rules(players=4, highest=12), engine=12, starter=0)
>>> referee.play(0, Tile(12, 3), 0).verdict
Verdict(legal=True, reason=None, message='')
>>> referee.who_played(1), referee.who_played(MEXICAN)
(1, 1)
>>> referee.play(1, Tile(5, 2), 1).verdict.reason
'no_match'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from engine import MEXICAN, Move, RoundState, Rules, Tile, Verdict, apply, domino_set, judge
from engine.state import Train
from vision.reconcile import RULES_PRIOR

TrainRef = int | str
"""A seat's train by the seat's number, or ``"mexican"``, as the engine names trains."""


@dataclass(frozen=True)
class Candidate:
    """A tile that may have been laid: as (inner end, outer end), and how likely it is, all
    candidates' likelihoods summing to 1."""

    inner: int
    outer: int
    share: float

    @property
    def tile(self) -> Tile:
        return Tile(self.inner, self.outer)


@dataclass(frozen=True)
class PickConfig:
    """When a reading names a tile surely enough to report it."""

    least_share: float = 0.6
    """The best candidate's share of the likelihood, at least: below it the play is unsure."""
    mismatch: float = RULES_PRIOR.mismatch
    """How likely a tile that does not match its train's open end is, against one that does."""


PICK_CONFIG = PickConfig()


def candidates(
    pips: tuple[int, int] | None,
    odds: np.ndarray | None,
    inner_half: int,
    open_ends: Iterable[int],
    unseen: Iterable[Tile],
    config: PickConfig = PICK_CONFIG,
) -> list[Candidate]:
    """Every unseen tile, laid either way round, weighed by how well it explains the reading of the
    new tile (``pips`` in the sighting's order, ``odds`` the pip reader's ``(2, counts)`` where it gave
    them; its ``inner_half`` faces the hub) and whether it matches one of ``open_ends``; likeliest
    first. Without odds, only the pips read explain a tile."""
    ends = set(open_ends)
    weighed: list[tuple[float, int, int]] = []
    for tile in unseen:
        for inner, outer in {(tile[0], tile[1]), (tile[1], tile[0])}:
            seen = _likelihood(pips, odds, inner_half, inner, outer)
            if seen <= 0.0:
                continue
            prior = 1.0 if inner in ends else config.mismatch
            weighed.append((seen * prior, inner, outer))
    total = sum(weight for weight, _, _ in weighed)
    if total <= 0.0:
        return []
    ranked = sorted(weighed, key=lambda item: -item[0])
    return [Candidate(inner, outer, weight / total) for weight, inner, outer in ranked]


def pick(ranked: Sequence[Candidate], config: PickConfig = PICK_CONFIG) -> Candidate | None:
    """The candidate the reading supports, or None where none stands out (a redo, not a guess)."""
    if not ranked or ranked[0].share < config.least_share:
        return None
    return ranked[0]


def _likelihood(
    pips: tuple[int, int] | None, odds: np.ndarray | None, inner_half: int, inner: int, outer: int
) -> float:
    halves = (inner, outer) if inner_half == 0 else (outer, inner)
    if odds is not None:
        if max(halves) >= odds.shape[1]:
            return 0.0
        return float(odds[0][halves[0]] * odds[1][halves[1]])
    return 1.0 if pips is not None and tuple(pips) == halves else 0.0


def watch_rules(players: int, highest: int) -> Rules:
    """The rules a watched round is judged by: the defaults of RULES.md 6 for ``players`` and the
    set (a hand size is given where RULES.md 1 has none: hands are unknown, so it is never used)."""
    from engine.rules import standard_hand_size

    return Rules(players=players, set=highest, hand_size=standard_hand_size(highest, players) or 7)


@dataclass(frozen=True)
class Judged:
    """A play as the engine judged it, and the open doubles left unsatisfied by a turn that ended
    on the way to it (each as its number, the seat that left it, and its train)."""

    player: int
    verdict: Verdict
    unsatisfied: tuple[tuple[int, int, TrainRef], ...] = ()


@dataclass
class WatchReferee:
    """The engine's state of the round as watched, in unknown-hands mode: every play judged, the
    legal ones applied, the illegal ones reported and left out (RULES.md 7)."""

    state: RoundState
    history: list[tuple[RoundState, Move]] = field(default_factory=list)

    @classmethod
    def start(
        cls, rules: Rules, engine: int, starter: int, laid: Mapping[TrainRef, Sequence[tuple[int, int]]] | None = None
    ) -> WatchReferee:
        """The round from its first stable picture: ``laid``, tiles already on trains (inner, outer)."""
        state = RoundState.start(rules, engine, starter)
        if laid:
            trains = list(state.trains)
            for ref, tiles in laid.items():
                index = state.train_index(ref)
                if index is None or not tiles:
                    continue
                trains[index] = Train(trains[index].owner, tuple(tiles), tiles[-1][1], trains[index].marker)
            state = RoundState(rules, engine, tuple(trains), turn=starter)
        return cls(state)

    def who_played(self, train: TrainRef | None, marker_seen: bool | None = False) -> int:
        """A seat's own train: that seat, unless the train is open and its marker is still seen out after
        the tile (``marker_seen``: its owner's play takes it off), or a seat before it cannot have passed
        unseen (no marker out): then, as on any other train, the seat whose turn it is. ``marker_seen``
        None: no marker was ever seen by the train, open only as its owner was taken to have passed."""
        state = self.state
        if not isinstance(train, int) or not 0 <= train < state.players or train == state.turn:
            return state.turn
        if not state.trains[train].marker or marker_seen is None:
            return train
        if marker_seen or not all(state.trains[seat].marker for seat in self._seats_before(train)):
            return state.turn
        return train

    def must_cover_elsewhere(self, train: TrainRef) -> bool:
        """Whether the seat whose turn it is left a double of its own turn open on another train than
        ``train``: it may lay nothing there, so a tile seen there tells that its turn ended (a pass)."""
        binding = self.state.binding_double()
        return (
            binding is not None
            and binding.number in self.state.turn_doubles
            and binding.train != self.state.train_index(train)
        )

    def play(self, player: int, tile: Tile, train: TrainRef) -> Judged:
        """Judge ``player`` laying ``tile`` on ``train``, and apply it where legal. Seats before
        ``player`` with their markers out are taken to have passed where that makes it their turn."""
        unsatisfied: list[tuple[int, int, TrainRef]] = []
        skipped = self._seats_before(player)
        if skipped and all(self.state.trains[seat].marker for seat in skipped):
            for seat in skipped:
                unsatisfied += self.passed(seat)
        move = Move.play(player, tile, train)
        verdict = judge(self.state, move)
        if verdict.legal:
            self.history.append((self.state, move))
            self.state = apply(self.state, move)
        elif verdict.reason == "must_satisfy_double":
            unsatisfied += self._open_doubles(self.state.turn)
        return Judged(player, verdict, tuple(unsatisfied))

    def passed(self, seat: int) -> list[tuple[int, int, TrainRef]]:
        """``seat`` passed (its marker came out on its turn): the doubles its turn leaves open."""
        move = Move.pass_turn(seat)
        if not judge(self.state, move).legal:
            return []
        left = self._open_doubles(seat)
        self.history.append((self.state, move))
        self.state = apply(self.state, move)
        return left

    def resync(self, player: int, markers: Mapping[int, bool] | None = None) -> list[tuple[int, int, TrainRef]]:
        """The seats before ``player`` taken to have passed unseen: the watcher lost the turn (it missed a
        play or a pass), and takes it up again at ``player``; the doubles their turns leave open.
        ``markers``: whether each seat's marker is seen out; a seat whose marker is not seen may have
        played unseen, so its train stays as it was (a marker out before is not taken in for a reading
        that missed it: only its owner's play takes it off). A seat not in ``markers`` (its train not
        seen) is taken to have put its marker out as it passed."""
        skipped = self._seats_before(player)
        before = [self.state.trains[seat].marker for seat in skipped]
        left: list[tuple[int, int, TrainRef]] = []
        for seat in skipped:
            left += self.passed(seat)
        if markers is None:
            return left
        trains = list(self.state.trains)
        for seat, was in zip(skipped, before, strict=True):
            trains[seat] = replace(trains[seat], marker=was or markers.get(seat, trains[seat].marker))
        self.state = replace(self.state, trains=tuple(trains))
        return left

    def unmarked_before(self, seat: int) -> int:
        """How many seats from the one whose turn it is up to ``seat`` have no marker out (each of them
        passing unseen would have put one out)."""
        return sum(not self.state.trains[before].marker for before in self._seats_before(seat))

    def played_last(self, seat: int) -> bool:
        """Whether ``seat``'s last move so far was a play: its turn has not come back to it since (it is
        not its turn), so it cannot have passed and put its marker out since."""
        moves = [move for _, move in self.history if move.player == seat]
        return bool(moves) and moves[-1].action == "play" and seat != self.state.turn

    def open_train(self, seat: int) -> None:
        """``seat``'s marker seen out: its train is open to every seat, whoever's turn it is."""
        trains = list(self.state.trains)
        trains[seat] = replace(trains[seat], marker=True)
        self.state = replace(self.state, trains=tuple(trains))

    def take_back(self, tile: Tile, train: TrainRef) -> bool:
        """Undo the last play where it laid ``tile`` on ``train`` (and the passes after it); False
        where the engine never applied it (an illegal play taken back)."""
        for back in range(len(self.history) - 1, -1, -1):
            before, move = self.history[back]
            if move.action == "play":
                if move.tile == tile and move.train == train:
                    self.state = before
                    del self.history[back:]
                    return True
                return False
        return False

    def amend(self, laid: Tile, read_now: Tile, train: TrainRef) -> bool:
        """The play that laid ``laid`` on ``train`` replaced by ``read_now`` (a misreading mended), and
        the moves after it judged again; False where the engine never applied it."""
        for back, (before, move) in enumerate(self.history):
            if move.action == "play" and move.tile == laid and move.train == train:
                moves = [Move.play(move.player, read_now, train), *(later for _, later in self.history[back + 1 :])]
                self.state, self.history = before, self.history[:back]
                for again in moves:
                    if judge(self.state, again).legal:
                        self.history.append((self.state, again))
                        self.state = apply(self.state, again)
                return True
        return False

    def built_on(self, train: TrainRef, lying: Sequence[tuple[int, int] | None]) -> bool:
        """The tiles ``lying`` on ``train`` (inner, outer, from the hub), where a tile is being laid after
        them: those past the engine's train, judged illegal and left out, were taken by the players as
        laid, so they are put on it as they lie (the table decides what comes next; their verdicts
        stand), the turn as it is. False where a tile of them is unknown (None), the engine's train is
        not where ``lying`` begins, or a tile of them is on the table elsewhere."""
        index = self.state.train_index(train)
        tiles = [pair for pair in lying if pair is not None]
        if index is None or len(tiles) < len(lying):
            return False
        laid = self.state.trains[index].tiles
        extra = [Tile(*pair) for pair in tiles[len(laid) :]]
        same = [Tile(*pair) for pair in tiles[: len(laid)]] == [Tile(*pair) for pair in laid]
        if not extra or not same or len(set(extra)) < len(extra) or set(extra) & self.state.on_table:
            return False
        trains = list(self.state.trains)
        trains[index] = replace(trains[index], tiles=(*laid, *tiles[len(laid) :]), open_end=tiles[-1][1])
        self.state = replace(self.state, trains=tuple(trains))
        return True

    def unseen(self, also_seen: Iterable[Tile] = ()) -> set[Tile]:
        """The tiles of the set neither on the engine's table nor in ``also_seen``."""
        return set(domino_set(self.state.rules.set) - self.state.on_table) - set(also_seen)

    def open_end(self, train: TrainRef) -> int | None:
        index = self.state.train_index(train)
        return None if index is None else self.state.open_end(index)

    def _seats_before(self, player: int) -> list[int]:
        """The seats from the one whose turn it is up to ``player``, not included."""
        turn, players = self.state.turn, self.state.players
        return [(turn + step) % players for step in range((player - turn) % players)]

    def _open_doubles(self, seat: int) -> list[tuple[int, int, TrainRef]]:
        state = self.state
        if seat != state.turn:
            return []
        return [
            (double.number, seat, MEXICAN if double.train == state.mexican else double.train)
            for double in state.open_doubles
            if double.number in state.turn_doubles
        ]
