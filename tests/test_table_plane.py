"""calibration.table_plane: the table's plane from tiles seen at a slant, and the photo redrawn square-on."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.table_plane import (
    AS_SEEN,
    back_to_photo,
    misfits,
    points_to_photo,
    relative_areas,
    size_spread,
    square_on,
    table_plane,
)

TILE = np.array([[-1, -0.5], [-1, 0.5], [1, 0.5], [1, -0.5]]) * 40.0
"""A tile's top face on the table, 80 x 40 units, corners[0..1] a short edge."""


def tiles_on_table(count: int = 12, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    tiles = []
    for _ in range(count):
        angle = rng.uniform(0, np.pi)
        turn = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
        tiles.append(TILE @ turn + rng.uniform(-300, 300, 2))
    return tiles


def camera(tilt_degrees: float) -> np.ndarray:
    """Table units to the pixels of a 1600x1200 photo taken 1000 units above, tipped back."""
    tilt = np.radians(tilt_degrees)
    turn = np.array([[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]])
    lens = np.array([[1600, 0, 800], [0, 1600, 600], [0, 0, 1.0]])
    matrix = lens @ turn @ np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1000.0]])
    middle = matrix @ [0, 0, 1]
    shift = np.array([[1, 0, 800 - middle[0] / middle[2]], [0, 1, 600 - middle[1] / middle[2]], [0, 0, 1]])
    return shift @ matrix  # the table's middle in the photo's middle


def with_a_half_box(tiles: list[np.ndarray], index: int) -> list[np.ndarray]:
    """The tiles with the one at ``index`` boxed as one of its halves (a 40 x 40 square)."""
    square = np.array([[-20, -20], [-20, 20], [20, 20], [20, -20]], float)
    return [square + tile.mean(axis=0) if i == index else tile for i, tile in enumerate(tiles)]


