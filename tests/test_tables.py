"""Reading a table: following trains (geometry), the flags (the bridge), scoring it, ``hubcam analyze``."""

from __future__ import annotations

import doctest
import importlib
import json
import math
from dataclasses import FrozenInstanceError

import cv2
import numpy as np
import pytest

from api.cli import main
from api.cli.read import analysis_text
from benchmarks.eval.metrics import score_image
from benchmarks.eval.tables import _inside
from datasets.real import label_from_json
from datasets.synth.scene import make_scene, render
from models import COUNTER, DETECTOR, TABLE_DETECTOR
from vision.flags import Flag, FlagKind
from vision.geometry import tile_length
from vision.observation import Marker, Observation, Reason, Sighting
from vision.reconcile import table_flags, with_rules_prior
from vision.table_analysis import Seats, TableAnalysis
from vision.table_reader import read_table, square_on_matrix
from vision.trains import Hub, Layout, TableConfig, Train, follow_trains, on_hub

LENGTH, WIDTH = 40.0, 20.0


def tile_at(x: float, y: float, degrees: float) -> np.ndarray:
    """A 40x20 tile centred at (x, y) whose pips[0] end points away from ``degrees`` (image axes)."""
    angle = math.radians(degrees)
    axis, normal = np.array([math.cos(angle), math.sin(angle)]), np.array([-math.sin(angle), math.cos(angle)])
    centre = np.array([x, y])
    start, end = centre - axis * LENGTH / 2, centre + axis * LENGTH / 2
    return np.array([start + normal * WIDTH / 2, start - normal * WIDTH / 2, end - normal * WIDTH / 2,
                     end + normal * WIDTH / 2], np.float32)  # fmt: skip


def hub_with_trains() -> tuple[list[np.ndarray], list[bool]]:
    """An engine at (200, 200); a train of two going right, one going down through a crosswise double
    and on, and a tile pointing up at the hub; a loose tile far off."""
    tiles = [
        tile_at(200, 200, 30),  # 0: the engine, at a slant in its recess
        tile_at(270, 200, 0),  # 1: right, first (inner end at 250)
        tile_at(311, 200, 0),  # 2: right, second
        tile_at(200, 270, 90),  # 3: down, first
        tile_at(200, 301, 0),  # 4: a double across the end of 3
        tile_at(200, 332, 90),  # 5: on past the double
        tile_at(200, 130, -90),  # 6: up, alone
        tile_at(600, 600, 45),  # 7: loose
    ]
    return tiles, [True, False, False, False, True, False, False, False]


def test_trains_are_followed_from_the_engine_through_crosswise_doubles():
    layout = follow_trains(*hub_with_trains())
    assert layout.engine == 0
    assert sorted(train.tile_ids for train in layout.trains) == [(1, 2), (3, 4, 5), (6,)]
    assert layout.loose == (7,)
    assert layout.hub is not None and layout.hub.radius == pytest.approx(50, abs=2)


def test_a_train_goes_on_in_line_past_a_double_laid_off_centre_and_across_gaps():
    """The double across the end of the down train sits 12 px (0.3 of its length) to one side, and the
    tiles lie 5 px (a quarter of a width) apart: the train is one, and goes on in line with itself."""
    tiles, doubles = hub_with_trains()
    tiles[4] = tile_at(212, 306, 0)  # the double: shifted sideways, 5 px past the end of tile 3
    tiles[5] = tile_at(200, 342, 90)  # on past it, in line with tile 3, 5 px past the double's far side
    layout = follow_trains(tiles, doubles)
    assert (3, 4, 5) in [train.tile_ids for train in layout.trains]


STEEP = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.002, 1.0]])
"""A camera looking down steeply from below the image: the far (upper) tiles look half the size of the near."""


def seen_steeply(quad: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(quad, np.float64)[None], STEEP)[0].astype(np.float32)


