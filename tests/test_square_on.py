"""Reading a table redrawn square-on (``vision.square_on_view``) and a profile put to work on photos
(``calibration.apply``, ``--profile``): readings go back to the photo's pixels exactly, the view draws
every tile alike, a profile fits photos of its camera's shape at any size and refuses others with the
reason, and a steep rendered table read square-on keeps its tiles where the photo shows them, by its
own hub or by the plane ``calibrate table`` wrote (issue 68)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.cli import main
from calibration.apply import plane_at
from calibration.profile import ProfileError, TablePart
from calibration.table_plane import TablePlane, square_on, through
from datasets.real import label_from_json
from datasets.synth.scene import FULL, make_scene, render
from vision.geometry import tile_length
from vision.observation import Marker, Observation, Reason, Sighting
from vision.square_on_view import LONGEST_SQUARE_ON, SQUARE_ON_FROM_SPREAD, slanted
from vision.trains import Hub

STEEP = np.array([[1.0, 0.1, 40.0], [0.02, 0.55, 30.0], [0.0, 0.0016, 1.0]])
"""Table mm to a photo's pixels, as a camera far off vertical sees it (the far side small)."""


def rectangle(centre, length=50.0, turn=0.0):
    """``(4, 2)`` corners of a tile ``length`` mm long lying at ``centre`` on the table, turned ``turn`` rad."""
    along = np.array([np.cos(turn), np.sin(turn)]) * length / 2
    across = np.array([-np.sin(turn), np.cos(turn)]) * length / 4
    c = np.asarray(centre, np.float64)
    return np.array([c - along + across, c - along - across, c + along - across, c + along + across])


def observation():
    tiles = (Sighting(np.array([[10, 10], [10, 30], [50, 30], [50, 10]], np.float32), (3, 4)),)
    marker = Marker(np.array([[70, 70], [80, 70], [80, 80], [70, 80]], np.float32), 0.8)
    return Observation(tiles, 100, 100, markers=(marker,), hub=Hub((60.0, 40.0), 12.0))


def test_through_a_translation_is_moved_and_through_and_back_is_the_same():
    seen = observation()
    moved = seen.moved(5.0, -2.0, 200, 150)
    assert np.allclose(moved.tiles[0].corners, seen.tiles[0].corners + [5, -2])
    assert moved.hub is not None and np.allclose(moved.hub.centre, (65, 38)) and moved.hub.radius == pytest.approx(12)
    there = seen.through(STEEP, 800, 600)
    back = there.through(np.linalg.inv(STEEP), 100, 100)
    assert np.allclose(back.tiles[0].corners, seen.tiles[0].corners, atol=1e-3)
    assert np.allclose(back.markers[0].corners, seen.markers[0].corners, atol=1e-3)
    assert back.hub is not None and np.allclose(back.hub.centre, seen.hub.centre, atol=0.5)
    assert (back.width, back.height) == (100, 100)


def long_side(quad):
    """A box's length as ``calibration.table_plane.square_on`` measures it: its long sides' mean."""
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    return max(sides[0] + sides[2], sides[1] + sides[3]) / 2


def test_the_view_draws_every_tile_alike_round_the_tiles():
    """The table reader's view is the hand scorer's (``square_on``), given the plane it is told."""
    on_table = [
        rectangle((x, y), turn=turn) for x, y, turn in [(0, 0, 0), (300, 0, 0), (0, 400, 1.2), (-250, 200, 0.4)]
    ]
    photo = [through(STEEP, quad) for quad in on_table]
    lengths = [long_side(quad) for quad in photo]
    assert max(lengths) / min(lengths) > 1.5, "the photo draws near tiles larger"
    image = np.zeros((900, 1400, 3), np.uint8)
    plane = TablePlane(np.linalg.inv(STEEP), slant=1.0)
    view, to_view = square_on(image, plane, photo, LONGEST_SQUARE_ON)
    drawn = [through(to_view, quad) for quad in photo]
    in_view = [tile_length(quad) for quad in drawn]
    assert max(in_view) / min(in_view) == pytest.approx(1.0, abs=1e-6)
    assert in_view[0] == pytest.approx(np.median(lengths), rel=1e-6)
    points = np.concatenate(drawn)
    height, width = view.shape[:2]
    assert (
        points.min() >= in_view[0] * 0.99
        and (points.max(axis=0) <= np.array([width, height]) - in_view[0] * 0.99).all()
    )
    small, _ = square_on(image, plane, photo, 300)
    assert max(small.shape[:2]) <= 301


