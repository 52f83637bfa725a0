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
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from engine import MEXICAN, Tile
from vision.flags import FlagKind
from vision.geometry import square_within, tile_length
from vision.observation import Observation, Reason
from vision.plays import PICK_CONFIG, PickConfig, WatchReferee, candidates, pick, watch_rules
from vision.table_analysis import Seats, TableAnalysis, too_small
from vision.trains import Train
from vision.watch.looks import TileLook, table_grey
from vision.watch.motion import MOTION_CONFIG, Arm, Change, MotionConfig, MotionGate
from vision.watch.places import (
    JOIN_TILES,
    ODDS_FLOOR,
    centre,
    fused,
    gap,
    inner_first,
    inner_half,
    open_end,
    oriented,
    same_place,
)

Event = dict[str, Any]
Reader = Callable[[np.ndarray], Observation]

TILE_FLAGS = frozenset({FlagKind.DUPLICATE_TILE, FlagKind.OUT_OF_SET})
"""RULES.md 8's flags told as a tile is laid. An illegal join is the play's own verdict, an open double
is told when the turn ends, and an unsure reading asks for a redo."""

NOT_A_TILE = frozenset(
    {Reason.FOUND_UNSURELY, Reason.ODD_SHAPE, Reason.PART_OF_TILE, Reason.ACROSS_TWO, Reason.OTHER_POSE, Reason.ON_HUB}
)
"""Boxes that may be no new tile at all: not looked for at a train's open end."""


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
    arm_seat_deg: float = 25.0
    """The arm's line must point this near a seat to tell who laid a tile (and 10 degrees nearer than
    at any other seat); else the engine's turn tells."""
    arm_at_tile: float = 3.0
    """An arm that came no nearer a new tile than this many tile lengths (from the edge to its hand)
    did not lay it..."""
    hand_at_tile: float = 4.5
    """...nor one whose hand (its point farthest in, or its shadow's) ended farther from it than this.
    The gate sees the arm small (160-480 px across the frame): its line and hand are a tile or two off
    where fingers hold a tile at arm's length (2 and 3 missed 4 illegal plays of 36 on the held-out
    rounds; 3 and 4.5 changed nothing on the tuning rounds: benchmarks/HISTORY.md)."""
    engine_readings: int = 3
    """Stable pictures that must read the engine alike before it is believed: one reading of a small
    double is often off by a few pips."""
    mend_ratio: float = 4.0
    """A train's last tile is read again when a tile is laid after it: its outer end is mended where the
    two readings together name another number this many times likelier than the one reported."""
    play_margin_tiles: float = 3.0
    """The table is read in the part of the frame round the hub and the known tiles, this many tile
    lengths wider on each side (room for the trains to grow, and new ones)..."""
    whole_share: float = 0.7
    """...unless that part is this share of the frame's longer side or more: then the whole frame."""
    redo_readings: int = 3
    """Readings of a new tile, its odds combined, that must all be unsure before a redo is asked for."""
    marker_least: float = 0.2
    """A marker box scoring this or more stands by its train: a marker believed wrongly opens the train
    to every seat (``train_not_eligible`` unseen) and makes a pass; 0.97 of such boxes were right on the
    tuning tables (benchmarks/results/markers.md), against 0.74 at ``hubcam analyze``'s 0.05."""
    marker_kept: float = 0.1
    """...and a box scoring this or more, where the reading before saw a marker by the train: a marker
    read weakly (a small cube, 0.16-0.22) is seen again, and a pass it tells is not missed."""
    lost_turns: int = 1
    """A marker come out on the train of a seat whose turn it is not says the watcher lost the turn, and the
    seats before it passed unseen, where at most this many of them have no marker out (a pass shows
    one): else the train is taken to be open, and the turn kept."""
    takeback_frames: int = 15
    """A train read one tile short is a take-back once read so again at least this many frames later.
    A train read more than one tile short, or gone, is a reading that missed tiles (a hand resting on
    them, a poor frame): the tiles are kept, and a play is never taken back on one reading."""
    scan_gain: float = 1.5
    """A frame whose whole shows no hub is looked at again in squares that show it at least this much
    larger (a wide frame's height-high squares: 1.78 times at 16:9); a squarer frame is not."""


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
    marker_sighted: bool = False
    """Whether any reading saw a marker by it (else it is open only where its owner was taken to pass)."""
    looks: list[TileLook | None] = field(default_factory=list)
    """How each tile's place looked when it was accepted (None: unknown, as after the camera moved)."""
    places: list[np.ndarray | None] = field(default_factory=list)
    """Each tile's corners as last seen, its inner end's first (None: unknown, as after the camera
    moved): the next tile is looked for at the last one's open end."""
    odds: list[np.ndarray | None] = field(default_factory=list)
    """Each tile's halves' odds as (inner, outer), over every reading that saw it in its place."""


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
    pending: dict[int, _Pending] = field(init=False, default_factory=dict)
    """By train, the new tile at its end not told surely yet, as read so far."""
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
    engine_odds: np.ndarray | None = field(init=False, default=None)
    """The engine's number's odds over every reading of it (both its halves show it): weighed with the
    round's first tile's inner half, which must match it."""
    anchor: np.ndarray | None = field(init=False, default=None)
    """The gate's small frame when the hub was last placed: a hub read elsewhere on a picture that did
    not move is a misreading, not the camera moved."""
    look_whole: bool = field(init=False, default=True)
    """Whether the next reading is of the whole frame (the last one found no hub in the play's part)."""
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
        self.arm = hand_inward(change.arm, self.hub)
        seen = self._read(frame_bgr)
        self.grey = table_grey(frame_bgr)
        self.look_whole = not _hub_read(seen)
        if self.look_whole:
            self.gate.read_again()  # no hub in sight (a hand resting over it? moved?): read all again once quiet
            return []
        events: list[Event] = []
        length = float(np.median([tile_length(tile.corners) for tile in seen.tiles])) if seen.tiles else 0.0
        if length:
            self.gate.tell_tile(length, frame_bgr.shape[1])
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
        self._engine_seen(seen)
        analysis = TableAnalysis.of(seen, stamp.name, self._seats())
        if self.referee is None:
            self._acquire(seen, analysis)
        else:
            self._engine_read(analysis)
            events += self._compare(seen, analysis, length, stamp)
        self.seen, self.analysis = seen, analysis
        return events

    def _read(self, frame_bgr: np.ndarray) -> Observation:
        """The table read where it is played (``_play_region``): the detector sees small tiles larger.
        Until the hub is first placed, where the whole frame shows none, it is looked for in squares of it
        (``hub_scan``); once placed, a hub unseen is a hand over it or the table moved, not too small."""
        height, width = frame_bgr.shape[:2]
        region = None if self.look_whole else self._play_region(width, height)
        if region is None:
            seen = self.reader(frame_bgr)
            return seen if _hub_read(seen) or self.hub is not None else self._scan_for_hub(frame_bgr, seen)
        x0, y0, x1, y1 = region
        return self.reader(frame_bgr[y0:y1, x0:x1]).moved(x0, y0, width, height)

    def _scan_for_hub(self, frame_bgr: np.ndarray, whole: Observation) -> Observation:
        """The first square of the frame (``hub_scan``) read with a hub in it, else ``whole``: a far
        camera's hub is too small for the detector in the whole of a wide frame."""
        height, width = frame_bgr.shape[:2]
        for x0, y0, x1, y1 in hub_scan(width, height, self.config.scan_gain):
            seen = self.reader(frame_bgr[y0:y1, x0:x1])
            if _hub_read(seen):
                return seen.moved(x0, y0, width, height)
        return whole

    def _play_region(self, width: int, height: int) -> tuple[int, int, int, int] | None:
        """The part ``(x0, y0, x1, y1)`` of the frame round the hub and the tiles known, with room for
        the trains to grow, as a square where it fits; None (the whole frame) until they are known, or
        where it is most of the frame."""
        length = self.gate.tile_px
        if self.hub is None or length <= 0:
            return None
        x, y, radius = self.hub
        corners = [np.array([[x - radius, y - radius], [x + radius, y + radius]])]
        corners += [place for train in self.trains for place in train.places if place is not None]
        points = np.concatenate(corners).astype(np.float64)
        margin = self.config.play_margin_tiles * length
        low, high = points.min(axis=0) - margin, points.max(axis=0) + margin
        side = float((high - low).max())
        if side >= self.config.whole_share * max(width, height):
            return None
        return square_within(low, high, side, (width, height))

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
        assert seen.layout is not None
        self.trains = []
        for reading, laid in zip(analysis.trains, seen.layout.trains, strict=True):
            ends = list(zip(reading.tile_ids, laid.inner_halves, strict=True))
            self.trains.append(
                KnownTrain(
                    reading.slot_angle,
                    reading.owner,
                    list(reading.pips),
                    self._marked(seen, laid),
                    looks=[self._look(seen, tile_id) for tile_id in reading.tile_ids],
                    places=[inner_first(seen.tiles[tile_id].corners, inner) for tile_id, inner in ends],
                    odds=[oriented(seen.tiles[tile_id].odds, inner) for tile_id, inner in ends],
                )
            )
        firsts = [train.tiles[0][0] for train in self.trains if train.tiles and train.tiles[0] is not None]
        if firsts:
            self._learn_engine(max(set(firsts), key=firsts.count))
        else:
            self._learn_engine(self.highest if analysis.engine is None else analysis.engine[0], known=False)
            self._engine_read(analysis)

    def _engine_seen(self, seen: Observation) -> None:
        assert seen.layout is not None
        odds = None if seen.layout.engine is None else seen.tiles[seen.layout.engine].odds
        if odds is not None:
            both = (odds[0] + ODDS_FLOOR) * (odds[1] + ODDS_FLOOR)
            self.engine_odds = fused(self.engine_odds, both / both.sum())

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
            train.places = [None] * len(train.tiles)
            train.odds = [None] * len(train.tiles)
        self.suspect.clear()

    def _compare(self, seen: Observation, analysis: TableAnalysis, length: float, stamp: _Stamp) -> list[Event]:
        """What changed against the trains accepted so far (``length``: the tiles' median length)."""
        assert seen.layout is not None and self.referee is not None
        events: list[Event] = []
        read_as: list[int] = []
        """The known train of each train read."""
        came_out: list[int] = []
        """The seats whose markers came out on this reading."""
        for number, reading in enumerate(analysis.trains):
            known_at = self._known(reading.slot_angle)
            if known_at is None:
                self.trains.append(KnownTrain(reading.slot_angle, reading.owner, []))
                known_at = len(self.trains) - 1
            read_as.append(known_at)
            known = self.trains[known_at]
            known.slot_angle, known.owner = reading.slot_angle, reading.owner
            if self._marker(known, seen, seen.layout.trains[number]) and isinstance(known.owner, int):
                came_out.append(known.owner)
        events += self._passes(came_out, stamp)  # the pass of the seat whose turn it is, then plays
        placed = self._follow_places(seen, length)
        for known in self.trains:
            for at in range(len(known.tiles)):
                self._mend(known, at)
        readings = dict(zip(read_as, range(len(read_as)), strict=True))
        for number, known_at in enumerate(read_as):
            if len(analysis.trains[number].pips) < len(self.trains[known_at].tiles):
                events += self._shorter(known_at, len(analysis.trains[number].pips), stamp)
        growing = [
            known_at
            for known_at in range(len(self.trains))
            if self._next_tile(seen, readings.get(known_at), known_at, placed, length) is not None
        ]
        if len(growing) != 1 or self._several_new(analysis, readings, growing[0]):
            self.arm = None  # the arm laid one tile at most: which, is not known
        while growing:  # several tiles new at once (plays missed, or laid quickly): in turn order
            turn = self.referee.state.turn
            known_at = min(growing, key=lambda at: self._turn_order(self.trains[at].owner, turn))
            found = self._next_tile(seen, readings.get(known_at), known_at, placed, length)
            if found is None:
                growing.remove(known_at)
                continue
            laid, told = self._lay_next(seen, analysis, known_at, *found, stamp)
            events += told
            if not laid and self.trains[known_at].owner == turn:
                self.gate.read_again()
                break  # the seat whose turn it is laid a tile not read yet: the others' come after it
            if not laid:
                growing.remove(known_at)
            else:
                placed.add(found[0])
        for known_at, known in enumerate(self.trains):
            if known_at not in read_as and known.tiles:
                events += self._shorter(known_at, 0, stamp)
        return events + self._passes(came_out, stamp, late=True)

    def _several_new(self, analysis: TableAnalysis, readings: dict[int, int], known_at: int) -> bool:
        """Whether the reading of a known train holds two tiles or more past the known ones."""
        number = readings.get(known_at)
        return number is not None and len(analysis.trains[number].pips) > len(self.trains[known_at].tiles) + 1

    def _turn_order(self, owner: int | str | None, turn: int) -> tuple[int, bool]:
        """Where a tile new on ``owner``'s train comes among several new at once: by the seat taken to
        have laid it (before the arm is looked at), from the seat whose turn it is; its own train first."""
        assert self.referee is not None
        known = next((train for train in self.trains if train.owner == owner), None)
        seat = self.referee.who_played(owner, _marker_seen(known)) if isinstance(owner, int) else turn
        return (seat - turn) % self.players, owner != turn

    def _passes(self, came_out: list[int], stamp: _Stamp, late: bool = False) -> list[Event]:
        """The passes the markers come out (``came_out``, seats) tell, taken off the list as told: the
        seat whose turn it is passed (and the next, where its marker came out too). ``late``: after this
        reading's plays, a marker come out on another seat's train says that seat passed, the seats
        before it too (unseen): the watcher lost the turn."""
        assert self.referee is not None
        events: list[Event] = []
        while self.referee.state.turn in came_out:
            seat = self.referee.state.turn
            came_out.remove(seat)
            events += [self._unsatisfied(left, stamp) for left in self.referee.passed(seat)]
        if not late:
            return events
        turn = self.referee.state.turn
        for seat in sorted(came_out, key=lambda seat: (seat - turn) % self.players):
            if self.referee.played_last(seat):
                continue  # its turn was spent on a play: a marker misread by its train's new tile
            if self.referee.unmarked_before(seat) > self.config.lost_turns:
                self.referee.open_train(seat)  # the turn is not lost that far: the marker is out, whoever passed
                continue
            left = self.referee.resync(seat, self._markers_seen()) + self.referee.passed(seat)
            events += [self._unsatisfied(each, stamp) for each in left]
        came_out.clear()
        return events

    def _markers_seen(self) -> dict[int, bool]:
        """Whether each seat's marker was seen on the last reading."""
        return {train.owner: train.marker or train.marker_once for train in self.trains if isinstance(train.owner, int)}

    def _follow_places(self, seen: Observation, length: float) -> set[int]:
        """Each known tile's place moved to the tile seen there (the camera shakes, a tile is nudged);
        the ids of the tiles seen where a known tile lies, and of the engine."""
        placed = set() if seen.layout is None or seen.layout.engine is None else {seen.layout.engine}
        for known_at, train in enumerate(self.trains):
            for at, place in enumerate(train.places):
                if place is None:
                    continue
                near = [
                    (float(np.hypot(*(centre(tile.corners) - centre(place)))), tile_id)
                    for tile_id, tile in enumerate(seen.tiles)
                    if tile_id not in placed and same_place(tile.corners, place, length)
                ]
                if near:
                    tile_id = min(near)[1]
                    placed.add(tile_id)
                    tile = seen.tiles[tile_id]
                    inner = inner_half(tile.corners, (place[0] + place[1]) / 2)
                    train.places[at] = inner_first(tile.corners, inner)
                    train.odds[at] = fused(train.odds[at], oriented(tile.odds, inner))
                    self.suspect.pop((known_at, at), None)  # seen in its place again: not taken back
        return placed

    def _next_tile(
        self,
        seen: Observation,
        number: int | None,
        known_at: int,
        placed: set[int],
        length: float,
    ) -> tuple[int, int] | None:
        """The tile seen new at a known train's open end, and its inner half: the one touching its last
        tile's open end; else the next in the train as read (number: the reading of that train), where
        the reading holds the known tiles. None where no new tile is seen there."""
        assert seen.layout is not None and self.hub is not None
        known = self.trains[known_at]
        last = known.places[-1] if known.places else None
        if last is not None:
            before = known.places[-2] if len(known.places) > 1 else None
            end = open_end(last, self.hub[:2] if before is None else centre(before))
            touching = [
                (gap(tile.corners, end), tile_id)
                for tile_id, tile in enumerate(seen.tiles)
                if tile_id not in placed
                and tile.reason not in NOT_A_TILE
                and 0.6 <= tile_length(tile.corners) / length <= 1.6
                and gap(tile.corners, end) <= JOIN_TILES * length
                and np.dot(centre(tile.corners) - end, end - centre(last)) > 0  # beyond the end, not beside
            ]
            if touching:
                tile_id = min(touching)[1]
                return tile_id, inner_half(seen.tiles[tile_id].corners, end)
        if number is None:
            return None
        layout_train, place = seen.layout.trains[number], len(known.tiles)
        if len(layout_train.tile_ids) <= place or layout_train.tile_ids[place] in placed:
            return None
        if place and last is not None and layout_train.tile_ids[place - 1] not in placed:
            return None  # the reading's train is not the known one up to here
        return layout_train.tile_ids[place], layout_train.inner_halves[place]

    def _known(self, slot_angle: float) -> int | None:
        reach = self.config.slot_reach_deg
        near = [(abs(_apart_signed(t.slot_angle, slot_angle)), at) for at, t in enumerate(self.trains)]
        close = [item for item in near if item[0] <= reach]
        return min(close)[1] if close else None

    def _marker(self, known: KnownTrain, seen: Observation, train: Train) -> bool:
        """Whether a marker came out on a seat's train on this reading: seen surely (``marker_least``) on
        two readings running, by a train the engine has no marker on (a marker already out, seen again
        after a reading that missed it, is no new pass). A marker seen once asks for another reading soon."""
        assert self.referee is not None
        marked = self._marked(seen, train, known.marker or known.marker_once)
        came_out = marked and known.marker_once and not known.marker
        if marked and not known.marker and not known.marker_once:
            self.gate.read_again()
        known.marker_once = marked and not known.marker
        known.marker_sighted = known.marker_sighted or marked
        if came_out or not marked:
            known.marker = marked
        if not came_out or not isinstance(known.owner, int) or not 0 <= known.owner < self.players:
            return False
        return not self.referee.state.trains[known.owner].marker

    def _marked(self, seen: Observation, train: Train, seen_before: bool = False) -> bool:
        """Whether a marker stands by the train: a box scoring ``marker_least``, or ``marker_kept`` where
        the reading before saw one there (``seen_before``)."""
        least = self.config.marker_kept if seen_before else self.config.marker_least
        return train.marker is not None and seen.markers[train.marker].confidence >= least

    def _lay_next(
        self, seen: Observation, analysis: TableAnalysis, known_at: int, tile_id: int, inner: int, stamp: _Stamp
    ) -> tuple[bool, list[Event]]:
        """The tile new at a train's end (``inner``: its half at the train's end), picked, judged and
        told; False where it is unsure yet: it is read again soon, its odds combined with the earlier
        readings of it, and a redo is asked for (once) where ``redo_readings`` readings were unsure."""
        assert seen.layout is not None and self.referee is not None
        known = self.trains[known_at]
        place = len(known.tiles)
        sighting = seen.tiles[tile_id]
        odds = oriented(sighting.odds, inner)
        pips = None if sighting.pips is None else (sighting.pips[inner], sighting.pips[1 - inner])
        readings = 1
        earlier = self.pending.get(known_at)
        if earlier is not None and same_place(earlier.corners, sighting.corners, tile_length(sighting.corners)):
            odds, readings = fused(earlier.odds, odds), earlier.readings + 1
        if known.tiles and odds is not None:
            self._mend(known, len(known.tiles) - 1, odds[0])
        train_ref = known.owner
        unseen = self.referee.unseen(Tile(*pair) for train in self.trains for pair in train.tiles if pair is not None)
        first = not known.tiles and not self.referee.history  # the round's first tile: it tells the engine
        if first and not self.engine_known and odds is not None and self.engine_odds is not None:
            odds = np.stack([fused(odds[0], self.engine_odds), odds[1]])  # type: ignore[arg-type]
        ends = set() if first or not (self.engine_known or known.tiles) else self._ends(known)
        ranked = candidates(pips, odds, 0, ends, unseen, self.config.pick)
        chosen = pick(ranked, self.config.pick)
        events: list[Event] = []
        if chosen is None:
            self.pending[known_at] = _Pending(sighting.corners, odds, readings)
            self.gate.read_again()
            if readings >= self.config.redo_readings and (known_at, place) not in self.asked:
                self.asked.add((known_at, place))
                best = ", ".join(f"{c.inner}-{c.outer} ({c.share:.0%})" for c in ranked[:3]) or "nothing"
                events.append(stamp.event("redo", train=train_ref, message=(
                    f"a new tile on {_train_name(train_ref)} could not be told surely (likeliest: {best}): "
                    "please lay it again, flat and in full view"
                )))  # fmt: skip
            return False, events
        if first:  # a train's first tile matches the engine: a surer sign than its reading, and known from now
            self._learn_engine(chosen.inner)
        known.tiles.append((chosen.inner, chosen.outer))
        known.looks.append(self._look(seen, tile_id))
        known.places.append(inner_first(sighting.corners, inner))
        known.odds.append(odds)
        self.pending.pop(known_at, None)
        self.suspect.pop((known_at, len(known.tiles)), None)
        tile = f"{chosen.inner}-{chosen.outer}"
        if train_ref is None:
            unjudged = "no seat map (--seats): whose train this is is unknown, the play is not judged"
            events.append(stamp.event("play", player=self.referee.state.turn, tile=tile, train=None, legal=None,
                                      reason=None, message=unjudged))  # fmt: skip
            return True, events
        player = self._seat_by_arm(sighting.corners)
        marker_seen = _marker_seen(known)
        if player is None and self.referee.who_played(train_ref, marker_seen) == self.referee.state.turn:
            if self.referee.must_cover_elsewhere(train_ref):  # its double open elsewhere: its turn ended unseen
                events += [self._unsatisfied(left, stamp) for left in self.referee.passed(self.referee.state.turn)]
        player = self.referee.who_played(train_ref, marker_seen) if player is None else player
        if player != self.referee.state.turn:
            left = self.referee.resync(player, self._markers_seen())  # passes behind markers out are unseen
            events += [self._unsatisfied(each, stamp) for each in left]
        self.referee.built_on(train_ref, known.tiles[:-1])  # a tile laid past one judged illegal: it was taken
        judged = self.referee.play(player, chosen.tile, train_ref)
        events += [self._unsatisfied(left, stamp) for left in judged.unsatisfied]
        verdict = judged.verdict
        events.append(stamp.event("play", player=player, tile=tile, train=train_ref, legal=verdict.legal,
                                  reason=verdict.reason, message=verdict.message))  # fmt: skip
        events += self._tile_flags(analysis, tile_id, judged.player, tile, train_ref, stamp)
        return True, events

    def _mend(self, known: KnownTrain, at: int, evidence: np.ndarray | None = None) -> None:
        """A tile's outer end read again: by the readings since it was laid, and by ``evidence``, the
        inner half of a tile laid after it (on a legal train they are alike). Where they name another
        number much more surely than the one reported, the tile was misread and is mended, in the
        engine too, before a tile laid after it is judged by it. Sure readings that disagree with a
        new tile are left as they are: an illegal play."""
        assert self.referee is not None
        pair, odds = known.tiles[at], known.odds[at]
        if pair is None or odds is None or (evidence is not None and evidence.shape != odds[1].shape):
            return
        outer = odds[1] + ODDS_FLOOR
        if evidence is not None:
            outer = outer * (evidence + ODDS_FLOOR)
        best = int(np.argmax(outer))
        if best == pair[1] or best > self.highest or outer[best] < self.config.mend_ratio * outer[pair[1]]:
            return
        mended = Tile(pair[0], best)
        taken = {Tile(*laid) for train in self.trains for laid in train.tiles if laid is not None}
        if mended in taken or mended in self.referee.state.on_table:
            return
        known.tiles[at] = (pair[0], best)
        if known.owner is not None:
            self.referee.amend(Tile(*pair), mended, known.owner)

    def _seat_by_arm(self, corners: np.ndarray) -> int | None:
        """The seat whose arm laid the tile at ``corners``: an arm that reached the tile, whose line from
        the hand out through the picture's edge points at the seat (the seats sit round the hub, past the
        picture's edge, in their slots' directions). None without a seat map or such an arm, or where two
        seats lie nearly as well along that line."""
        seats, arm = self._seats(), self._arm_at(corners)
        if arm is None or self.hub is None or seats is None:
            return None
        crossing, hand, hub = np.array(arm.crossing), np.array(arm.hand), np.array(self.hub[:2])
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

    def _arm_at(self, corners: np.ndarray) -> Arm | None:
        """The arm of this change where it reached over or near the tile at ``corners``, from the edge to
        the hand (else it laid something else: a tile not read then, a marker)."""
        arm = self.arm
        if arm is None or arm.reach < 1.0:
            return None
        tile, crossing, hand = corners.mean(axis=0), np.array(arm.crossing), np.array(arm.hand)
        along = float(np.clip(np.dot(tile - crossing, hand - crossing) / arm.reach**2, 0.0, 1.0))
        length = tile_length(corners)
        if np.hypot(*(crossing + along * (hand - crossing) - tile)) > self.config.arm_at_tile * length:
            return None
        if np.hypot(*(hand - tile)) > self.config.hand_at_tile * length:
            return None  # it passed the tile on its way farther in
        return arm

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
        if known.places:
            known.places.pop()
        if known.odds:
            known.odds.pop()
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
class _Pending:
    """A new tile read unsurely so far: where it lies, and its halves' odds (inner, outer) over the
    ``readings`` that saw it there."""

    corners: np.ndarray
    odds: np.ndarray | None
    readings: int


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