def test_a_steep_photo_is_followed_on_the_table_seen_square_on():
    tiles, doubles = hub_with_trains()
    photo = [seen_steeply(quad) for quad in tiles]
    layout = follow_trains(photo, doubles, plane=np.linalg.inv(STEEP))
    assert sorted(train.tile_ids for train in layout.trains) == [(1, 2), (3, 4, 5), (6,)]
    assert layout.hub is not None and layout.hub.centre == pytest.approx(photo[0].mean(axis=0), abs=1e-3)
    down = photo[3].mean(axis=0) - photo[0].mean(axis=0)  # the angles are the photo's
    angle = math.degrees(math.atan2(-down[1], down[0])) % 360
    assert next(train.slot_angle for train in layout.trains if train.tile_ids[0] == 3) == pytest.approx(angle, abs=0.1)
    hub = Hub(tuple(seen_steeply(np.array([[200.0, 200.0]] * 4))[0]), 20.0)
    assert follow_trains(photo, doubles, hub, plane=np.linalg.inv(STEEP)).hub == hub


def test_the_table_is_seen_square_on_only_where_the_photo_is_slanted():
    tiles, _ = hub_with_trains()
    assert square_on_matrix(tiles) is None
    matrix = square_on_matrix([seen_steeply(quad) for quad in tiles])
    assert matrix is not None
    back = [cv2.perspectiveTransform(seen_steeply(quad)[None].astype(np.float64), matrix)[0] for quad in tiles]
    sides = np.array([[np.linalg.norm(quad[i] - quad[(i + 1) % 4]) for i in range(4)] for quad in back])
    assert sides[:, 1] / sides[:, 0] == pytest.approx(2.0, rel=0.02)  # 2:1 rectangles again
    assert np.median(sides[:, 1]) == pytest.approx(np.median([tile_length(seen_steeply(q)) for q in tiles]), rel=0.05)


def test_slot_angles_are_counter_clockwise_from_the_right_as_seen():
    layout = follow_trains(*hub_with_trains())
    angles = {train.tile_ids[0]: train.slot_angle for train in layout.trains}
    assert angles == {1: 0.0, 6: 90.0, 3: 270.0}  # image y grows downward: "up" is 90 degrees


def test_inner_halves_face_the_hub():
    tiles, doubles = hub_with_trains()
    tiles[1] = tiles[1][[2, 3, 0, 1]]  # turned round: its pips[1] end faces the hub now
    train = next(train for train in follow_trains(tiles, doubles).trains if train.tile_ids[0] == 1)
    assert train.inner_halves == (1, 0)


def test_a_hub_seen_gives_the_engine_and_trains_however_few():
    tiles, doubles = hub_with_trains()
    hub = Hub((200.0, 200.0), 50.0)
    alone = follow_trains([tiles[0], tiles[1], tiles[2]], doubles[:3], hub)  # one train: told by the hub
    assert alone.engine == 0 and [train.tile_ids for train in alone.trains] == [(1, 2)]
    assert alone.hub == hub
    no_engine = follow_trains(tiles[1:3], doubles[1:3], hub)  # the engine not found: the train still is
    assert no_engine.engine is None and [train.tile_ids for train in no_engine.trains] == [(0, 1)]


def test_boxes_on_a_hub_seen_are_left_out_as_the_hubs_marks():
    tiles, doubles = hub_with_trains()
    rim_mark = tile_at(200 - 45, 200, 90)  # a notch of the hub's rim taken for a tile, found unsurely
    inner_mark = tile_at(200, 200 + 30, 0)  # something drawn on the hub, found surely
    corners = [*tiles, rim_mark, inner_mark]
    sightings = [Sighting(quad, (1, 2)) for quad in tiles]
    sightings += [Sighting(rim_mark, (0, 0), 0.3, Reason.FOUND_UNSURELY), Sighting(inner_mark, (3, 4))]
    hub = Hub((200.0, 200.0), 50.0)
    assert on_hub(corners, hub, [tile.reason is Reason.FOUND_UNSURELY for tile in sightings]) == [8, 9]
    assert on_hub(corners, hub, [False] * len(corners)) == [9]  # a sure box at the rim may be a first tile
    reading = read_table(Observation(tuple(sightings), 400, 400, hub=hub), highest=12)
    assert [reading.tiles[index].reason for index in (8, 9)] == [Reason.ON_HUB, Reason.ON_HUB]
    assert reading.layout is not None and reading.layout.engine == 0
    assert not any(set(flag.tiles) & {8, 9} for flag in reading.flags or ())


