"""``hubcam watch``: frames of a rendered table with a tile laid, hands passing and the camera moved,
through the stability gate, the table reader and the engine (issue 66). The frames are made here from
two renders of one scene, with the tile and without it (the lab's renderer: tests are not run time)."""

from __future__ import annotations

import copy
import json
from collections.abc import Container, Sequence

import cv2
import numpy as np
import pytest

from api.cli import main
from engine import Tile
from vision.plays import WatchReferee, candidates, pick, watch_rules
from vision.table_analysis import Seats, TableAnalysis
from vision.watch.motion import MotionGate
from vision.watch.watcher import Watcher, hand_inward

SEED, TRAIN = 1, 0
"""The scene (its trains: seats 0, 1, 2 and the Mexican train; double-9) and the train whose last tile is laid."""
SIZE = (1280, 720)


@pytest.fixture(scope="module")
def table():
    """(before, after, seats, highest, the tile laid as inner-outer): two renders of one scene, the
    train's last tile left out of the first, the camera the same."""
    from datasets.synth.photograph import render
    from datasets.synth.scene import make_scene
    from vision.table_reader import TableReader

    scene = make_scene("table", SEED)
    after, _ = render(scene, SIZE, clean=True)
    without = copy.deepcopy(scene)
    extent = scene.extent_mm()
    without.extent_mm = lambda: extent  # the camera frames the scene as with the tile
    laid = without.trains[TRAIN].tiles.pop()
    without.tiles[laid].centre_mm = (1e5, 1e5)  # far off the table: everything else renders as before
    before, _ = render(without, SIZE, clean=True)
    reader = TableReader(highest=scene.highest)
    analysis = TableAnalysis.of(reader(after), "after")
    seats = Seats({train.slot_angle: owner.owner for train, owner in zip(analysis.trains, scene.trains, strict=True)})
    inner = analysis.trains[TRAIN].pips[-1]
    return before, after, seats, scene.highest, reader, f"{inner[0]}-{inner[1]}"


def hand_over(frame: np.ndarray, where: float) -> np.ndarray:
    """``frame`` with a skin-coloured hand and forearm reaching in from the foot, ``where`` (0-1) across."""
    drawn = frame.copy()
    height, width = drawn.shape[:2]
    x, y = int(width * (0.1 + 0.8 * where)), int(height * 0.45)
    cv2.line(drawn, (x, y), (x + 220, height + 60), (105, 145, 200), 100)
    cv2.ellipse(drawn, (x, y), (95, 65), 30, 0, 360, (120, 160, 215), -1)
    return drawn


def passing(frame: np.ndarray, frames: int = 10) -> list[np.ndarray]:
    return [hand_over(frame, step / (frames - 1)) for step in range(frames)]