def photographed(tiles: list[np.ndarray], matrix: np.ndarray, noise: float = 0.5, seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [cv2.perspectiveTransform(t[None], matrix)[0] + rng.normal(0, noise, (4, 2)) for t in tiles]


def rectangle_ratios(corners: list[np.ndarray], matrix: np.ndarray) -> np.ndarray:
    ratios = []
    for quad in corners:
        on = cv2.perspectiveTransform(np.asarray(quad, np.float64)[None], matrix)[0]
        sides = np.linalg.norm(np.roll(on, -1, axis=0) - on, axis=1)
        ratios.append(max(sides[0] + sides[2], sides[1] + sides[3]) / min(sides[0] + sides[2], sides[1] + sides[3]))
    return np.array(ratios)


def test_a_photo_taken_square_on_has_no_slant():
    corners = photographed(tiles_on_table(), camera(0))
    plane = table_plane(corners)
    assert plane is not None and plane.slant < 1.05
    assert size_spread(corners) < 1.05


@pytest.mark.parametrize("tilt", [20, 40])
def test_a_slanted_photo_gets_its_slant_and_its_tiles_back_as_rectangles(tilt):
    corners = photographed(tiles_on_table(), camera(tilt))
    plane = table_plane(corners)
    assert plane is not None
    assert plane.slant == pytest.approx(size_spread(corners), rel=0.05)  # alike on the table
    assert plane.slant > {20: 1.2, 40: 1.6}[tilt]
    assert np.all(np.abs(rectangle_ratios(corners, plane.to_plane) - 2) < 0.06)


def test_a_wrong_box_does_not_bend_the_plane():
    corners = photographed(with_a_half_box(tiles_on_table(), 3), camera(30))
    plane = table_plane(corners)
    assert plane is not None
    good = [quad for i, quad in enumerate(corners) if i != 3]
    assert np.all(np.abs(rectangle_ratios(good, plane.to_plane) - 2) < 0.08)


def test_too_few_tiles_tell_no_plane():
    assert table_plane(photographed(tiles_on_table(2), camera(30))) is None


def test_square_on_draws_the_tiles_as_alike_rectangles_and_finds_the_way_back():
    tiles = tiles_on_table(8)
    to_photo = camera(35)
    table = np.full((800, 800, 3), 60, np.uint8)
    shift = np.array([[1, 0, 400], [0, 1, 400], [0, 0, 1.0]])  # table units to the table image's pixels
    for tile in tiles:
        cv2.fillConvexPoly(table, (tile + 400).round().astype(np.int32), (230, 230, 230))
    photo = cv2.warpPerspective(table, to_photo @ np.linalg.inv(shift), (1600, 1200), borderValue=(60, 60, 60))
    corners = photographed(tiles, to_photo, noise=0.0)
    corners = [quad for quad in corners if quad.min() > 0 and (quad < [1600, 1200]).all()]
    assert len(corners) >= 5
    plane = table_plane(corners)
    assert plane is not None
    view, matrix = square_on(photo, plane, corners)
    in_view = [cv2.perspectiveTransform(q[None], matrix)[0] for q in corners]
    lengths = [np.linalg.norm(q[1] - q[2]) for q in in_view]
    assert max(lengths) / min(lengths) < 1.05  # near and far tiles now alike
    for quad in in_view:
        x, y = quad.mean(axis=0).round().astype(int)
        assert view[y, x].min() > 200  # the tile is drawn where its corners say
    back = back_to_photo(matrix, in_view)
    assert np.allclose(np.array(back), np.array(corners), atol=1e-3)
    centres = np.array([quad.mean(axis=0) for quad in corners], np.float32)
    centres_in_view = cv2.perspectiveTransform(centres[None].astype(np.float64), matrix)[0]
    assert np.allclose(points_to_photo(matrix, centres_in_view), centres, atol=1e-2)
    assert points_to_photo(matrix, np.zeros((0, 2))).shape == (0, 2)
    assert max(view.shape[:2]) <= 1601
    small, _ = square_on(photo, plane, corners, longest=400)
    assert max(small.shape[:2]) <= 401


def test_a_box_that_is_no_tile_face_on_the_table_is_a_misfit():
    corners = photographed(with_a_half_box(tiles_on_table(), 5), camera(30))
    plane = table_plane(corners)
    assert plane is not None
    departures = misfits(plane, corners)
    assert departures[5] > 0.5  # a square: its sides' ratio is log 2 from a tile's
    assert np.delete(departures, 5).max() < 0.05
    assert misfits(plane, []).shape == (0,)


def test_the_pipeline_leaves_out_only_the_odd_boxes():
    from vision.leave_out import odd_shaped

    tiles = tiles_on_table(6)
    tiles[2] = tiles[2] @ np.array([[1, 0.6], [0, 1]])  # sheared: no rectangle on any plane alike the others
    corners = photographed(tiles, camera(20))
    assert odd_shaped(corners, 0.2) == [False, False, True, False, False, False]
    assert odd_shaped(corners, None) == [False] * 6
    assert odd_shaped(corners[:2], 0.2) == [False, False]  # too few boxes to know the plane


def test_tiles_are_alike_in_size_on_the_plane_however_far_they_lie():
    corners = photographed(tiles_on_table(), camera(40))
    plane = table_plane(corners)
    assert plane is not None
    as_seen, on_plane = relative_areas(AS_SEEN, corners), relative_areas(plane, corners)
    assert as_seen.max() / as_seen.min() > 1.5  # near tiles look larger ...
    assert np.abs(on_plane - 1).max() < 0.05  # ... but are not
    assert relative_areas(plane, []).shape == (0,)


def test_boxes_reaching_beyond_the_frame_tell_nothing_of_the_plane():
    """A close-up: a whole tile in the middle, its neighbours' boxes reaching beyond the frame (the
    refiner's guess at where they end, parts of them): given the frame, only whole boxes fit the plane
    and set the median, and with fewer than three of them no box is judged odd."""
    from vision.leave_out import odd_shaped

    # a real close-up (benchmarks/close_up.py@d88286a, a 635 x 846 window): the tile, a small box over part of
    # a neighbour's end, and a neighbour's box past the top edge
    corners = [
        np.array([[153.1, 780.5], [484.7, 714.2], [426.6, 188.1], [211.6, 177.8]]),
        np.array([[395.8, 144.1], [441.9, 147.7], [449.2, 101.7], [407.8, 95.9]]),
        np.array([[10.6, 176.7], [240.7, 173.3], [240.9, 10.8], [55.9, -2.3]]),
    ]
    assert odd_shaped(corners, 0.2, 0.3) == [False, True, True]  # fitted to all (the tile itself at the bound) ...
    assert odd_shaped(corners, 0.2, 0.3, frame=(635, 846)) == [False] * 3  # ... two whole boxes: no plane
    beyond = [
        np.array([[-90, 40], [-90, 200], [60, 230], [60, 10]], float),  # skewed guesses past the left edge
        np.array([[1500, 200], [1500, 420], [1700, 440], [1700, 180]], float),  # ... and past the right
    ]
    # with enough whole tiles the plane is theirs: the guesses beyond the frame are judged, not judges
    photo = photographed(tiles_on_table(6), camera(20))
    judged = odd_shaped([*photo, *beyond], 0.2, 0.3, frame=(1600, 1200))
    assert judged[:6] == [False] * 6


def test_boxes_whose_pips_were_not_read_tell_nothing_of_the_plane():
    """Boxes over no tile (the reader refuses them) come in every shape: as many skewed ones as tiles
    bend the plane fitted to all until every box is odd; the tiles read surely fit it alone."""
    from vision.leave_out import odd_shaped

    tiles = tiles_on_table(8)
    for index in (4, 5, 6, 7):
        tiles[index] = tiles[index] @ np.array([[1, 0.5 + 0.1 * index], [0, 1]])
    corners = photographed(tiles, camera(20))
    assert odd_shaped(corners, 0.2) == [True] * 8
    assert odd_shaped(corners, 0.2, read=[True] * 4 + [False] * 4) == [False] * 4 + [True] * 4


def test_the_pipeline_leaves_out_boxes_over_part_of_a_tile():
    from vision.leave_out import odd_shaped

    tiles = tiles_on_table(6)
    tiles[4] = (tiles[4] - tiles[4].mean(axis=0)) * 0.5 + tiles[4].mean(axis=0)  # a 2:1 box, a quarter of a tile
    corners = photographed(tiles, camera(30))
    assert odd_shaped(corners, 0.2, 0.3) == [False, False, False, False, True, False]
    assert odd_shaped(corners, 0.2, None) == [False] * 6  # its shape alone is a tile's
    assert odd_shaped(corners, None, 0.3) == [False, False, False, False, True, False]


def test_each_box_left_out_is_named_for_what_it_is_not():
    from vision.leave_out import NOT_A_FACE, PART_OF_A_TILE, odd_shapes

    tiles = tiles_on_table(6)
    tiles[2] = tiles[2] @ np.array([[1, 0.6], [0, 1]])  # sheared: no tile's face
    tiles[4] = (tiles[4] - tiles[4].mean(axis=0)) * 0.5 + tiles[4].mean(axis=0)  # a quarter of a tile
    corners = photographed(tiles, camera(30))
    assert odd_shapes(corners, 0.2, 0.3) == [None, None, NOT_A_FACE, None, PART_OF_A_TILE, None]


def test_boxes_that_are_tile_faces_as_seen_need_no_plane(monkeypatch):
    import vision.leave_out as leave_out

    corners = photographed(tiles_on_table(6), camera(0))
    monkeypatch.setattr(leave_out, "table_plane", lambda corners: pytest.fail("fitted a plane"))
    assert leave_out.odd_shaped(corners, 0.2) == [False] * 6


def test_degenerate_boxes_tell_no_plane_and_break_nothing():
    flat = [np.array([[0, 0], [10, 0], [20, 0], [30, 0]], float) + [i * 40, 0] for i in range(4)]
    plane = table_plane(flat)
    assert plane is None or np.isfinite(plane.to_plane).all()
    from vision.leave_out import odd_shaped

    assert len(odd_shaped(flat, 0.2)) == 4


def test_a_box_the_detector_also_saw_in_another_pose_is_told():
    from vision.detect.onnx_obb import NO_PROPOSALS, Proposals
    from vision.leave_out import seen_in_other_pose

    tiles = [TILE + [0, 0], TILE + [200, 0], TILE + [400, 0]]
    proposals = Proposals(
        np.array([[0, 0], [2, 1], [200, 0], [400, 0], [900, 900]], np.float32),
        np.array(
            [
                [0.8, 0.0, 0.1],  # the first tile: face up, and a little standing
                [0.3, 0.0, 0.7],  # ... and a proposal inside it less sure it is standing than 0.8 face up
                [0.3, 0.6, 0.0],  # the second: face down twice as surely as face up
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 0.9],  # far from every box
            ],
            np.float32,
        ),
    )
    assert seen_in_other_pose(tiles, proposals, 1.5) == [False, True, False]
    assert seen_in_other_pose(tiles, proposals, 2.0) == [False, False, False]  # "more than" twice
    assert seen_in_other_pose(tiles, proposals, 0.5) == [True, True, False]
    assert seen_in_other_pose(tiles, proposals, None) == [False] * 3
    assert seen_in_other_pose(tiles, NO_PROPOSALS, 1.5) == [False] * 3
    # a table detector's marker and hub classes are no pose: the engine lies on the hub
    on_the_hub = Proposals(np.array([[0, 0], [1, 0]], np.float32), np.array([[0.9, 0, 0, 0, 0], [0, 0, 0, 0.1, 0.95]]))
    assert seen_in_other_pose(tiles[:1], on_the_hub, 0.7) == [False]