def test_a_double_in_a_line_of_play_is_no_engine():
    line = [tile_at(20, 0, 0), tile_at(60, 0, 0), tile_at(101, 0, 0)]
    layout = follow_trains(line, [True, False, False])
    assert layout.engine is None and layout.hub is None
    assert layout.chains == ((0, 1, 2),) or layout.chains == ((2, 1, 0),)


def test_a_line_of_play_turns_square_corners():
    # right along y=0, then down from the side of the last tile's end, then on
    line = [tile_at(20, 0, 0), tile_at(60, 0, 0), tile_at(70, 30, 90), tile_at(70, 71, 90)]
    layout = follow_trains(line, [False] * 4)
    assert layout.chains in (((0, 1, 2, 3),), ((3, 2, 1, 0),))


def test_one_train_alone_is_not_told_from_a_line_of_play():
    tiles, doubles = hub_with_trains()
    layout = follow_trains([tiles[0], tiles[1], tiles[2]], doubles[:3])
    assert layout.engine is None


def seen(*pips: tuple[int, int] | None, unsure: set[int] = frozenset()) -> list[Sighting]:  # type: ignore[assignment]
    corners = np.zeros((4, 2), np.float32)
    return [
        Sighting(corners, value, reason=Reason.READ_UNSURE if index in unsure else None)
        for index, value in enumerate(pips)
    ]


def kinds(flags):
    return [(flag.kind.value, flag.train, flag.index, list(flag.tiles)) for flag in flags]


@pytest.mark.parametrize(
    ("pips", "train", "expected"),
    [
        ([(9, 9), (9, 4), (4, 11)], (1, 2), []),
        ([(9, 9), (4, 9), (9, 11)], (1, 2), [("illegal_join", 0, 0, [1])]),  # the 9 faces outward
        ([(9, 9), (9, 4), (5, 11)], (1, 2), [("illegal_join", 0, 1, [1, 2])]),
        ([(9, 9), (9, 4), (4, 4)], (1, 2), [("unsatisfied_double", 0, 1, [2])]),
        ([(9, 9), (9, 4), (4, 4), (4, 2)], (1, 2, 3), []),
    ],
)
def test_flags_of_a_train(pips, train, expected):
    layout = Layout(None, 0, (Train(0.0, train, (0,) * len(train)),), (), ())
    assert kinds(table_flags(seen(*pips), layout, highest=12)) == expected


def test_a_train_read_from_its_outer_end_is_judged_from_its_inner_end():
    layout = Layout(None, 0, (Train(0.0, (1,), (1,)),), (), ())
    assert table_flags(seen((9, 9), (4, 9)), layout, highest=12) == []


def test_an_unsure_tile_is_flagged_unreadable_and_its_joins_are_not_judged():
    layout = Layout(None, 0, (Train(0.0, (1, 2), (0, 0)),), (), ())
    flags = table_flags(seen((9, 9), (3, 4), (5, 11), unsure={1}), layout, highest=12)
    assert kinds(flags) == [("unreadable_tile", 0, 0, [1])]
    assert "could not be read" in flags[0].message


def test_a_tile_seen_twice_and_a_tile_above_the_set_are_flagged():
    layout = Layout(None, None, (), (), (0, 1, 2))
    flags = table_flags(seen((3, 5), (5, 3), (13, 2)), layout, highest=12)
    assert kinds(flags) == [("out_of_set", None, None, [2]), ("duplicate_tile", None, None, [0, 1])]


def test_boxes_that_are_no_tile_take_no_part():
    corners = np.zeros((4, 2), np.float32)
    tiles = [Sighting(corners, (3, 5)), Sighting(corners, (3, 5), reason=Reason.ODD_SHAPE)]
    assert table_flags(tiles, Layout(None, None, (), (), (0,)), highest=12) == []