def hub_scan(width: int, height: int, least_gain: float) -> list[tuple[int, int, int, int]]:
    """The squares ``(x0, y0, x1, y1)`` a wide (or tall) frame is looked through for its hub: as high
    (wide) as the frame, at its start, middle and end; none where they would show it less than
    ``least_gain`` times larger.

    >>> hub_scan(1280, 720, 1.5)
    [(0, 0, 720, 720), (280, 0, 1000, 720), (560, 0, 1280, 720)]
    >>> hub_scan(640, 480, 1.5)
    []
    """
    side, longest = min(width, height), max(width, height)
    if longest / side < least_gain:
        return []
    starts = [0, (longest - side) // 2, longest - side]
    if width >= height:
        return [(start, 0, start + side, side) for start in starts]
    return [(0, start, side, start + side) for start in starts]


def hand_inward(arm: Arm | None, hub: tuple[float, float, float] | None) -> Arm | None:
    """An arm seen inside the picture (by its length: its sleeve fades into the table before the edge)
    with its hand at the end nearer the hub: the players sit round the table, so an arm reaches in
    towards the hub, and the end nearer the picture's edge, the gate's guess at where it comes from,
    may be its hand.

    >>> arm = Arm(crossing=(500.0, 170.0), hand=(1090.0, 420.0), at_edge=False)
    >>> hand_inward(arm, (640.0, 360.0, 50.0)).hand
    (500.0, 170.0)
    """
    if arm is None or arm.at_edge or hub is None:
        return arm
    centre = np.array(hub[:2])
    if np.hypot(*(np.array(arm.hand) - centre)) <= np.hypot(*(np.array(arm.crossing) - centre)):
        return arm
    return replace(arm, crossing=arm.hand, hand=arm.crossing)


def _hub_read(seen: Observation) -> bool:
    return seen.layout is not None and seen.layout.hub is not None


def _marker_seen(known: KnownTrain | None) -> bool | None:
    """Whether the last reading saw a marker by a train; None where no reading ever did."""
    if known is None or not known.marker_sighted:
        return None
    return known.marker or known.marker_once


def _outer(tiles: list[tuple[int, int] | None]) -> int | None:
    return None if tiles[-1] is None else tiles[-1][1]


def _train_name(train: int | str | None) -> str:
    if train is None:
        return "a train of unknown owner"
    return "the Mexican train" if train == MEXICAN else f"seat {train}'s train"


def _apart_signed(a: float, b: float) -> float:
    """``a - b`` in degrees, in [-180, 180)."""
    return (a - b + 180.0) % 360.0 - 180.0
