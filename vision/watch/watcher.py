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

import cv2
import numpy as np

from engine import MEXICAN, Tile
from vision.flags import FlagKind
from vision.geometry import tile_length
from vision.observation import Observation
from vision.plays import PICK_CONFIG, PickConfig, WatchReferee, candidates, pick, watch_rules
from vision.table_analysis import Seats, TableAnalysis, TrainReading, too_small
from vision.watch.looks import TileLook, table_grey
from vision.watch.motion import MOTION_CONFIG, Arm, Change, MotionConfig, MotionGate

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
    sure_tile_px: float = 40.0
    """Tiles seen shorter than this are read unsurely (many plays missed or asked again): ``advice`` says
    so. Lower than ``hubcam analyze``'s: a new tile's inner end is known, and few tiles are left to be it."""
    arm_tiles: float = 8.0
    """A change at the picture's edge covering this many tiles' faces or more is an arm, waited for
    (``MotionConfig.edge_patience``); a smaller one is a tile laid at the edge."""
    arm_seat_deg: float = 25.0
    """The arm's line must point this near a seat to tell who laid a tile (and 10 degrees nearer than
    at any other seat); else the engine's turn tells."""
    arm_at_tile: float = 2.0
    """An arm whose hand came no nearer a new tile than this many tile lengths did not lay it."""
    engine_readings: int = 3
    """Stable pictures that must read the engine alike before it is believed: one reading of a small
    double is often off by a few pips."""
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
    looks: list[TileLook | None] = field(default_factory=list)
    """How each tile's place looked when it was accepted (None: unknown, as after the camera moved)."""


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
    grey: np.ndarray | None = field(init=False, default=None)
    """The frame being read, as ``TileLook`` compares it."""
    engine_known: bool = field(init=False, default=False)
    """Whether the engine's number is known: read alike on ``engine_readings`` stable pictures, or told
    by the trains' first tiles (their inner ends match it). Until then the referee's engine is the
    likeliest reading, and a train's first tile is picked without it and then tells it."""
    engine_votes: dict[int, int] = field(init=False, default_factory=dict)
    anchor: np.ndarray | None = field(init=False, default=None)
    """The gate's small frame when the hub was last placed: a hub read elsewhere on a picture that did
    not move is a misreading, not the camera moved."""
    out_of_turn: int | None = field(init=False, default=None)
    """The seat whose play on its own train was just judged ``not_your_turn`` (None: the last play was
    not). The next seat round doing the same means the watch missed a play or a pass: the turn is
    taken up from there."""
    advice: str | None = field(init=False, default=None)
    """What the user should change for a sure watch (tiles seen too small), once known."""
    arm: Arm | None = field(init=False, default=None)
    """The arm that made this change, while the one tile new in it is read."""

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
        self.arm = change.arm
        seen = self.reader(frame_bgr)
        self.grey = table_grey(frame_bgr)
        if seen.layout is None or seen.layout.hub is None:
            self.gate.read_again()  # no hub in sight (a hand resting over it?): read again once it is quiet
            return []
        events: list[Event] = []
        lengths = [tile_length(tile.corners) for tile in seen.tiles]
        if lengths:
            length = float(np.median(lengths))
            self.gate.arm_least_px = self.config.arm_tiles * length * length / 2
            self.advice = self.advice or too_small(length, self.config.sure_tile_px)
        hub = seen.layout.hub
        if self.hub is not None:
            apart = float(np.hypot(hub.centre[0] - self.hub[0], hub.centre[1] - self.hub[1]))
            if apart > self.config.hub_moved * self.hub[2]:
                if self._picture_shift() < apart / 2:
                    self.gate.read_again()  # the hub read elsewhere, the picture not moved: a misreading
                    return events
                events.append(stamp.event("lost", message=f"the hub moved {apart:.0f} px: the table is read again"))
                self._relocate(seen, TableAnalysis.of(seen, stamp.name))
        self.hub = (hub.centre[0], hub.centre[1], hub.radius)
        self.anchor = self.gate.previous
        analysis = TableAnalysis.of(seen, stamp.name, self._seats())
        if self.referee is None:
            self._acquire(seen, analysis)
        else:
            self._engine_read(analysis)
            events += self._compare(seen, analysis, stamp)
        self.seen, self.analysis = seen, analysis
        return events

    def _picture_shift(self) -> float:
        """How far (full-frame px) the picture moved since the hub was last placed, by phase correlation
        of the gate's small frames."""
        now = self.gate.previous
        if self.anchor is None or now is None or now.shape != self.anchor.shape:
            return float("inf")
        (dx, dy), _ = cv2.phaseCorrelate(self.anchor, now)
        return float(np.hypot(dx, dy)) * self.gate.scale

    def _seats(self) -> Seats | None:
        if self.seats is None:
            return None
        return Seats({(angle + self.rotation) % 360: seat for angle, seat in self.seats.slots.items()})

    def _acquire(self, seen: Observation, analysis: TableAnalysis) -> None:
        """The first table seen: its trains are the round so far. An engine not read is told by the
        trains' first tiles (their inner ends match it), else by the first tile laid."""
        self.trains = [
            KnownTrain(t.slot_angle, t.owner, list(t.pips), t.marker, looks=[self._look(seen, i) for i in t.tile_ids])
            for t in analysis.trains
        ]
        firsts = [train.tiles[0][0] for train in self.trains if train.tiles and train.tiles[0] is not None]
        if firsts:
            self._learn_engine(max(set(firsts), key=firsts.count))
        else:
            self._learn_engine(self.highest if analysis.engine is None else analysis.engine[0], known=False)
            self._engine_read(analysis)

    def _engine_read(self, analysis: TableAnalysis) -> None:
        if self.engine_known or analysis.engine is None:
            return
        number = analysis.engine[0]
        self.engine_votes[number] = self.engine_votes.get(number, 0) + 1
        likeliest = max(self.engine_votes, key=lambda value: self.engine_votes[value])
        self._learn_engine(likeliest, known=self.engine_votes[likeliest] >= self.config.engine_readings)

    def _learn_engine(self, engine: int, known: bool = True) -> None:
        """(Re)start the referee from the known trains with ``engine``, before any play is judged by it."""
        if self.referee is not None and self.referee.history:
            return
        laid = {
            train.owner: [pair for pair in train.tiles if pair is not None]
            for train in self.trains
            if train.owner is not None
        }
        self.referee = WatchReferee.start(self.rules, engine, self.starter, laid)
        self.engine_known = known

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
            train.looks = [None] * len(train.tiles)  # the picture moved under them
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
        growing: list[tuple[int, int]] = []
        for number, (reading, known_at) in enumerate(zip(analysis.trains, places, strict=True)):
            known = self.trains[known_at]
            if len(reading.pips) > len(known.tiles):
                growing.append((number, known_at))
            elif len(reading.pips) < len(known.tiles):
                events += self._shorter(known_at, len(reading.pips), stamp)
        if sum(len(analysis.trains[number].pips) - len(self.trains[at].tiles) for number, at in growing) != 1:
            self.arm = None  # the arm laid one tile at most: which, is not known
        while growing:  # several tiles new at once (plays missed, or laid quickly): in turn order
            turn = self.referee.state.turn
            number, known_at = next((item for item in growing if self.trains[item[1]].owner == turn), growing[0])
            laid, told = self._lay_next(seen, analysis, number, known_at, stamp)
            events += told
            if not laid and self.trains[known_at].owner == turn:
                self.gate.read_again()
                break  # the seat whose turn it is laid a tile not read yet: the others' come after it
            if not laid or len(self.trains[known_at].tiles) >= len(analysis.trains[number].pips):
                growing.remove((number, known_at))
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
            self.gate.read_again()
        known.marker_once = reading.marker and not known.marker
        if came_out or not reading.marker:
            known.marker = reading.marker
        if not came_out or not isinstance(known.owner, int) or known.owner != self.referee.state.turn:
            return []
        return [self._unsatisfied(left, stamp) for left in self.referee.passed(known.owner)]

    def _lay_next(
        self, seen: Observation, analysis: TableAnalysis, number: int, known_at: int, stamp: _Stamp
    ) -> tuple[bool, list[Event]]:
        """The next tile new at a train's end, picked, judged and told; False where it was unsure (a
        redo is asked for once)."""
        assert seen.layout is not None and self.referee is not None
        known = self.trains[known_at]
        layout_train = seen.layout.trains[number]
        place = len(known.tiles)
        tile_id, inner_half = layout_train.tile_ids[place], layout_train.inner_halves[place]
        sighting = seen.tiles[tile_id]
        train_ref = known.owner
        unseen = self.referee.unseen(Tile(*pair) for train in self.trains for pair in train.tiles if pair is not None)
        first = not known.tiles and not self.referee.history  # the round's first tile: it tells the engine
        ends = set() if first or not (self.engine_known or known.tiles) else self._ends(known)
        ranked = candidates(sighting.pips, sighting.odds, inner_half, ends, unseen, self.config.pick)
        chosen = pick(ranked, self.config.pick)
        events: list[Event] = []
        if chosen is None:
            if (known_at, place) not in self.asked:
                self.asked.add((known_at, place))
                best = ", ".join(f"{c.inner}-{c.outer} ({c.share:.0%})" for c in ranked[:3]) or "nothing"
                events.append(stamp.event("redo", train=train_ref, message=(
                    f"a new tile on {_train_name(train_ref)} could not be told surely (likeliest: {best}): "
                    "please lay it again, flat and in full view"
                )))  # fmt: skip
            return False, events
        if first and chosen.inner != self.referee.state.engine:
            self._learn_engine(chosen.inner)  # a train's first tile matches the engine: a surer sign than its reading
        known.tiles.append((chosen.inner, chosen.outer))
        known.looks.append(self._look(seen, tile_id))
        self.suspect.pop((known_at, len(known.tiles)), None)
        tile = f"{chosen.inner}-{chosen.outer}"
        if train_ref is None:
            unjudged = "no seat map (--seats): whose train this is is unknown, the play is not judged"
            events.append(stamp.event("play", player=self.referee.state.turn, tile=tile, train=None, legal=None,
                                      reason=None, message=unjudged))  # fmt: skip
            return True, events
        player = self._seat_by_arm(sighting.corners)
        player = self.referee.who_played(train_ref) if player is None else player
        turn = self.referee.state.turn
        if (
            player == train_ref != turn
            and self.out_of_turn is not None
            and player == (self.out_of_turn + 1) % self.players
        ):
            self.referee.resync(player)  # two seats in a row played out of turn: the watch lost the turn, not they
        judged = self.referee.play(player, chosen.tile, train_ref)
        self.out_of_turn = player if judged.verdict.reason == "not_your_turn" and player == train_ref else None
        events += [self._unsatisfied(left, stamp) for left in judged.unsatisfied]
        verdict = judged.verdict
        events.append(stamp.event("play", player=player, tile=tile, train=train_ref, legal=verdict.legal,
                                  reason=verdict.reason, message=verdict.message))  # fmt: skip
        events += self._tile_flags(analysis, tile_id, judged.player, tile, train_ref, stamp)
        return True, events

    def _seat_by_arm(self, corners: np.ndarray) -> int | None:
        """The seat whose arm laid the tile at ``corners``: an arm whose hand reached the tile, and
        whose line from the hand out through the picture's edge points at the seat (the seats sit round
        the hub, past the picture's edge, in their slots' directions). None without a seat map or such
        an arm, or where two seats lie nearly as well along that line."""
        seats, arm = self._seats(), self.arm
        if arm is None or self.hub is None or seats is None:
            return None
        tile, hand, crossing, hub = (
            np.array(point) for point in (corners.mean(axis=0), arm.hand, arm.crossing, self.hub[:2])
        )
        if np.hypot(*(hand - tile)) > self.config.arm_at_tile * tile_length(corners) or arm.reach < 1.0:
            return None  # this arm laid something else (a tile not read then, a marker)
        out = crossing - hand
        reach = 2.5 * max(float(np.hypot(*(crossing - hub))), 4 * self.hub[2])
        off: list[tuple[float, int]] = []
        for angle, seat in seats.slots.items():
            if isinstance(seat, int):
                way = hub + reach * np.array([np.cos(np.radians(angle)), -np.sin(np.radians(angle))]) - hand
                cos = float(np.dot(out, way) / (np.hypot(*out) * np.hypot(*way)))
                off.append((float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))), seat))
        off.sort()
        if not off or off[0][0] > self.config.arm_seat_deg or (len(off) > 1 and off[1][0] - off[0][0] < 10.0):
            return None
        return off[0][1]

    def _look(self, seen: Observation, tile_id: int) -> TileLook | None:
        return None if self.grey is None else TileLook.of(self.grey, seen.tiles[tile_id].corners)

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
        look = known.looks[-1] if known.looks else None
        if look is not None and self.grey is not None and look.still_there(self.grey):
            self.suspect.pop(key, None)  # the reading missed a tile that is still there
            return []
        first = self.suspect.setdefault(key, stamp.frame)
        if stamp.frame - first < self.config.takeback_frames:
            self.gate.read_again()
            return []
        del self.suspect[key]
        pair = known.tiles.pop()
        if known.looks:
            known.looks.pop()
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