def test_a_doubted_box_off_the_trains_and_lines_is_no_flag_but_one_in_a_train_is():
    corners = np.zeros((4, 2), np.float32)
    doubted = Sighting(corners, (3, 5), 0.3, Reason.FOUND_UNSURELY)
    tiles = [Sighting(corners, (9, 9)), doubted, doubted, Sighting(corners, (2, 6), 0.9, Reason.READ_UNSURE)]
    layout = Layout(None, 0, (Train(0.0, (1,), (0,)),), (), (2, 3))
    flags = table_flags(tiles, layout, highest=12)
    assert kinds(flags) == [("unreadable_tile", 0, 0, [1]), ("unreadable_tile", None, None, [3])]
    in_a_line = Layout(None, 0, (Train(0.0, (1,), (0,)),), ((2,),), (3,))
    assert [flag.tiles for flag in table_flags(tiles, in_a_line, highest=12)] == [(1,), (2,), (3,)]


def read_as(*halves: dict[int, float]) -> Sighting:
    """A tile whose halves the counter read with these probabilities (the rest spread evenly)."""
    odds = np.full((2, 19), 1e-4, np.float32)
    for side, probabilities in enumerate(halves):
        for count, probability in probabilities.items():
            odds[side, count] = probability
    pips = (int(odds[0].argmax()), int(odds[1].argmax()))
    unsure = min(odds.max(axis=1)) < 0.4
    return Sighting(np.zeros((4, 2), np.float32), pips, float(min(odds.max(axis=1))),
                    Reason.READ_UNSURE if unsure else None, odds=odds)  # fmt: skip


ENGINE_AND_TRAIN = Layout(None, 0, (Train(0.0, (1, 2), (0, 0)),), (), ())


def test_the_rules_prior_settles_a_half_read_close_between_counts():
    tiles = [read_as({14: 0.99}, {14: 0.99}), read_as({17: 0.5, 14: 0.45}, {3: 0.99}), read_as({3: 0.99}, {8: 0.99})]
    assert kinds(table_flags(tiles, ENGINE_AND_TRAIN, highest=18)) == [("illegal_join", 0, 0, [1])]
    revised = with_rules_prior(tiles, ENGINE_AND_TRAIN)
    assert [tile.pips for tile in revised] == [(14, 14), (14, 3), (3, 8)]
    assert table_flags(revised, ENGINE_AND_TRAIN, highest=18) == []


def test_the_rules_prior_leaves_a_tile_read_unsurely_unreadable():
    tiles = [read_as({14: 0.99}, {14: 0.99}), read_as({17: 0.35, 14: 0.3}, {3: 0.99}), read_as({3: 0.99}, {8: 0.99})]
    revised = with_rules_prior(tiles, ENGINE_AND_TRAIN)
    assert revised[1].pips == (14, 3) and revised[1].reason is Reason.READ_UNSURE
    assert kinds(table_flags(revised, ENGINE_AND_TRAIN, highest=18)) == [("unreadable_tile", 0, 0, [1])]


def test_the_rules_prior_never_explains_away_a_confident_mismatch():
    tiles = [read_as({14: 0.99}, {14: 0.99}), read_as({14: 0.99}, {3: 0.98, 5: 0.02}), read_as({5: 0.99}, {8: 0.99})]
    revised = with_rules_prior(tiles, ENGINE_AND_TRAIN)
    assert [tile.pips for tile in revised] == [(14, 14), (14, 3), (5, 8)]
    assert kinds(table_flags(revised, ENGINE_AND_TRAIN, highest=18)) == [("illegal_join", 0, 1, [1, 2])]


def test_the_rules_prior_reads_the_engine_from_the_trains_that_start_at_it():
    layout = Layout(None, 0, tuple(Train(0.0, (tile,), (0,)) for tile in (1, 2, 3)), (), ())
    tiles = [read_as({15: 0.5, 12: 0.4}, {12: 0.5, 15: 0.4})] + [read_as({12: 0.99}, {n: 0.99}) for n in (1, 2, 3)]
    assert with_rules_prior(tiles, layout)[0].pips == (12, 12)