def test_a_profile_fits_its_cameras_shape_at_any_size_and_refuses_another():
    table = TablePart(np.linalg.inv(STEEP), (1280, 960), False, "hub", 50.0, 60.0, 50.0)
    full, half = plane_at(table, (1280, 960)), plane_at(table, (640, 480))
    point = np.array([[700.0, 500.0]])
    assert np.allclose(through(full, point), through(half, point / 2))
    with pytest.raises(ProfileError, match="1280x960 photos, this one is 1920x1080"):
        plane_at(table, (1920, 1080))


def test_only_a_photo_whose_sure_tiles_show_a_slant_is_read_again():
    near, far = rectangle((0, 0)), rectangle((0, 0), length=50.0 / (SQUARE_ON_FROM_SPREAD + 0.1))
    flat = rectangle((0, 0), length=50.0 / (SQUARE_ON_FROM_SPREAD - 0.1))
    assert slanted(Observation((Sighting(near, (1, 2)), Sighting(far, (3, 4)))))
    assert not slanted(Observation((Sighting(near, (1, 2)), Sighting(flat, (3, 4)))))
    unsure = Sighting(far, (3, 4), reason=Reason.READ_UNSURE)
    assert not slanted(Observation((Sighting(near, (1, 2)), unsure))), "a doubted box tells no slant"


@pytest.fixture(scope="module")
def steep_table():
    options = dataclasses.replace(FULL, min_tilt_deg=48.0, max_tilt_deg=50.0)
    image, data = render(make_scene("table", 1, options), (1920, 1080), options)
    return image, label_from_json({**data, "image": "table.jpg"}, Path("table.jpg"), "synthetic")


def test_a_steep_table_read_square_on_by_its_hub_keeps_its_tiles_where_the_photo_shows_them(steep_table):
    from api.cli.pipelines import table_reader
    from vision.table_reader import SQUARE_ON_BY_HUB

    image, label = steep_table
    seen = table_reader(plane=SQUARE_ON_BY_HUB)(image)
    assert "square-on" in seen.timings_ms and "first look" in seen.timings_ms
    assert (seen.width, seen.height) == (image.shape[1], image.shape[0])
    hulls = [cv2.convexHull(tile.corners.astype(np.float32)) for tile in label.tiles]

    def truth_of(tile):
        centre = tuple(map(float, tile.corners.mean(axis=0)))
        inside = [cv2.pointPolygonTest(hull, centre, False) >= 0 for hull in hulls]
        return next((truth for truth, holds in zip(label.tiles, inside, strict=True) if holds), None)

    found = [(tile, truth) for tile in seen.tiles if (truth := truth_of(tile)) is not None]
    assert len(found) >= 0.9 * len(label.tiles), "the tiles are found where the photo shows them"
    right = sum(tile.pips is not None and sorted(tile.pips) == sorted(truth.pips) for tile, truth in found)
    assert right >= 0.8 * len(label.tiles)


def test_analyze_takes_a_profile_and_refuses_a_bad_one(steep_table, tmp_path, capsys):
    image, _ = steep_table
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), image)
    profile = tmp_path / "profile.json"
    assert main(["calibrate", "table", str(photo), "--out", str(profile)]) == 0  # by the hub: no markers
    capsys.readouterr()
    seats = {"slots": {"0": 0}, "mexican": 180}
    profile.write_text(json.dumps(json.loads(profile.read_text()) | {"seats": seats}))
    assert main(["analyze", str(photo), "--profile", str(profile), "--json", "--timings"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert "square-on" in read["timings_ms"], "the profile's plane had the slanted table read again"
    assert read["tiles"] and all(train["owner"] in (0, "mexican", None) for train in read["trains"])
    height, width = image.shape[:2]
    other = tmp_path / "other.json"
    table = json.loads(profile.read_text())["table"]
    other.write_text(json.dumps({"version": 1, "table": table | {"image_size": [width, width]}}))
    assert main(["analyze", str(photo), "--profile", str(other), "--json"]) == 1
    said = json.loads(capsys.readouterr().out)["error"]
    assert f"{width}x{width} photos, this one is {width}x{height}" in said
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 9}))
    assert main(["analyze", str(photo), "--profile", str(bad)]) == 2
    assert "version 9" in capsys.readouterr().err
