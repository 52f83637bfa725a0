"""Frames of a round in, events out (``hubcam watch``): the stability gate says when the table has
settled into a new state; the table is read then, and what changed against the trains accepted so
far becomes events, in the JSON ``hubcam watch --json`` prints (docs/watching.md):

- ``play``: a tile new at a train's end: which tile by generate and test (``vision.plays``), who
  laid it and whether it is legal by the engine in unknown-hands mode;
- ``flag``: ``unsatisfied_double`` when a turn ends with its double open, and RULES.md 8's
  ``duplicate_tile`` and ``out_of_set`` on a tile as it is laid;
- ``redo``: a new tile that no candidate explains surely enough: the player is asked to lay it
  again so it can be read, nothing is guessed;
- ``takeback``: the last tile gone from a train's end, seen gone twice half a second apart (a hand
  resting on a train once is not; a train read several tiles short is a reading that missed them);
- ``lost``: the hub seen elsewhere than it was (the camera or the table moved): the trains are
  matched again by what they hold;
- ``state``: the ``analyze`` JSON of the last stable table, at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import MEXICAN, Tile
from vision.flags import FlagKind
from vision.observation import Observation
from vision.plays import PICK_CONFIG, PickConfig, WatchReferee, candidates, pick, watch_rules
from vision.table_analysis import Seats, TableAnalysis, TrainReading
from vision.watch.motion import MOTION_CONFIG, Change, MotionConfig, MotionGate

Event = dict[str, Any]
Reader = Callable[[np.ndarray], Observation]

TILE_FLAGS = frozenset({FlagKind.DUPLICATE_TILE, FlagKind.OUT_OF_SET})
"""RULES.md 8's flags told as a tile is laid. An illegal join is the play's own verdict, an open double
is told when the turn ends, and an unsure reading asks for a redo."""


@dataclass(frozen=True)
class WatchConfig:
    motion: MotionConfig = MOTION_CONFIG
    pick: PickConfig = PICK_CONFIG
    slot_reach_deg: float = 12.0
    """A train read is the train known before whose slot lies this many degrees away or nearer."""
    hub_moved: float = 0.35
    """The hub seen farther than this share of its radius from where it was: the camera or table moved."""
    takeback_frames: int = 15
    """A train read one tile short is a take-back once read so again at least this many frames later.
    A train read more than one tile short, or gone, is a reading that missed tiles (a hand resting on
    them, a poor frame): the tiles are kept, and a play is never taken back on one reading."""


WATCH_CONFIG = WatchConfig()


@dataclass
class KnownTrain:
    """A train as accepted so far: its slot (in the current picture), owner, tiles (inner, outer)."""

    slot_angle: float
    owner: int | str | None
    tiles: list[tuple[int, int] | None]
    marker: bool = False
    """Whether its marker is out, as two readings running have seen it (a marker seen once may be a
    hand's knuckle or a marker passing by)."""
    marker_once: bool = False
    """Whether the last reading saw a marker by it that ``marker`` does not yet believe."""


@dataclass
class Watcher:
    """Feed frames in order (``feed``); call ``finish`` at the end for the ``state`` event."""

    reader: Reader
    config: WatchConfig = WATCH_CONFIG
    players: int = 4
    highest: int = 12
    seats: Seats | None = None
    starter: int = 0
    gate: MotionGate = field(init=False)
    referee: WatchReferee | None = field(init=False, default=None)
    trains: list[KnownTrain] = field(init=False, default_factory=list)
    hub: tuple[float, float, float] | None = field(init=False, default=None)
    rotation: float = field(init=False, default=0.0)
    """Degrees the picture has turned since the seat map was drawn (found again after a ``lost``)."""
    analysis: TableAnalysis | None = field(init=False, default=None)
    seen: Observation | None = field(init=False, default=None)
    suspect: dict[tuple[int, int], int] = field(init=False, default_factory=dict)
    """(train, tiles read) of trains read one tile shorter than known, and the frame first read so: a
    reading as short ``takeback_frames`` later confirms the take-back."""
    asked: set[tuple[int, int]] = field(init=False, default_factory=set)
    """(train, place) of tiles a redo was asked for already."""
    last_events: list[Event] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.gate = MotionGate(self.config.motion)
        self.rules = watch_rules(self.players, self.highest)

    def feed(self, frame_bgr: np.ndarray, index: int, t_s: float) -> list[Event]:
        """The events this frame makes known (most frames: none)."""
        change = self.gate.feed(frame_bgr)
        if change is None:
            return []
        events = self._on_change(frame_bgr, change, _Stamp(index, round(t_s, 3)))
        if events:
            self.last_events = events
        return events

    def finish(self, index: int, t_s: float) -> Event:
        """The ``state`` event: the last stable table as ``hubcam analyze --json`` says it."""
        stamp = _Stamp(index, round(t_s, 3))
        if self.analysis is None:
            return stamp.event("state", error="no table seen: no hub and engine were found in any stable frame")
        return stamp.event("state", **self.analysis.to_json())

    # --- one new stable picture ---------------------------------------------

    def _on_change(self, frame_bgr: np.ndarray, change: Change, stamp: _Stamp) -> list[Event]:
        seen = self.reader(frame_bgr)
        if seen.layout is None or seen.layout.hub is None:
            self.gate.reset()  # no hub in sight (a hand resting over it?): read again once it is quiet
            return []
        events: list[Event] = []
        hub = seen.layout.hub
        if self.hub is not None:
            apart = float(np.hypot(hub.centre[0] - self.hub[0], hub.centre[1] - self.hub[1]))
            if apart > self.config.hub_moved * self.hub[2]:
                events.append(stamp.event("lost", message=f"the hub moved {apart:.0f} px: the table is read again"))
                self._relocate(seen, TableAnalysis.of(seen, stamp.name))
        self.hub = (hub.centre[0], hub.centre[1], hub.radius)
        analysis = TableAnalysis.of(seen, stamp.name, self._seats())
        if self.referee is None:
            self._acquire(analysis)
        else:
            events += self._compare(seen, analysis, stamp)
        self.seen, self.analysis = seen, analysis
        return events

    def _seats(self) -> Seats | None:
        if self.seats is None:
            return None
        return Seats({(angle + self.rotation) % 360: seat for angle, seat in self.seats.slots.items()})

    def _acquire(self, analysis: TableAnalysis) -> None:
        """The first table seen: its trains are the round so far."""
        engine = analysis.engine[0] if analysis.engine is not None else self.highest
        self.trains = [KnownTrain(t.slot_angle, t.owner, list(t.pips), t.marker) for t in analysis.trains]
        laid = {
            train.owner: [pair for pair in train.tiles if pair is not None]
            for train in self.trains
            if train.owner is not None
        }
        self.referee = WatchReferee.start(self.rules, engine, self.starter, laid)

    def _relocate(self, seen: Observation, analysis: TableAnalysis) -> None:
        """After the picture moved: the turn that best lays the known trains' slots on the new ones."""
        known = [train for train in self.trains if train.tiles]
        offsets = [_apart_signed(new.slot_angle, old.slot_angle) for new in analysis.trains for old in known] or [0.0]

        def fit(offset: float) -> tuple[int, float]:
            near = sum(
                any(abs(_apart_signed(new.slot_angle, old.slot_angle + offset)) <= self.config.slot_reach_deg
                    for new in analysis.trains)
                for old in known
            )  # fmt: skip
            return near, -abs(offset)

        offset = max(offsets, key=fit)
        self.rotation = (self.rotation + offset) % 360
        for train in self.trains:
            train.slot_angle = (train.slot_angle + offset) % 360
        self.suspect.clear()

    def _compare(self, seen: Observation, analysis: TableAnalysis, stamp: _Stamp) -> list[Event]:
        assert seen.layout is not None and self.referee is not None
        events: list[Event] = []
        places: list[int] = []
        for reading in analysis.trains:
            known_at = self._known(reading.slot_angle)
            if known_at is None:
                self.trains.append(KnownTrain(reading.slot_angle, reading.owner, []))
                known_at = len(self.trains) - 1
            places.append(known_at)
            known = self.trains[known_at]
            known.slot_angle, known.owner = reading.slot_angle, reading.owner
            events += self._marker(known, reading, stamp)  # a pass comes before the plays it lets happen
        for number, (reading, known_at) in enumerate(zip(analysis.trains, places, strict=True)):
            known = self.trains[known_at]
            if len(reading.pips) > len(known.tiles):
                events += self._laid(seen, analysis, number, known_at, stamp)
            elif len(reading.pips) < len(known.tiles):
                events += self._shorter(known_at, len(reading.pips), stamp)
        for known_at, known in enumerate(self.trains):
            if known_at not in places and known.tiles:
                events += self._shorter(known_at, 0, stamp)
        return events

    def _known(self, slot_angle: float) -> int | None:
        reach = self.config.slot_reach_deg
        near = [(abs(_apart_signed(t.slot_angle, slot_angle)), at) for at, t in enumerate(self.trains)]
        close = [item for item in near if item[0] <= reach]
        return min(close)[1] if close else None

    def _marker(self, known: KnownTrain, reading: TrainReading, stamp: _Stamp) -> list[Event]:
        """A marker come out (seen on two readings running) on the train of the seat whose turn it is:
        that seat passed. A marker seen once asks for another reading soon."""
        assert self.referee is not None
        came_out = reading.marker and known.marker_once and not known.marker
        if reading.marker and not known.marker and not known.marker_once:
            self.gate.reset()
        known.marker_once = reading.marker and not known.marker
        if came_out or not reading.marker:
            known.marker = reading.marker
        if not came_out or not isinstance(known.owner, int) or known.owner != self.referee.state.turn:
            return []
        return [self._unsatisfied(left, stamp) for left in self.referee.passed(known.owner)]

    def _laid(
        self, seen: Observation, analysis: TableAnalysis, number: int, known_at: int, stamp: _Stamp
    ) -> list[Event]:
        """The tiles new at a train's end, each picked, judged and told; stops at the first unsure one."""
        assert seen.layout is not None and self.referee is not None
        referee, known = self.referee, self.trains[known_at]
        layout_train = seen.layout.trains[number]
        events: list[Event] = []
        for place in range(len(known.tiles), len(analysis.trains[number].pips)):
            tile_id, inner_half = layout_train.tile_ids[place], layout_train.inner_halves[place]
            sighting = seen.tiles[tile_id]
            train_ref = known.owner
            unseen = referee.unseen(Tile(*pair) for train in self.trains for pair in train.tiles if pair is not None)
            ranked = candidates(sighting.pips, sighting.odds, inner_half, self._ends(known), unseen, self.config.pick)
            chosen = pick(ranked, self.config.pick)
            if chosen is None:
                if (known_at, place) not in self.asked:
                    self.asked.add((known_at, place))
                    best = ", ".join(f"{c.inner}-{c.outer} ({c.share:.0%})" for c in ranked[:3]) or "nothing"
                    events.append(stamp.event("redo", train=train_ref, message=(
                        f"a new tile on {_train_name(train_ref)} could not be told surely (likeliest: {best}): "
                        "please lay it again, flat and in full view"
                    )))  # fmt: skip
                break
            known.tiles.append((chosen.inner, chosen.outer))
            tile = f"{chosen.inner}-{chosen.outer}"
            if train_ref is None:
                unjudged = "no seat map (--seats): whose train this is is unknown, the play is not judged"
                events.append(stamp.event("play", player=referee.state.turn, tile=tile, train=None, legal=None,
                                          reason=None, message=unjudged))  # fmt: skip
                continue
            player = referee.who_played(train_ref)
            judged = referee.play(player, chosen.tile, train_ref)
            events += [self._unsatisfied(left, stamp) for left in judged.unsatisfied]
            verdict = judged.verdict
            events.append(stamp.event("play", player=player, tile=tile, train=train_ref, legal=verdict.legal,
                                      reason=verdict.reason, message=verdict.message))  # fmt: skip
            events += self._tile_flags(analysis, tile_id, judged.player, tile, train_ref, stamp)
        self.suspect.pop((known_at, len(known.tiles)), None)
        return events

    def _ends(self, known: KnownTrain) -> set[int]:
        """The ends a tile laid on ``known`` should match: the engine's open end of it, and the one seen
        (they differ after an illegal play, which stays on the table but not in the engine's state)."""
        assert self.referee is not None
        engine_end = None if known.owner is None else self.referee.open_end(known.owner)
        seen_end = _outer(known.tiles) if known.tiles else self.referee.state.engine
        return {end for end in (engine_end, seen_end) if end is not None}

    def _shorter(self, known_at: int, now: int, stamp: _Stamp) -> list[Event]:
        """A train read one tile shorter than known: a suspicion first (a hand resting on it?), read
        again soon; still short ``takeback_frames`` later, its last tile was taken back."""
        assert self.referee is not None
        known = self.trains[known_at]
        if now != len(known.tiles) - 1:
            return []
        key = (known_at, now)
        first = self.suspect.setdefault(key, stamp.frame)
        if stamp.frame - first < self.config.takeback_frames:
            self.gate.reset()
            return []
        del self.suspect[key]
        pair = known.tiles.pop()
        if pair is None:
            return []
        undone = known.owner is not None and self.referee.take_back(Tile(*pair), known.owner)
        message = f"the {pair[0]}-{pair[1]} was taken back from {_train_name(known.owner)}"
        if not undone:
            message += " (it had not been applied: an illegal play, or one laid before the watch began)"
        return [stamp.event("takeback", tile=f"{pair[0]}-{pair[1]}", train=known.owner, message=message)]

    def _tile_flags(
        self, analysis: TableAnalysis, tile_id: int, player: int, tile: str, train: int | str, stamp: _Stamp
    ) -> list[Event]:
        return [
            stamp.event("flag", kind=flag.kind.value, player=player, tile=tile, train=train, message=flag.message)
            for flag in analysis.flags
            if flag.kind in TILE_FLAGS and tile_id in flag.tiles
        ]

    def _unsatisfied(self, left: tuple[int, int, int | str], stamp: _Stamp) -> Event:
        number, seat, train = left
        message = f"seat {seat}'s turn ended with the double {number}-{number} open on {_train_name(train)}"
        return stamp.event(
            "flag", kind="unsatisfied_double", player=seat, tile=f"{number}-{number}", train=train, message=message
        )


@dataclass(frozen=True)
class _Stamp:
    """The frame an event is known on."""

    frame: int
    t_s: float

    @property
    def name(self) -> str:
        return f"frame {self.frame}"

    def event(self, name: str, /, **fields: Any) -> Event:
        return {"frame": self.frame, "t_s": self.t_s, "event": name, **fields}


def _outer(tiles: list[tuple[int, int] | None]) -> int | None:
    return None if tiles[-1] is None else tiles[-1][1]


def _train_name(train: int | str | None) -> str:
    if train is None:
        return "a train of unknown owner"
    return "the Mexican train" if train == MEXICAN else f"seat {train}'s train"


def _apart_signed(a: float, b: float) -> float:
    """``a - b`` in degrees, in [-180, 180)."""
    return (a - b + 180.0) % 360.0 - 180.0