def test_a_labelled_line_is_found_inside_a_line_read_either_way_round():
    assert _inside((3, 4), [(1, 2, 3, 4, 5)])
    assert _inside((4, 3), [(1, 2, 3, 4, 5)])
    assert not _inside((3, 5), [(1, 2, 3, 4, 5)])


@pytest.mark.parametrize("seed", [0, 3, 8, 11, 13])
def test_a_rendered_table_read_on_its_labelled_corners_and_pips_is_scored_right(seed):
    image, data = render(make_scene("table", seed), (1280, 960), clean=True)
    label = label_from_json({**data, "image": "table.jpg"}, __import__("pathlib").Path("table.jpg"), "synthetic")
    tiles = tuple(
        Sighting(tile.corners, tile.pips, reason=Reason.BEYOND_FRAME if tile.unreadable else None)
        for tile in label.tiles
    )
    markers = tuple(Marker(np.array(marker["corners"], np.float32), 1.0) for marker in label.extra["markers"])
    reading = read_table(Observation(tiles, label.width, label.height, markers=markers), label.extra["set"])
    score = score_image(label, reading).table
    assert score is not None and score.engine_right and score.hub_found and score.trains_right
    assert score.flags == {kind: (right, right, right) for kind, (right, _, _) in score.flags.items()}
    assert score.markers == (len(markers), len(markers), len(markers))
    result = TableAnalysis.of(reading, "table.jpg").to_json()
    assert sum(train["marker"] is True for train in result["trains"]) == len(markers)
    assert all(train["marker"] is False for train in result["trains"] if train["marker"] is not True)
    assert all(marker["train"] is not None for marker in result["markers"])
    assert TableAnalysis.from_json(json.loads(json.dumps(result))) == TableAnalysis.of(reading, "table.jpg")


def test_a_seat_map_names_owners_and_a_bad_one_is_refused():
    seats = Seats.from_json({"slots": {"0": 1, "120": 2}, "mexican": 240})
    assert [seats.owner(angle) for angle in (350.0, 125.0, 250.0)] == [1, 2, "mexican"]
    with pytest.raises(ValueError, match="seat map"):
        Seats.from_json({"slots": [0, 1]})


def test_the_table_config_is_changed_by_name_with_a_did_you_mean():
    assert TableConfig().replace(end_gap=0.3).end_gap == 0.3
    with pytest.raises(ValueError, match="unknown setting 'end_gpa' \\(did you mean 'end_gap'\\?\\)"):
        TableConfig().replace(end_gpa=0.3)
    with pytest.raises(FrozenInstanceError):
        TableConfig().end_gap = 0.3  # type: ignore[misc]


def test_train_following_goes_by_its_config():
    tiles, doubles = hub_with_trains()
    assert follow_trains(tiles, doubles).engine == 0  # three trains start at the engine
    assert follow_trains(tiles, doubles, config=TableConfig(least_trains=4)).engine is None
    apart = follow_trains(tiles, doubles, config=TableConfig(end_gap=0.0, side_gap=0.0))
    assert sorted(train.tile_ids for train in apart.trains) == [(1,), (3,), (6,)]  # no tile touches another


def test_the_table_reader_follows_trains_by_its_config():
    image, data = render(make_scene("table", 3), (1280, 960), clean=True)
    label = label_from_json({**data, "image": "table.jpg"}, __import__("pathlib").Path("table.jpg"), "synthetic")
    tiles = tuple(Sighting(tile.corners, tile.pips) for tile in label.tiles)
    markers = tuple(Marker(np.array(marker["corners"], np.float32), 1.0) for marker in label.extra["markers"])
    seen = Observation(tiles, label.width, label.height, markers=markers)
    assert markers and any(train.marker is not None for train in read_table(seen, None).layout.trains)
    unmarked = read_table(seen, None, config=TableConfig(marker_reach=0.0)).layout
    assert all(train.marker is None for train in unmarked.trains)