def shifted(frame: np.ndarray, dx: int = 70, dy: int = 40) -> np.ndarray:
    move = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(frame, move, (frame.shape[1], frame.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def stable_pictures(watcher: Watcher, count: int) -> list[dict]:
    """``count`` new stable pictures fed in turn, each after a hand passing (what is read in them is the
    watcher's reader's, readings made by hand): the events they made."""
    events = []
    for step in range(count):
        frame = np.full((120, 160, 3), 90 + 30 * step, np.uint8)
        frame[10 * step : 10 * step + 20, 10:30] = 250
        frames = [hand_over(frame, 0.5)] * 2 + [frame] * 4
        events += [event for index, shown in enumerate(frames) for event in watcher.feed(shown, 6 * step + index, 0)]
    return events


def watch(table, frames: list[np.ndarray]) -> list[dict]:
    _, _, seats, highest, reader, _ = table
    watcher = Watcher(reader, players=3, highest=highest, seats=seats, starter=TRAIN)
    return [event for index, frame in enumerate(frames) for event in watcher.feed(frame, index, index / 15)]


def test_a_tile_laid_is_one_play_told_once_the_hand_has_left(table):
    before, after, _, _, _, tile = table
    frames = [before] * 6 + passing(before) + [after] * 8
    events = watch(table, frames)
    assert [(e["event"], e["player"], e["tile"], e["train"], e["legal"]) for e in events] == [
        ("play", TRAIN, tile, TRAIN, True)
    ]
    left = 6 + 10  # the first frame without the hand
    assert left <= events[0]["frame"] <= left + 15  # within 1 s of video (15 frames/s)


def test_a_hand_passing_over_the_table_is_no_event(table):
    before, _, _, _, _, _ = table
    frames = [before] * 6 + passing(before) + [before] * 6 + passing(before, 6)[::-1] + [before] * 40
    assert watch(table, frames) == []


def test_a_tile_taken_back_is_a_takeback_not_a_crash(table):
    before, after, _, _, _, tile = table
    frames = [before] * 6 + passing(before) + [after] * 6 + passing(after) + [before] * 40
    events = watch(table, frames)
    assert [(e["event"], e["tile"]) for e in events] == [("play", tile), ("takeback", tile)]


def test_the_camera_moved_is_lost_then_the_table_is_found_again(table):
    before, after, _, _, _, tile = table
    frames = [before] * 6 + passing(before) + [shifted(before)] * 6 + passing(shifted(after)) + [shifted(after)] * 6
    events = watch(table, frames)
    assert [e["event"] for e in events] == ["lost", "play"]
    assert (events[1]["tile"], events[1]["train"], events[1]["legal"]) == (tile, TRAIN, True)


def test_the_gate_stays_quiet_for_a_still_table_and_flickering_light():
    gate = MotionGate()
    frame = np.random.default_rng(0).integers(60, 200, (480, 640, 3), dtype=np.uint8)
    frame = cv2.GaussianBlur(frame, (9, 9), 0)
    changes = [gate.feed(cv2.convertScaleAbs(frame, alpha=1.0 + 0.08 * (index % 2))) for index in range(80)]
    assert [index for index, change in enumerate(changes) if change is not None] == [3]  # the first stable picture


@pytest.mark.parametrize("arm", [(slice(50, 60), slice(40, 110)), (slice(95, 120), slice(60, 90))])
def test_a_hand_caught_at_rest_in_the_stable_picture_does_not_hold_every_later_change(arm):
    """The stable picture caught a forearm lying still (inside the picture, an arm by its length; or
    reaching in from its edge); it left, and hands keep passing every 20 frames: its place looks like
    an arm against each later picture, waited for over the passes together."""
    gate = MotionGate()
    grain = np.random.default_rng(0).integers(60, 120, (120, 160, 3), dtype=np.uint8)
    table = cv2.GaussianBlur(grain, (9, 9), 0)  # a cloth's grain: the picture is not taken to have shifted
    resting = table.copy()
    resting[arm] = 200
    assert [gate.feed(resting) is not None for _ in range(4)] == [False, False, False, True]
    gate.tell_tile(10.0, 160)
    passing_hand = table.copy()
    passing_hand[0:40, 0:40] = 220
    frames = ([passing_hand] * 2 + [table] * 18) * 5
    changes = [index for index, frame in enumerate(frames) if gate.feed(frame) is not None]
    assert changes  # a change counted: the resting hand waited for once, not after every pass


def test_generate_and_test_takes_the_reading_and_asks_again_when_unsure():
    unseen = [Tile(6, 4), Tile(4, 3), Tile(5, 3)]
    sure = np.zeros((2, 10))
    sure[0, 4], sure[1, 3] = 0.97, 0.9
    sure[1, 5] = 0.1
    best = pick(candidates((4, 3), sure, 0, {4}, unseen))
    assert best is not None and (best.inner, best.outer) == (4, 3)
    flipped = pick(candidates((3, 4), sure[::-1], 1, {4}, unseen))  # the inner half is the sighting's second
    assert flipped is not None and (flipped.inner, flipped.outer) == (4, 3)
    torn = np.zeros((2, 10))
    torn[0, 4], torn[1, 3], torn[1, 5] = 0.95, 0.5, 0.5
    assert pick(candidates((4, 3), torn, 0, {4}, [*unseen, Tile(5, 4)])) is None  # 4-3 or 4-5: ask again
    only = pick(candidates((4, 3), torn, 0, {4}, unseen))  # the 4-5 is on the table already: only 4-3 fits
    assert only is not None and only.tile == Tile(4, 3)
    assert pick(candidates((4, 3), None, 0, {4}, [Tile(5, 3)])) is None


def test_the_referee_judges_who_may_play_where():
    referee = WatchReferee.start(watch_rules(players=3, highest=9), engine=9, starter=0)
    assert referee.play(0, Tile(9, 4), 0).verdict.legal
    late = referee.play(2, Tile(9, 1), 2)  # seat 1 has no marker out: it cannot have passed unseen
    assert (late.player, late.verdict.reason) == (2, "not_your_turn")
    assert referee.passed(1) == []
    assert referee.play(2, Tile(9, 1), 2).verdict.legal
    double = referee.play(0, Tile(4, 4), 0)
    assert double.verdict.legal and referee.state.turn == 0  # a double calls for another tile
    assert referee.passed(0) == [(4, 0, 0)]  # the turn ends with it open: unsatisfied
    assert referee.take_back(Tile(4, 4), 0)  # undone, and the pass after it
    assert Tile(4, 4) not in referee.state.on_table and referee.state.turn == 0
    assert referee.take_back(Tile(9, 4), 0) is False  # not the last play: left as it is


def test_watch_reads_a_video_file_and_ends_with_the_state(table, tmp_path, capsys):
    before, after, seats, highest, _, tile = table
    video, seat_file, record = tmp_path / "round.mp4", tmp_path / "seats.json", tmp_path / "overlay.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 15, SIZE)
    for frame in [before] * 6 + passing(before) + [after] * 8:
        writer.write(frame)
    writer.release()
    slots = {str(angle): seat for angle, seat in seats.slots.items() if seat != "mexican"}
    mexican = next(angle for angle, seat in seats.slots.items() if seat == "mexican")
    seat_file.write_text(json.dumps({"slots": slots, "mexican": mexican}))
    argv = ["watch", "--video", str(video), "--players", "3", "--set", str(highest), "--seats", str(seat_file)]
    assert main([*argv, "--starter", str(TRAIN), "--json", "--record", str(record)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["event"], line.get("tile")) for line in lines] == [("play", tile), ("state", None)]
    assert lines[-1]["trains"][TRAIN]["pips"][-1] == [int(half) for half in tile.split("-")]
    assert cv2.VideoCapture(str(record)).get(cv2.CAP_PROP_FRAME_COUNT) == 24


@pytest.mark.parametrize("content", [None, b"not a video at all" * 100])
def test_a_video_that_cannot_be_read_is_a_one_line_error(tmp_path, capsys, content):
    video = tmp_path / "broken.mp4"
    if content is not None:
        video.write_bytes(content)
    assert main(["watch", "--video", str(video), "--json"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("hubcam watch: error: ") and str(video) in error and error.count("\n") == 1


def test_a_camera_that_cannot_be_opened_is_a_one_line_error(capsys):
    assert main(["watch", "--camera", "97"]) == 2
    error = capsys.readouterr().err
    assert "camera 97 cannot be opened" in error and error.count("\n") == 1


@pytest.mark.parametrize("scores", [(0.9, 0.9), (0.25, 0.15)])
def test_a_double_left_open_when_its_seat_passes_is_flagged(scores):
    """Readings made by hand (no renderer): the 9-4 on seat 0's train when the watch starts; seat 0
    lays the 4-4 on it, then its marker comes out (it drew and passed), seen on two readings running
    (once might be a knuckle; the second may score less, a small marker read weakly): its turn ended
    with the double open."""
    from vision.observation import Marker, Observation, Sighting
    from vision.trains import Hub, Layout
    from vision.trains import Train as LaidTrain

    def box(x: float) -> np.ndarray:
        return np.array([[x, 90], [x, 110], [x + 40, 110], [x + 40, 90]], np.float32)

    tiles = [Sighting(box(0), (9, 9)), Sighting(box(100), (9, 4)), Sighting(box(140), (4, 4))]

    def reading(laid: int, score: float | None = None) -> Observation:
        train = LaidTrain(0.0, tuple(range(1, 1 + laid)), (0,) * laid, None if score is None else 0)
        layout = Layout(Hub((20.0, 100.0), 50.0), 0, (train,) if laid else (), (), ())
        markers = () if score is None else (Marker(box(150) + 40, score),)
        return Observation(tuple(tiles[: 1 + laid]), 640, 480, layout=layout, flags=(), markers=markers)

    readings = iter([reading(1), reading(2), reading(2, scores[0]), reading(2, scores[1])])
    watcher = Watcher(lambda frame: next(readings), players=3, highest=9, seats=Seats({0.0: 0, 120.0: 1, 240.0: 2}))
    events = stable_pictures(watcher, 4)
    assert [(e["event"], e.get("kind"), e["tile"], e["player"]) for e in events] == [
        ("play", None, "4-4", 0),
        ("flag", "unsatisfied_double", "4-4", 0),
    ]
    assert events[0]["legal"] and events[0]["train"] == 0


def test_the_rounds_first_tile_tells_the_engine_for_every_train_after_it():
    """The engine 9-9 read once (too few readings to believe it); seat 0 lays 9-4 on its train; seat 1's
    first tile reads likelier 6 than 9 at its inner half: the engine the first tile matched says 9."""
    from vision.observation import Observation, Sighting
    from vision.trains import Hub, Layout
    from vision.trains import Train as LaidTrain

    def odds(inner: dict[int, float], outer: int) -> np.ndarray:
        halves = np.zeros((2, 10))
        for count, share in inner.items():
            halves[0, count] = share
        halves[1, outer] = 1.0
        return halves

    engine = Sighting(np.array([[300, 230], [300, 250], [340, 250], [340, 230]], np.float32), (9, 9))
    right = Sighting(
        np.array([[362, 250], [362, 230], [402, 230], [402, 250]], np.float32), (9, 4), odds=odds({9: 1}, 4)
    )
    left = Sighting(
        np.array([[278, 230], [278, 250], [238, 250], [238, 230]], np.float32), (6, 2), odds=odds({6: 0.7, 9: 0.3}, 2)
    )

    def reading(*laid: Sighting) -> Observation:
        trains = tuple(LaidTrain(angle, (at,), (0,), None) for at, angle in ((1, 0.0), (2, 180.0))[: len(laid)])
        layout = Layout(Hub((320.0, 240.0), 40.0), 0, trains, (), ())
        return Observation((engine, *laid), 640, 480, layout=layout, flags=())

    readings = iter([reading(), reading(right), reading(right, left)])
    watcher = Watcher(lambda frame: next(readings), players=2, highest=9, seats=Seats({0.0: 0, 180.0: 1}))
    events = stable_pictures(watcher, 3)
    assert [(e["event"], e["player"], e["tile"], e["train"], e["legal"]) for e in events] == [
        ("play", 0, "9-4", 0, True),
        ("play", 1, "9-2", 1, True),
    ]


def test_an_arm_resting_in_view_is_waited_for(table):
    """The hand rests, still, while the tile is set down: the picture with the arm in it is not read;
    the play is told once the arm has gone."""
    before, after, _, _, _, tile = table
    frames = [before] * 6 + passing(before, 6) + [hand_over(after, 0.5)] * 12 + [after] * 8
    events = watch(table, frames)
    assert [(e["event"], e["tile"]) for e in events] == [("play", tile)]
    assert events[0]["frame"] >= 6 + 6 + 12  # not before the arm left


def _hand_made(erased: Container[int] = (), sees: Sequence[bool] = (False,)) -> list[dict]:
    """Seat 0 lays the 4-4 on its 9-4; then the readings see it or miss it as ``sees`` says, in turn (the
    last for every reading after). The frames show the tiles as white boxes, a coin put down somewhere new
    each step (so each is a new stable picture); at the steps ``erased`` the 4-4 is gone from the frames."""
    from vision.observation import Observation, Sighting
    from vision.trains import Hub, Layout
    from vision.trains import Train as LaidTrain

    def box(x: float) -> np.ndarray:
        return np.array([[x, 90], [x, 110], [x + 40, 110], [x + 40, 90]], np.float32)

    tiles = [Sighting(box(0), (9, 9)), Sighting(box(100), (9, 4)), Sighting(box(140), (4, 4))]

    def reading(laid: int) -> Observation:
        train = LaidTrain(0.0, tuple(range(1, 1 + laid)), (0,) * laid, None)
        return Observation(
            tuple(tiles[: 1 + laid]), 200, 160, layout=Layout(Hub((20.0, 100.0), 50.0), 0, (train,), (), ())
        )

    readings = iter([reading(1), reading(2), *(reading(2 if seen else 1) for seen in sees)])
    after = reading(2 if sees[-1] else 1)
    watcher = Watcher(
        lambda frame: next(readings, after), players=3, highest=9, seats=Seats({0.0: 0, 120.0: 1, 240.0: 2})
    )
    events = []
    for step in range(4):
        frame = np.full((160, 200, 3), 90, np.uint8)
        for number, tile in enumerate(tiles[: 2 if step == 0 or step in erased else 3]):
            x0, y0 = tile.corners.min(axis=0).astype(int)
            x1, y1 = tile.corners.max(axis=0).astype(int)
            frame[y0:y1, x0:x1] = 230 - 20 * number
        frame[20:32, 30 + 30 * step : 42 + 30 * step] = 20  # the coin
        frames = [hand_over(frame, 0.5)] * 2 + [frame] * 20
        events += [event for index, shown in enumerate(frames) for event in watcher.feed(shown, 22 * step + index, 0)]
    return events


def test_a_reading_that_misses_a_tile_still_there_is_no_takeback():
    assert [(e["event"], e["tile"]) for e in _hand_made()] == [("play", "4-4")]


def test_a_tile_gone_from_its_place_is_a_takeback():
    assert [(e["event"], e["tile"]) for e in _hand_made(erased=(2, 3))] == [("play", "4-4"), ("takeback", "4-4")]


def test_a_tile_seen_again_in_its_place_between_two_misses_is_not_taken_back():
    """A shadow or a hand darkens the 4-4's place while a reading misses it; the next reading sees it
    again, and a later one misses it in the shadow once more: two misses, but not a take-back."""
    sees = (False, True, False, True)
    assert [(e["event"], e["tile"]) for e in _hand_made(erased=(2, 3), sees=sees)] == [("play", "4-4")]


def test_the_arm_that_laid_a_tile_tells_whose_seat_reached_in():
    """Seats round the hub in their slots' directions; an arm from the foot of the picture whose hand
    reached the new tile was seat 3's (its slot at 270 degrees: down the picture)."""
    from vision.watch.motion import Arm

    watcher = Watcher(lambda frame: None, players=4, highest=12, seats=Seats({0.0: 0, 90.0: 1, 180.0: 2, 270.0: 3}))
    watcher.hub = (640.0, 360.0, 50.0)
    tile = np.array([[620, 480], [660, 480], [660, 500], [620, 500]], np.float32)
    watcher.arm = Arm(crossing=(650.0, 719.0), hand=(645.0, 500.0))
    assert watcher._seat_by_arm(tile) == 3
    watcher.arm = Arm(crossing=(1279.0, 380.0), hand=(700.0, 490.0))  # in from the right: seat 0's side
    assert watcher._seat_by_arm(tile) == 0
    watcher.arm = Arm(crossing=(650.0, 719.0), hand=(645.0, 650.0))  # the hand never came near the tile
    assert watcher._seat_by_arm(tile) is None
    # a forearm ending inside the picture, its end nearer the edge the hand (the gate's guess): the
    # end nearer the hub is the hand, so it came in from the right
    watcher.arm = hand_inward(Arm(crossing=(700.0, 490.0), hand=(1150.0, 400.0), at_edge=False), watcher.hub)
    assert watcher._seat_by_arm(tile) == 0


def test_tiles_seen_too_small_are_told_once_as_advice(table):
    before, _, _, _, reader, _ = table
    for frame, small in ((before, False), (cv2.resize(before, (640, 360), interpolation=cv2.INTER_AREA), True)):
        watcher = Watcher(reader, players=3, highest=9)
        for index in range(6):
            watcher.feed(frame, index, index / 15)
        assert (watcher.advice is not None) == small, watcher.advice
    assert watcher.advice is not None and "move the camera closer" in watcher.advice


def test_an_arm_ending_inside_the_picture_is_waited_for_once_tiles_are_known():
    """A sleeve that blends into the table leaves a forearm that ends inside the picture: once the
    gate knows the tiles' size, so long a change is an arm (before that, only one at the edge is)."""

    def arm_in(frame: np.ndarray) -> np.ndarray:
        drawn = frame.copy()
        cv2.line(drawn, (300, 300), (700, 500), (60, 120, 200), 40)
        return drawn

    table = np.random.default_rng(0).integers(195, 201, (720, 1280, 3)).astype(np.uint8)
    seen = []
    for tile_px in (0.0, 24.0):
        gate = MotionGate()
        if tile_px:
            gate.tell_tile(tile_px, 1280)
        for _ in range(5):
            gate.feed(table)
        seen.append([gate.feed(frame) is not None for frame in [arm_in(table)] * 8])
    assert any(seen[0]) and not any(seen[1])


def test_a_seat_that_plays_out_of_turn_takes_the_turn_with_the_markers_seen():
    referee = WatchReferee.start(watch_rules(players=3, highest=9), engine=9, starter=0)
    referee.resync(2, markers={0: False, 1: False})  # seats 0 and 1 played unseen, or passed behind no marker
    assert referee.state.turn == 2
    assert not any(train.marker for train in referee.state.trains[:3])  # the Mexican train keeps its own
    assert referee.play(2, Tile(9, 1), 2).verdict.legal
    assert referee.play(0, Tile(1, 5), 2).verdict.reason == "train_not_eligible"


def test_a_misread_play_mended_is_judged_again_with_the_plays_after_it():
    referee = WatchReferee.start(watch_rules(players=2, highest=9), engine=9, starter=0)
    assert referee.play(0, Tile(9, 4), 0).verdict.legal
    assert referee.play(1, Tile(9, 2), 1).verdict.legal
    assert referee.amend(Tile(9, 4), Tile(9, 6), 0)
    assert referee.open_end(0) == 6 and referee.open_end(1) == 2 and referee.state.turn == 0
    assert referee.amend(Tile(9, 8), Tile(9, 7), 0) is False  # never laid


def test_a_tile_judged_illegal_and_then_built_on_is_taken_as_laid():
    referee = WatchReferee.start(watch_rules(players=2, highest=9), engine=9, starter=0)
    assert referee.play(0, Tile(9, 3), 0).verdict.legal
    assert referee.play(1, Tile(3, 4), 0).verdict.reason == "train_not_eligible"  # its marker missed, say
    assert referee.open_end(0) == 3 and referee.state.turn == 1
    assert not referee.built_on(0, [(9, 5), (5, 4)])  # not where the engine's train begins
    assert not referee.built_on(0, [(9, 3)])  # nothing left out
    assert not referee.built_on(0, [(9, 3), None])  # a tile not known
    assert not referee.built_on(0, [(9, 3), (3, 9)])  # a tile on the table elsewhere (the engine)
    assert referee.built_on(0, [(9, 3), (3, 4)])  # a tile laid past it: the players took it
    assert referee.open_end(0) == 4 and referee.state.turn == 1 and Tile(3, 4) in referee.state.on_table
    assert referee.play(1, Tile(9, 2), 1).verdict.legal and referee.play(0, Tile(4, 2), 0).verdict.legal


def test_a_tile_laid_after_a_misread_one_mends_it_rather_than_being_flagged():
    """Seat 0's 9-6 on the Mexican train is read 9-4 (its outer half unsure between 4 and 6); seat 1
    lays the 6-2 after it, its inner half surely a 6: the 9-4 was a 9-6, and the 6-2 is legal."""
    from vision.observation import Observation, Sighting
    from vision.trains import Hub, Layout
    from vision.trains import Train as LaidTrain

    def box(x: float) -> np.ndarray:
        return np.array([[x, 90], [x, 110], [x + 40, 110], [x + 40, 90]], np.float32)

    def odds(inner: dict[int, float], outer: dict[int, float]) -> np.ndarray:
        halves = np.zeros((2, 10), np.float32)
        for half, shares in enumerate((inner, outer)):
            for count, share in shares.items():
                halves[half, count] = share
        return halves

    tiles = [
        Sighting(box(0), (9, 9)),
        Sighting(box(100), (9, 4), odds=odds({9: 1.0}, {4: 0.7, 6: 0.3})),
        Sighting(box(142), (6, 2), odds=odds({6: 1.0}, {2: 1.0})),
    ]

    def reading(laid: int) -> Observation:
        layout = Layout(Hub((20.0, 100.0), 50.0), 0, (LaidTrain(0.0, tuple(range(1, 1 + laid)), (0,) * laid),), (), ())
        return Observation(tuple(tiles[: 1 + laid]), 640, 480, layout=layout, flags=())

    readings = iter([reading(0), reading(1), reading(2)])
    seats = Seats({0.0: "mexican", 120.0: 0, 240.0: 1})
    watcher = Watcher(lambda frame: next(readings), players=2, highest=9, seats=seats)
    events = []
    for step in range(3):
        frame = np.full((120, 160, 3), 90, np.uint8)
        frame[20:40, 10 + 40 * step : 30 + 40 * step] = 250
        frames = [hand_over(frame, 0.5)] * 2 + [frame] * 4
        events += [event for index, shown in enumerate(frames) for event in watcher.feed(shown, 6 * step + index, 0)]
    assert [(e["tile"], e["player"], e["legal"]) for e in events] == [("9-4", 0, True), ("6-2", 1, True)]
    assert watcher.trains[0].tiles == [(9, 6), (6, 2)]


def test_the_table_is_read_where_it_is_played_and_put_back_in_the_frame():
    """Once the hub and the tiles' size are known, the reader gets the part of the frame round them
    (the detector sees small tiles larger), and what it saw is put back in the frame's pixels; the
    whole frame where no hub was found in that part."""
    from vision.observation import Observation, Sighting
    from vision.trains import Hub, Layout

    box = np.array([[10, 10], [10, 20], [30, 20], [30, 10]], np.float32)
    given: list[tuple[int, ...]] = []

    def reader(frame: np.ndarray) -> Observation:
        given.append(frame.shape)
        return Observation(
            (Sighting(box, (3, 3)),),
            frame.shape[1],
            frame.shape[0],
            layout=Layout(Hub((20.0, 15.0), 8.0), 0, (), (), ()),
        )

    watcher = Watcher(reader, players=2, highest=9)
    frame = np.zeros((720, 1280, 3), np.uint8)
    assert watcher._read(frame).tiles[0].corners.tolist() == box.tolist()  # nothing known yet: the whole frame
    watcher.look_whole, watcher.hub, watcher.gate.tile_px = False, (640.0, 360.0, 30.0), 20.0
    seen = watcher._read(frame)
    height, width = given[-1][:2]
    assert width < 400 and height < 400
    (x0, y0), (dx, dy) = seen.tiles[0].corners[0], box[0]
    assert seen.layout is not None and seen.layout.hub is not None
    assert (seen.width, seen.height) == (1280, 720)
    assert seen.layout.hub.centre == (20.0 + x0 - dx, 15.0 + y0 - dy)
    assert abs(x0 - dx + width / 2 - 640) <= 1 and abs(y0 - dy + height / 2 - 360) <= 1  # round the hub


def test_a_far_hub_missed_in_the_whole_frame_is_looked_for_in_squares():
    """A whole wide frame that shows no hub (a far camera's small hub) is looked at again in squares."""
    from vision.observation import Observation, Sighting
    from vision.trains import Hub, Layout

    box = np.array([[10, 10], [10, 20], [30, 20], [30, 10]], np.float32)
    given: list[tuple[int, ...]] = []

    def reader(frame: np.ndarray) -> Observation:
        given.append(frame.shape)
        hub = Hub((300.0, 340.0), 30.0) if frame.shape[:2] == (720, 720) and len(given) == 3 else None
        return Observation(
            (Sighting(box, (3, 3)),), frame.shape[1], frame.shape[0], layout=Layout(hub, None, (), (), ())
        )

    watcher = Watcher(reader, players=2, highest=9)
    frame = np.zeros((720, 1280, 3), np.uint8)
    seen = watcher._read(frame)  # the whole frame, then squares of it: the second (280 px in) shows the hub
    assert [shape[:2] for shape in given] == [(720, 1280), (720, 720), (720, 720)]
    assert seen.layout is not None and seen.layout.hub == Hub((580.0, 340.0), 30.0)
    assert (seen.width, seen.height) == (1280, 720)


def test_a_resync_tells_the_doubles_the_skipped_turns_left_open_and_keeps_markers_out():
    """Seat 0 lays the 4-4 and passes unseen behind its marker (out since an earlier pass); seat 1 is
    seen playing: seat 0's turn ended with the double open. A reading that misses seat 0's marker does
    not take it in: only seat 0's play on its own train does."""
    referee = WatchReferee.start(watch_rules(players=3, highest=9), engine=9, starter=0)
    assert referee.play(0, Tile(9, 4), 0).verdict.legal
    referee.passed(1)
    referee.passed(2)  # seats 1 and 2 pass, their markers out
    assert referee.play(0, Tile(4, 4), 0).verdict.legal and referee.state.turn == 0
    assert referee.resync(1, markers={0: False}) == [(4, 0, 0)]
    assert referee.state.turn == 1 and referee.state.trains[0].marker is False  # it had no marker: closed
    referee.passed(1)
    referee.resync(0, markers={2: False})  # seat 2 passed unseen, its marker missed by the reading
    assert referee.state.trains[2].marker and referee.unmarked_before(1) == 1
    fresh = WatchReferee.start(watch_rules(players=3, highest=9), engine=9, starter=0)
    fresh.resync(2, markers={1: False})  # seat 0's train not seen yet: its pass put its marker out
    assert [train.marker for train in fresh.state.trains[:3]] == [True, False, False]
    assert fresh.who_played(0, marker_seen=None) == 0  # no marker ever seen by it: its own first tile
    assert fresh.who_played(0, marker_seen=False) == 2  # seat 1 has no marker out: seat 2 laid it


def test_a_tile_on_an_open_train_is_the_turns_unless_its_owner_may_have_been_reached_unseen():
    """Seat 2's train is open (it passed). A tile on it is seat 0's, whose turn it is, where seat 0 or 1
    has no marker out (it cannot have passed unseen) or seat 2's marker is still seen by it (seat 2's
    own play takes it off); else seat 2's, the seats before it having passed behind their markers."""
    referee = WatchReferee.start(watch_rules(players=3, highest=9), engine=9, starter=2)
    referee.passed(2)
    assert referee.state.turn == 0 and referee.who_played(2) == 0 and referee.who_played("mexican") == 0
    closed = WatchReferee.start(watch_rules(players=3, highest=9), engine=9, starter=0)
    assert closed.who_played(2) == 2  # a closed train: its owner, the turn lost
    referee.passed(0)
    referee.passed(1)
    referee.passed(2)
    assert referee.who_played(2) == 2 and referee.who_played(2, marker_seen=True) == 0
    assert referee.played_last(2) is False


def test_a_tile_elsewhere_while_the_turns_double_is_open_ends_that_turn():
    """Readings made by hand: seat 0 lays the 4-4 on its train, then a tile appears on the Mexican train.
    Seat 0 had to cover its double first: it drew and passed unseen (its marker out already, or missed),
    so seat 0's turn ended with the double open, and the tile is seat 1's (who had to cover it too)."""
    from vision.observation import Observation, Sighting
    from vision.trains import Hub, Layout
    from vision.trains import Train as LaidTrain

    def box(x: float) -> np.ndarray:
        return np.array([[x, 90], [x, 110], [x + 40, 110], [x + 40, 90]], np.float32)

    tiles = [Sighting(box(300), (9, 9)), Sighting(box(400), (9, 4)), Sighting(box(440), (4, 4))]
    tiles.append(Sighting(np.array([[240, 90], [240, 110], [200, 110], [200, 90]], np.float32), (9, 3)))

    def reading(laid: int, mexican: bool = False) -> Observation:
        trains = [LaidTrain(0.0, tuple(range(1, 1 + laid)), (0,) * laid)]
        if mexican:
            trains.append(LaidTrain(180.0, (3,), (0,)))
        shown = tiles[: 1 + laid] + tiles[3:] if mexican else tiles[: 1 + laid]
        layout = Layout(Hub((320.0, 100.0), 50.0), 0, tuple(trains), (), ())
        return Observation(tuple(shown), 640, 480, layout=layout, flags=())

    readings = iter([reading(1), reading(2), reading(2, mexican=True)])
    watcher = Watcher(lambda frame: next(readings), players=2, highest=9, seats=Seats({0.0: 0, 180.0: "mexican"}))
    events = stable_pictures(watcher, 3)
    assert [(e["event"], e["tile"], e["player"], e.get("reason")) for e in events] == [
        ("play", "4-4", 0, None),
        ("flag", "4-4", 0, None),
        ("play", "9-3", 1, "must_satisfy_double"),
    ]


def test_a_marker_seen_out_of_turn_is_a_lost_turn_a_misreading_or_an_open_train():
    """After the plays of a reading, a marker come out on a seat's train whose turn it is not: the seats
    before it passed unseen where at most one of them has no marker out; not where its own turn was
    spent on a play since (a misreading by its new tile); else its train is open, the turn kept."""
    from vision.watch.watcher import _Stamp

    watcher = Watcher(lambda frame: None, players=4, highest=9)
    watcher.referee = WatchReferee.start(watch_rules(players=4, highest=9), engine=9, starter=0)
    assert watcher.referee.play(0, Tile(9, 4), 0).verdict.legal
    assert watcher._passes([0], _Stamp(1, 0.0), late=True) == [] and watcher.referee.state.turn == 1
    assert not watcher.referee.state.trains[0].marker  # seat 0 played: its marker is a misreading
    watcher._passes([3], _Stamp(2, 0.0), late=True)  # seats 1 and 2 with no marker: not lost that far
    assert watcher.referee.state.turn == 1 and watcher.referee.state.trains[3].marker
    watcher._passes([2], _Stamp(3, 0.0), late=True)  # seat 1 passed unseen (its marker missed), then seat 2
    assert watcher.referee.state.turn == 3 and watcher.referee.state.trains[2].marker


def test_several_tiles_new_at_once_are_taken_in_turn_order_without_the_arm():
    """Seat 0's turn: a tile new on seat 1's train and one on the Mexican train. The Mexican one is seat
    0's, then seat 1's on its own; the arm seen laid one of them only, so it tells neither."""
    watcher = Watcher(lambda frame: None, players=2, highest=9)
    watcher.referee = WatchReferee.start(watch_rules(players=2, highest=9), engine=9, starter=0)
    assert sorted([1, "mexican"], key=lambda owner: watcher._turn_order(owner, 0)) == ["mexican", 1]
    assert sorted([0, "mexican"], key=lambda owner: watcher._turn_order(owner, 0)) == [0, "mexican"]