def test_a_flag_round_trips_and_a_bad_one_is_refused():
    flag = Flag(FlagKind.DUPLICATE_TILE, None, None, (0, 1), "the 3-5 is seen twice (tiles 1 and 2)")
    assert flag.to_json() == {"kind": "duplicate_tile", "train": None, "index": None, "tiles": [0, 1],
                              "message": "the 3-5 is seen twice (tiles 1 and 2)"}  # fmt: skip
    assert Flag.from_json(json.loads(json.dumps(flag.to_json()))) == flag
    with pytest.raises(ValueError, match="unknown flag kind 'ilegal_join'"):
        Flag.from_json({**flag.to_json(), "kind": "ilegal_join"})
    with pytest.raises(ValueError, match="lacks message"):
        Flag.from_json({"kind": "out_of_set", "train": None, "index": None, "tiles": [2]})


def small_table() -> Observation:
    """The table of ``hub_with_trains`` read: an open double at the end of the first train, a join that
    does not match (the 5-2 after the 3-3 down the last), an unsure tile loose, and a marker."""
    tiles, doubles = hub_with_trains()
    pips = [(6, 6), (6, 4), (4, 4), (6, 3), (3, 3), (5, 2), (6, 1), (9, 6)]
    sightings = tuple(
        Sighting(corners, value, 0.35 if index == 7 else 0.9, Reason.READ_UNSURE if index == 7 else None)
        for index, (corners, value) in enumerate(zip(tiles, pips, strict=True))
    )
    marker = Marker(np.array([[340, 210], [340, 220], [350, 220], [350, 210]], np.float32), 0.8)  # past 4-4's end
    return read_table(Observation(sightings, 640, 480, markers=(marker,)), 12)


def test_a_table_analysis_has_the_json_the_page_reads_and_round_trips():
    analysis = TableAnalysis.of(
        small_table(), "table.jpg", Seats.from_json({"slots": {"0": 1, "180": 2}, "mexican": 270})
    )
    result = analysis.to_json()
    assert list(result) == ["image", "width", "height", "tile_px", "advice", "hub", "engine", "tiles", "trains",
                            "chains", "loose", "markers", "flags"]  # fmt: skip
    assert result["tile_px"] == pytest.approx(np.median([tile_length(tile.corners) for tile in small_table().tiles]))
    assert result["advice"].startswith(f"tiles are {result['tile_px']:.0f} px long: too small")  # drawn small
    assert result["hub"] == {"center": [200.0, 200.0], "radius": pytest.approx(50, abs=2)}
    assert result["engine"] == [6, 6] and result["loose"] == [7]
    trains = {tuple(train["tile_ids"]): train for train in result["trains"]}
    assert trains[(1, 2)] == {"slot_angle": 0.0, "owner": 1, "tile_ids": [1, 2], "pips": [[6, 4], [4, 4]],
                              "open_end": 4, "marker": True}  # fmt: skip
    assert trains[(3, 4, 5)]["owner"] == "mexican" and trains[(3, 4, 5)]["open_end"] == 2
    assert trains[(6,)]["owner"] is None and trains[(6,)]["pips"] == [[6, 1]]
    assert [marker["train"] for marker in result["markers"]] == [result["trains"].index(trains[(1, 2)])]
    assert [(flag["kind"], flag["tiles"]) for flag in result["flags"]] == [
        ("unsatisfied_double", [2]), ("illegal_join", [4, 5]), ("unreadable_tile", [7])]  # fmt: skip
    assert all(set(flag) == {"kind", "train", "index", "tiles", "message"} for flag in result["flags"])
    again = TableAnalysis.from_json(json.loads(json.dumps(result)))
    assert again == analysis and again.to_json() == result
    assert again != TableAnalysis.of(small_table(), "other.jpg")
    timed = TableAnalysis.of(small_table(), "table.jpg", timings=True)
    assert "trains" in timed.to_json()["timings_ms"] and TableAnalysis.from_json(timed.to_json()) == timed
    with pytest.raises(ValueError, match="not a table analysis"):
        TableAnalysis.from_json({"image": "table.jpg"})


def test_analyze_text_marks_an_uncertain_tile_as_score_does_and_says_the_hub_once():
    text = analysis_text(TableAnalysis.of(small_table(), "table.jpg"))
    assert text.splitlines()[0] == "table.jpg: 8 tiles, hub seen, the engine 6-6"
    assert "  loose: 9-6?" in text.splitlines()  # read unsurely: not "9-6", as hubcam score writes it
    nothing = analysis_text(TableAnalysis.of(read_table(Observation((), 640, 480), None), "bare.png"))
    assert nothing == "bare.png: 0 tiles, hub not seen, engine unknown"


@pytest.mark.parametrize(
    "module",
    ["vision.settings", "vision.trains", "vision.flags", "vision.reconcile", "vision.table_analysis"],
)  # fmt: skip
def test_the_table_stages_docstring_examples_run_as_written(module):
    failed, tried = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0


needs_models = pytest.mark.skipif(
    not (DETECTOR.exists() and TABLE_DETECTOR.exists() and COUNTER.exists()), reason="no trained models in models/"
)


@needs_models
def test_analyze_json_has_the_promised_shape(tmp_path, capsys):
    image, _ = render(make_scene("table", 5))
    cv2.imwrite(str(tmp_path / "table.jpg"), image)
    assert main(["analyze", str(tmp_path / "table.jpg"), "--json", "--timings", "--overlay", str(tmp_path / "ov")]) == 0
    result = json.loads(capsys.readouterr().out)
    expected = {
        "image",
        "width",
        "height",
        "hub",
        "engine",
        "tiles",
        "trains",
        "chains",
        "loose",
        "markers",
        "flags",
        "timings_ms",
    }
    assert expected <= set(result)
    for marker in result["markers"]:
        assert set(marker) == {"corners", "confidence", "train"}
        assert marker["train"] is None or result["trains"][marker["train"]]["marker"] is True
    for train in result["trains"]:
        assert set(train) == {"slot_angle", "owner", "tile_ids", "pips", "open_end", "marker"}
        assert 0 <= train["slot_angle"] < 360
    for flag in result["flags"]:
        assert {"kind", "train", "index", "message"} <= set(flag)
    assert (tmp_path / "ov" / "table.overlay.jpg").exists()


@needs_models
def test_a_bare_table_gives_an_empty_answer_and_a_bad_photo_an_error(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "bare.png"), np.full((480, 640, 3), 90, np.uint8))
    (tmp_path / "broken.jpg").write_bytes(b"not a photo")
    assert main(["analyze", str(tmp_path / "bare.png"), str(tmp_path / "broken.jpg"), "--json"]) == 1
    bare, broken = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert bare["hub"] is None and bare["engine"] is None and bare["tiles"] == [] and bare["trains"] == []
    assert set(broken) == {"image", "error"}


def test_a_bad_seat_map_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "seats.json").write_text("[1, 2]")
    assert main(["analyze", str(tmp_path / "x.jpg"), "--seats", str(tmp_path / "seats.json")]) == 2
    assert "seat map" in capsys.readouterr().err


def test_the_table_detector_gives_the_surest_hub_and_markers_over_their_thresholds():
    from vision.detect.onnx_obb import Detections
    from vision.pipeline import HandScorer

    scorer = HandScorer(detector=TABLE_DETECTOR, marker_confidence=0.3, hub_confidence=0.6)
    names = scorer.detector.names
    square = tile_at(100, 100, 0)[[0, 1, 1, 0]] + np.array([[0, 0], [0, 0], [20, 0], [20, 0]], np.float32)
    boxes = np.stack([square, square + 50, square + 100, square + 150])
    classes = np.array([names.index("hub"), names.index("hub"), names.index("marker"), names.index("marker")])
    found = Detections(boxes, np.array([0.7, 0.9, 0.2, 0.5], np.float32), classes)
    landmarks = scorer.landmarks_in(found)
    assert landmarks.hub is not None and landmarks.hub.centre == pytest.approx(tuple(boxes[1].mean(axis=0)))
    assert landmarks.hub.radius == pytest.approx(10.0)
    assert [marker.confidence for marker in landmarks.markers] == [pytest.approx(0.5)]
    assert HandScorer(hub_confidence=0.95).landmarks_in(found).hub is None  # the hand detector knows no hub
