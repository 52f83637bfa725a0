"""The scene renderer: ground truth that matches the picture, determinism, and speed of use."""

from __future__ import annotations

import dataclasses
import json
import math
import random

import cv2
import numpy as np
import pytest

from datasets.synth.camera import CameraChoice, random_camera
from datasets.synth.face import _dimples, render_back, render_face
from datasets.synth.pips import HELD_OUT, LAYOUTS, MAX_PIPS, layout, pip_radius
from datasets.synth.printed import PRINTED_KINDS
from datasets.synth.scene import FLAT_MM, FULL, MARKER_SHAPES, Scene, SceneOptions, make_scene, render
from datasets.synth.styles import TileStyle, luminance
from vision.trains import Shape, TableConfig, widths_off

HALF_PX = 160


def commonest_colour(pixels: np.ndarray) -> np.ndarray:
    """The mean colour of the most common colour bin (32 levels a channel; bins at two offsets, so
    that a colour on a bin's border is not split in two)."""
    flat = pixels.reshape(-1, 3)
    best = None
    for offset in (0, 16):
        bins = ((flat + offset) // 32) @ np.array([64, 8, 1])
        counts = np.bincount(bins)
        if best is None or counts.max() > best[0]:
            best = (counts.max(), flat[bins == counts.argmax()].mean(axis=0))
    return best[1]


def pips_seen(image: np.ndarray, corners: np.ndarray, style: TileStyle, pips: tuple[int, int]) -> tuple[int, int]:
    """Count pips in each labelled half of a clean render: blobs that differ from the body colour."""
    target = np.array([[0, HALF_PX], [0, 0], [2 * HALF_PX, 0], [2 * HALF_PX, HALF_PX]], np.float32)
    face = cv2.warpPerspective(image, cv2.getPerspectiveTransform(corners, target), (2 * HALF_PX, HALF_PX))
    counts = []
    # the body's colour from a ring just inside the face's edge, which pips reach only here and there
    # (within a half, large pips can cover more than the body shows: a bright set's red 9 on yellow)
    ring = np.concatenate([face[3:8].reshape(-1, 3), face[-8:-3].reshape(-1, 3), face[:, 3:8].reshape(-1, 3)])
    body = commonest_colour(ring.astype(np.int16))
    for half, said in zip((face[:, :HALF_PX], face[:, HALF_PX:]), pips, strict=True):
        inner = half[12:-12, 12:-12].astype(np.int16)
        ink = (np.abs(inner - body).sum(axis=2) > 70).astype(np.uint8)
        # shrink the pips to part those that nearly touch (large pips, crowded halves): by 40 % of
        # the radius they should have, which the rendering must then bear out
        radius_px = pip_radius(said, style.pip_scale, style.pip_edge) * HALF_PX
        shrink = max(1, round(0.4 * radius_px))
        ink = cv2.erode(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * shrink + 1, 2 * shrink + 1)))
        count, _, stats, _ = cv2.connectedComponentsWithStats(ink)
        # slivers of the spinner at the divider do not count
        least_px = max(20.0, 0.3 * np.pi * (0.6 * radius_px) ** 2)
        counts.append(sum(1 for label in range(1, count) if stats[label, cv2.CC_STAT_AREA] >= least_px))
    return counts[0], counts[1]


@pytest.mark.parametrize("count", range(MAX_PIPS + 1))
def test_pip_layouts_have_the_right_number_of_distinct_symmetric_pips(count):
    pips = layout(count)
    assert len(set(pips)) == count
    turned = sorted((round(1 - u, 6), round(1 - v, 6)) for u, v in pips)
    assert turned == sorted((round(u, 6), round(v, 6)) for u, v in pips)  # a half-turn leaves the layout alone


@pytest.mark.parametrize("kind, bright", [("hand", 0.0), ("table", 0.0), ("hand", 1.0)])
def test_label_pips_and_orientation_match_the_rendered_tiles(kind, bright):
    """Every large, uncut face-up tile shows, half by half, the pips its label says, in that order
    (sets as they come, and every set bright: pips of one colour on a saturated body)."""
    checked = 0
    options = SceneOptions(bright_sets=bright) if bright else FULL
    for seed in range(10):
        scene = make_scene(kind, seed, options)
        image, label = render(scene, (1600, 1200), options, clean=True)
        for tile in label["tiles"]:
            corners = np.array(tile["corners"], np.float32)
            rows = max(3, -(-max(tile["pips"]) // 3))  # 3x3 up to 9 pips, then 4, 5 or 6 rows
            if tile["pose"] != "face_up" or tile["cut"] or np.linalg.norm(corners[1] - corners[0]) < 15 * rows:
                continue  # too few pixels to resolve every pip
            said = tuple(tile["pips"])
            assert pips_seen(image, corners, scene.style, said) == said, f"{kind} seed {seed}: {said}"
            checked += 1
    assert checked >= 20


def test_the_same_seed_renders_the_same_image_and_label():
    first_image, first_label = render(make_scene("table", 3))
    second_image, second_label = render(make_scene("table", 3))
    assert np.array_equal(first_image, second_image)
    assert json.dumps(first_label) == json.dumps(second_label)
    other_image, _ = render(make_scene("table", 4))
    assert not np.array_equal(first_image, other_image)


def test_table_labels_hold_hub_engine_trains_and_flags():
    for seed in range(5):
        scene = make_scene("table", seed)
        _, label = render(scene)
        assert label["hub"]["radius"] > 0 and label["engine"] == scene.engine
        engine_tile = label["tiles"][label["engine"]]["pips"]
        assert engine_tile[0] == engine_tile[1]
        for train in label["trains"]:
            open_end = engine_tile[0]
            for index in train["tiles"]:
                inner, outer = label["tiles"][index]["pips"]
                faulty = {"kind": "illegal_join", "tiles": [index]} in label["flags"] or any(
                    flag["kind"] == "illegal_join" and flag["tiles"][-1] == index for flag in label["flags"]
                )
                assert inner == open_end or faulty, "a join that does not match must be flagged"
                open_end = outer
        # a face-up tile whose halves leave the frame cannot be read, and is not counted
        counted = [tile for tile in label["tiles"] if tile["pose"] == "face_up" and not tile["unreadable"]]
        assert label["total_pips"] == sum(sum(tile["pips"]) for tile in counted)


def test_table_labels_place_each_marker_by_its_train_and_box_the_hub():
    shapes, seen = set(), 0
    for seed in range(12):
        scene = make_scene("table", seed)
        _, label = render(scene)
        marked = {index for index, train in enumerate(label["trains"]) if train["marker"]}
        assert {marker["train"] for marker in label["markers"]} <= marked
        for marker in label["markers"]:
            tiles = label["trains"][marker["train"]]["tiles"]
            ends = [Shape.of(np.array(label["tiles"][index]["corners"])) for index in (tiles[0], tiles[-1])]
            centre = np.mean(marker["corners"], axis=0)
            assert min(widths_off(end, centre) for end in ends) <= TableConfig().marker_reach
        seen += len(label["markers"])
        shapes |= {marker.shape for marker in scene.markers}
        hub = np.array(label["hub"]["corners"], np.float32)
        assert cv2.pointPolygonTest(hub, tuple(map(float, label["hub"]["centre"])), False) > 0
    assert seen >= 10 and shapes == set(MARKER_SHAPES)


def tile_shares(options, seeds) -> np.ndarray:
    """Each face-up tile's length as a share of its photo's longer side."""
    shares = []
    for seed in seeds:
        _, label = render(make_scene("hand", seed, options), (640, 480), options)
        for tile in label["tiles"]:
            corners = np.array(tile["corners"])
            length = max(np.linalg.norm(corners[1] - corners[2]), np.linalg.norm(corners[0] - corners[1]))
            shares.append(length / max(label["width"], label["height"]))
    return np.array(shares)


def test_hands_are_framed_close_as_real_hand_photos_are():
    """Real hand photos show a tile at a median 19 % of the longer side; whole-scene framing drew 9 %."""
    close = tile_shares(SceneOptions(), range(12))
    whole = tile_shares(SceneOptions(close_hands=False), range(12))
    assert np.median(close) > np.median(whole) and np.percentile(close, 10) > np.percentile(whole, 10)
    assert 0.1 < np.median(close) < 0.25


def tilts_deg(choice: CameraChoice, draws: int = 200) -> np.ndarray:
    """How far off vertical each of ``draws`` random cameras looks (degrees)."""
    rng = random.Random(5)
    cameras = [random_camera(rng, np.zeros(3), 100.0, (640, 480), choice) for _ in range(draws)]
    return np.degrees([np.arccos(-camera.R[2, 2]) for camera in cameras])  # R's last row: the look direction


def test_a_steep_set_tilts_every_camera_within_its_range_and_the_default_keeps_near_vertical_ones():
    steep = tilts_deg(CameraChoice(min_tilt_deg=50, max_tilt_deg=60))
    assert steep.min() >= 50 - 1e-6 and steep.max() <= 60 + 1e-6
    usual = tilts_deg(CameraChoice())
    assert usual.max() <= 45 + 1e-6 and (usual < 8).mean() > 0.2  # one in five nearly straight down, and some more


def test_a_steep_set_keeps_the_scenes_and_changes_only_the_camera():
    steep = dataclasses.replace(FULL, min_tilt_deg=50, max_tilt_deg=60)
    usual_image, usual = render(make_scene("hand", 3, FULL), (320, 240), FULL)
    steep_image, tipped = render(make_scene("hand", 3, steep), (320, 240), steep)
    assert [tile["pips"] for tile in usual["tiles"]] == [tile["pips"] for tile in tipped["tiles"]]
    assert not np.array_equal(usual_image, steep_image)


def test_a_tile_with_a_half_beyond_the_frame_is_labelled_unreadable():
    """Its pips cannot all be seen, so it does not count in the photo's total; every other tile does."""
    unreadable = 0
    for seed in range(40):
        _, label = render(make_scene("hand", seed), (320, 240))
        for tile in label["tiles"]:
            if tile["unreadable"]:
                assert tile["cut"] and tile["pose"] == "face_up"
                unreadable += 1
            elif tile["pose"] == "face_up" and tile["cut"]:
                centres = np.array(tile["half_centres"])
                assert ((centres >= 0) & (centres <= (label["width"], label["height"]))).all()
    assert unreadable > 0


def test_scenes_are_dealt_from_the_sets_asked_for():
    assert {make_scene("hand", seed, SceneOptions(sets=(15, 18))).highest for seed in range(12)} == {15, 18}
    assert make_scene("hand", 3).highest == make_scene("hand", 3, SceneOptions()).highest


@pytest.mark.parametrize("count", range(1, MAX_PIPS + 1))
@pytest.mark.parametrize("edge", [0.15, 0.2, 0.25])
def test_makers_pips_at_their_largest_never_touch_or_leave_the_half(count, edge):
    radius = pip_radius(count, scale=1.5, edge=edge)
    pips = np.array(layout(count, edge))
    assert radius > 0
    assert (pips - radius > 0).all() and (pips + radius < 1).all()
    if count > 1:
        gaps = np.linalg.norm(pips[:, None] - pips[None], axis=2) + np.eye(count) * 9
        assert gaps.min() > 2 * radius


def test_renderer_switches_leave_the_makers_layouts_and_film_out():
    scenes = [make_scene("hand", seed) for seed in range(40)]
    assert 0 < sum(scene.style.film for scene in scenes) < 40
    assert len({round(scene.style.pip_scale, 3) for scene in scenes}) > 30
    plain = [make_scene("hand", seed, SceneOptions(makers_layouts=False, film=False)) for seed in range(40)]
    assert not any(scene.style.film for scene in plain)
    assert {(scene.style.pip_scale, scene.style.pip_edge) for scene in plain} == {(1.0, 0.22)}
    # switched off, a choice still draws its random numbers: the tiles are laid the same
    assert [scene.tiles[0].centre_mm for scene in plain] == [scene.tiles[0].centre_mm for scene in scenes]


def test_every_set_can_be_in_shrink_wrap_and_the_scene_is_otherwise_the_same():
    scenes = [make_scene("hand", seed) for seed in range(40)]
    wrapped = [make_scene("hand", seed, SceneOptions(film_share=1.0)) for seed in range(40)]
    assert all(scene.style.film for scene in wrapped)
    assert not all(scene.style.film for scene in scenes)  # the full renderer wraps only some

    def drawn(scene: Scene) -> tuple[object, ...]:
        return scene.style.body, scene.style.pip_scale, [(tile.pips, tile.centre_mm) for tile in scene.tiles]

    assert [drawn(scene) for scene in wrapped] == [drawn(scene) for scene in scenes]  # the same draws otherwise


def test_shape_switches_take_out_the_spinner_rounded_corners_and_thickness():
    scenes = [make_scene("hand", seed) for seed in range(40)]
    assert 0 < sum(scene.style.spinner for scene in scenes) < 40
    assert {scene.style.corner_radius for scene in scenes} == {0.1}
    assert min(scene.style.size_mm[2] for scene in scenes) > 0.15 * min(scene.style.size_mm[0] for scene in scenes)
    options = SceneOptions(spinner=False, rounded_corners=False, thickness=False)
    plain = [make_scene("hand", seed, options) for seed in range(40)]
    assert not any(scene.style.spinner for scene in plain)
    assert {scene.style.corner_radius for scene in plain} == {0.0}
    assert {scene.style.size_mm[2] for scene in plain} == {FLAT_MM}
    assert [scene.style.size_mm[:2] for scene in plain] == [scene.style.size_mm[:2] for scene in scenes]
    assert [scene.tiles[0].centre_mm for scene in plain] == [scene.tiles[0].centre_mm for scene in scenes]
    # square corners: the face covers its whole rectangle (the rounded one leaves the corners clear)
    assert render_face((3, 4), plain[0].style, 120, random.Random(0)).alpha.min() == 255
    alpha = render_face((3, 4), scenes[0].style, 120, random.Random(0)).alpha
    assert alpha[0, 0] == 0 and alpha[30, 60] == 255


def test_glare_that_washes_a_pip_out_hides_its_half():
    style = make_scene("hand", 0).style
    assert render_face((3, 4), style, 160, random.Random(0)).hidden == (False, False)
    assert render_face((3, 4), style, 160, random.Random(0), glare=0.3).hidden != (True, True)
    blinding = [render_face((6, 5), style, 160, random.Random(seed), glare=4.0).hidden for seed in range(8)]
    assert all(any(hidden) for hidden in blinding)  # white where the spot lies: a pip under it is gone
    assert not any(any(render_face((0, 0), style, 160, random.Random(seed), glare=4.0).hidden) for seed in range(8))
    # the bare face takes no draws of its own: the same seed draws the same face, hiding the same halves
    face = render_face((3, 4), style, 160, random.Random(5), glare=0.8, film=True)
    again = render_face((3, 4), style, 160, random.Random(5), glare=0.8, film=True)
    assert np.array_equal(face.image, again.image) and face.hidden == again.hidden


def test_a_tile_with_a_pip_washed_out_is_noted_and_still_counted():
    strong = SceneOptions(glare_share=1.0, glare_tiles=1.0, glare_strength=(1.5, 2.0))
    labels = [render(make_scene("hand", seed, strong), (320, 240))[1] for seed in range(6)]
    hidden = [tile for label in labels for tile in label["tiles"] if tile["pose"] == "face_up" and any(tile["hidden"])]
    assert hidden and not any(tile["unreadable"] and not tile["cut"] for tile in hidden)
    faces_down = [tile for label in labels for tile in label["tiles"] if tile["pose"] != "face_up"]
    assert not any(any(tile["hidden"]) for tile in faces_down)
    # the usual renderer's scenes draw as they did: glare's share and strength are the defaults
    assert [tile.glare for tile in make_scene("hand", 3).tiles] == [
        tile.glare for tile in make_scene("hand", 3, SceneOptions(glare_share=0.4, glare_tiles=0.3)).tiles
    ]


def test_film_dimples_light_flecks_only_inside_pips():
    pips = [(30.0, 30.0, 10.0), (80.0, 30.0, 10.0), (130.0, 60.0, 6.0), (30.0, 70.0, 8.0)]
    yy, xx = np.mgrid[0:100, 0:160]
    inside = np.zeros((100, 160), bool)
    for x, y, radius in pips:
        inside |= (xx - x) ** 2 + (yy - y) ** 2 <= (radius + 1) ** 2  # +1: the discs' anti-aliased rim
    lit = 0
    for seed in range(20):
        layer = np.zeros((100, 160), np.float32)
        _dimples(layer, random.Random(seed), pips)
        assert not layer[~inside].any()
        lit += sum(bool(layer[round(y) - 2 : round(y) + 3, round(x) - 2 : round(x) + 3].any()) for x, y, _ in pips)
    assert 0 < lit < 80  # some pips lit, never all


def test_bright_sets_and_printed_backs_come_from_a_stream_of_their_own():
    """A share of sets is bright (one pip colour standing out on a saturated body) and a share has printed
    backs; drawing them leaves the scene's own random draws, and so every other set, as they were."""
    seeds = range(60)
    usual = [make_scene("hand", seed) for seed in seeds]
    plain = [make_scene("hand", seed, SceneOptions(bright_sets=0.0, printed_backs=0.0)) for seed in seeds]
    every = [make_scene("hand", seed, SceneOptions(bright_sets=1.0, printed_backs=1.0)) for seed in seeds]
    assert 0 < sum(scene.style.pips == "tint" for scene in usual) < 30
    assert 0 < sum(bool(scene.style.back_print) for scene in usual) < 40
    assert not any(scene.style.pips == "tint" or scene.style.back_print for scene in plain)
    assert all(scene.style.pips == "tint" and scene.style.back_print for scene in every)
    assert all(abs(luminance(scene.style.tint) - luminance(scene.style.body)) > 60 for scene in every)
    for scenes in (usual, every):
        assert [scene.tiles for scene in scenes] == [scene.tiles for scene in plain]
    for scene, bare in zip(usual, plain, strict=True):
        if scene.style.pips != "tint" and not scene.style.back_print:
            assert scene.style == bare.style


def test_a_printed_back_carries_ink_a_plain_back_has_none_of():
    style = make_scene("hand", 0, SceneOptions(bright_sets=0.0, printed_backs=1.0)).style
    printed, _ = render_back(style, 200, random.Random(0))
    bare, _ = render_back(dataclasses.replace(style, back_print=""), 200, random.Random(0))
    inked = np.abs(printed.astype(int) - bare.astype(int)).sum(axis=2) > 60
    assert 0.03 < inked.mean() < 0.4


def test_short_brands_are_printed_large_across_the_short_side_long_ones_mostly_along():
    """Real sets print a short brand upright across the back ("RO" over an arched bar of stars, read as
    0-1 and 0-2 in ../shared/real): its ink spans most of the short side and little of the long one."""
    style = make_scene("hand", 0, SceneOptions(bright_sets=0.0, printed_backs=1.0)).style
    style = dataclasses.replace(style, back=(200, 235, 245), back_ink=(80, 40, 30))

    def inked_extent(brand: str, across: bool) -> tuple[float, float]:
        lettered = dataclasses.replace(style, back_print=brand, back_across=across)
        printed, _ = render_back(lettered, 240, random.Random(0))
        bare, _ = render_back(dataclasses.replace(style, back_print=""), 240, random.Random(0))
        rows, columns = np.nonzero(np.abs(printed.astype(int) - bare.astype(int)).sum(axis=2) > 60)
        return (rows.max() - rows.min()) / 120, (columns.max() - columns.min()) / 240

    across_short, across_long = inked_extent("RO", across=True)
    along_short, along_long = inked_extent("CLUB", across=False)
    assert across_short > 0.7 and across_long < 0.45
    assert along_long > 0.6 and along_short < 0.6
    scenes = [make_scene("hand", seed, SceneOptions(printed_backs=1.0)).style for seed in range(40)]
    assert all(scene.back_across for scene in scenes if len(scene.back_print) <= 3)
    assert any(not scene.back_across for scene in scenes)


def test_a_steep_hand_redrawn_square_on_shows_its_tiles_as_rectangles_and_keeps_its_label():
    from calibration.table_plane import AS_SEEN, misfits
    from datasets.synth.redrawn import STEEP_SCENE, redrawn
    from datasets.synth.scene import make_scene, render

    image, label = render(make_scene("hand", 650_004, STEEP_SCENE), (1280, 960), STEEP_SCENE)
    view, in_view = redrawn(image, label, np.random.default_rng(0))
    assert (in_view["width"], in_view["height"]) == (view.shape[1], view.shape[0])
    assert [tile["pips"] for tile in in_view["tiles"]] == [tile["pips"] for tile in label["tiles"]]
    whole = [tile["corners"] for tile in label["tiles"] if tile["pose"] == "face_up" and not tile["cut"]]
    redrawn_whole = [tile["corners"] for tile in in_view["tiles"] if tile["pose"] == "face_up" and not tile["cut"]]
    as_shot, square_on = (float(np.median(misfits(AS_SEEN, quads))) for quads in (whole, redrawn_whole))
    assert square_on < 0.05 < as_shot  # 2:1 rectangles square-on, foreshortened as shot


def test_a_hand_of_too_few_tiles_to_fit_a_plane_is_not_redrawn():
    from datasets.synth.redrawn import STEEP_SCENE, redrawn
    from datasets.synth.scene import make_scene, render

    image, label = render(make_scene("hand", 650_003, STEEP_SCENE), (1280, 960), STEEP_SCENE)  # two face-up tiles
    assert redrawn(image, label, np.random.default_rng(0)) is None


def _as_seen_any_way(points: tuple[tuple[float, float], ...]) -> set[tuple[tuple[float, float], ...]]:
    """A layout under the eight turns and mirrors of a square half (the counter learns all of them)."""
    seen = set()
    for swap in (False, True):
        for flip_u in (False, True):
            for flip_v in (False, True):
                moved = []
                for u, v in points:
                    u, v = (v, u) if swap else (u, v)
                    moved.append((round(1 - u if flip_u else u, 3), round(1 - v if flip_v else v, 3)))
                seen.add(tuple(sorted(moved)))
    return seen


def _inside_and_apart(points, radius):
    assert all(radius <= u <= 1 - radius and radius <= v <= 1 - radius for u, v in points)
    gaps = [np.hypot(a[0] - b[0], a[1] - b[1]) for i, a in enumerate(points) for b in points[i + 1 :]]
    assert not gaps or min(gaps) > 2 * radius


@pytest.mark.parametrize("family", [family for family in LAYOUTS if family != "scattered"])
def test_every_makers_layout_family_lays_each_count_symmetric_inside_the_half_without_pips_touching(family):
    for count in range(MAX_PIPS + 1):
        points = layout(count, family=family)
        assert len(set(points)) == count
        turned = tuple(sorted((round(1 - u, 3), round(1 - v, 3)) for u, v in points))
        assert turned == tuple(sorted((round(u, 3), round(v, 3)) for u, v in points))  # the same from either end
        _inside_and_apart(points, pip_radius(count, 1.5, family=family))


@pytest.mark.parametrize("edge", [0.15, 0.2, 0.25])
def test_scattered_pips_are_a_new_scatter_per_seed_inside_the_half_without_touching(edge):
    for count in range(MAX_PIPS + 1):
        scatters = {layout(count, edge, "scattered", seed) for seed in range(20)}
        assert all(len(set(points)) == count for points in scatters)
        assert len(scatters) == (1 if count == 0 else 20)
        for points in scatters:
            _inside_and_apart(points, pip_radius(count, 1.5, edge, "scattered"))
    assert layout(9, edge, "scattered", 3) == layout.__wrapped__(9, edge, "scattered", 3)  # drawn the same again


def test_the_held_out_layouts_differ_from_every_training_layout_above_six_however_turned():
    training = [family for family in LAYOUTS if family not in HELD_OUT]
    for family in HELD_OUT:
        for count in range(7, MAX_PIPS + 1):
            unseen = _as_seen_any_way(layout(count, family=family))
            for known in training:
                assert tuple(sorted((round(u, 3), round(v, 3)) for u, v in layout(count, family=known))) not in unseen


def test_makers_looks_leave_the_default_scenes_as_they_were_and_draw_every_family_and_shape():
    from datasets.synth.scene import MAKERS, UNSEEN_MAKERS

    for seed in range(3):
        plain = make_scene("hand", seed)
        made = make_scene("hand", seed, MAKERS)
        assert plain.style.layout_family == "classic" and plain.style.pip_shape == "round"
        assert [tile.pips for tile in plain.tiles] == [tile.pips for tile in made.tiles]  # only the look differs
    styles = [make_scene("hand", seed, MAKERS).style for seed in range(60)]
    assert {style.layout_family for style in styles} == set(LAYOUTS) - set(HELD_OUT)
    assert {style.pip_shape for style in styles} == {"round", "printed", "ring", "star"}
    assert {make_scene("hand", seed, UNSEEN_MAKERS).style.layout_family for seed in range(20)} == set(HELD_OUT)


def test_a_greyscale_photo_has_no_colour_left():
    from datasets.synth.scene import MAKERS

    options = dataclasses.replace(MAKERS, greyscale=1.0)
    image, _ = render(make_scene("hand", 5, options), (320, 240), options)
    assert np.array_equal(image[:, :, 0], image[:, :, 1]) and np.array_equal(image[:, :, 1], image[:, :, 2])


def test_hubcam_synth_records_the_makers_it_drew_in_the_manifest(tmp_path):
    import json

    from api.cli import main

    assert main(["synth", "--kind", "hand", "--n", "1", "--seed", "5", "--size", "320x240", "--workers", "1",
                 "--makers", "unseen", "--out", str(tmp_path / "unseen")]) == 0  # fmt: skip
    options = json.loads((tmp_path / "unseen" / "manifest.json").read_text())["options"]
    assert options["layouts"] == list(HELD_OUT) and options["greyscale"] > 0


def end_to_end_steps(scene: Scene) -> list[float]:
    """How far apart (mm, centre to centre) each two neighbours in a table's trains lie, where neither
    is a double (a crosswise double steps by its width)."""
    steps = []
    for train in scene.trains:
        for before, after in zip(train.tiles, train.tiles[1:], strict=False):
            first, second = scene.tiles[before], scene.tiles[after]
            if first.pips[0] != first.pips[1] and second.pips[0] != second.pips[1]:
                steps.append(float(np.linalg.norm(np.subtract(second.centre_mm, first.centre_mm))))
    return steps


def test_tables_spaced_wider_lay_their_trains_tiles_further_apart():
    spaced = dataclasses.replace(FULL, train_gaps_mm=(4.0, 6.0))
    for seed in range(6):
        usual, wide = make_scene("table", seed, FULL), make_scene("table", seed, spaced)
        length = usual.style.size_mm[0]
        assert max(end_to_end_steps(usual), default=0) <= length + 1.5 + 1e-6
        assert min(end_to_end_steps(wide), default=length + 4) >= (length + 4) * 0.99  # a bend shortens it a little


def test_a_shifted_double_sits_off_its_trains_line():
    shifted = dataclasses.replace(FULL, double_shift=0.4)
    offs = []
    for seed in range(40):
        scene = make_scene("table", seed, shifted)
        for train in scene.trains:
            for before, double, after in zip(train.tiles, train.tiles[1:], train.tiles[2:], strict=False):
                pips = scene.tiles[double].pips
                if pips[0] != pips[1]:
                    continue
                a, m, b = (np.array(scene.tiles[i].centre_mm) for i in (before, double, after))
                line = (b - a) / np.linalg.norm(b - a)
                off = m - a
                offs.append(abs(float(line[0] * off[1] - line[1] * off[0])) / scene.style.size_mm[0])
    assert offs and max(offs) > 0.1  # centred doubles stay within a few hundredths of the line


def test_hubcam_synth_refuses_spacing_for_hands_and_out_of_range(tmp_path):
    from api.cli import main

    base = ["synth", "--n", "1", "--size", "320x240", "--workers", "1", "--out", str(tmp_path / "x")]
    assert main([*base, "--kind", "hand", "--gaps", "2-6"]) == 2
    assert main([*base, "--kind", "table", "--gaps", "6-2"]) == 2
    assert main([*base, "--kind", "table", "--double-shift", "0.9"]) == 2


def test_a_quiet_table_lays_no_printed_things_and_a_busy_one_leaves_the_scene_as_it_was():
    busy = dataclasses.replace(FULL, busy=1.0)
    kinds = set()
    for seed in range(8):
        quiet, loud = make_scene("table", seed), make_scene("table", seed, busy)
        assert not quiet.printed and loud.printed
        assert loud.tiles == quiet.tiles and loud.trains == quiet.trains and loud.markers == quiet.markers
        assert loud.flags == quiet.flags and loud.style == quiet.style
        kinds |= {item.kind for item in loud.printed}
    assert kinds == set(PRINTED_KINDS)
    assert all(make_scene("hand", seed, busy).printed for seed in range(30))  # something on every busy table
    some = [bool(make_scene("hand", seed, dataclasses.replace(FULL, busy=0.5)).printed) for seed in range(30)]
    assert 5 < sum(some) < 25


def test_a_busy_table_draws_its_printed_things_and_labels_only_its_tiles():
    busy = dataclasses.replace(FULL, busy=1.0)
    quiet_image, quiet_label = render(make_scene("table", 5), (640, 480))
    loud_image, loud_label = render(make_scene("table", 5, busy), (640, 480), busy)
    assert json.dumps(loud_label) == json.dumps(quiet_label)  # the same tiles, hub, trains, markers and flags
    changed = np.abs(loud_image.astype(np.int16) - quiet_image).max(axis=2) > 40
    assert changed.mean() > 0.05


def test_printed_white_logos_lie_beside_tiles_on_the_board():
    """Issue 65: most tiles missed on a printed board lay against a white tile-shaped logo, some
    under the tile's edge."""
    busy = dataclasses.replace(FULL, busy=1.0)
    beside = under = 0
    for seed in range(10):
        scene = make_scene("table", seed, busy)
        length, width, _ = scene.style.size_mm
        for logo in (item for item in scene.printed if item.kind == "logo"):
            for tile in scene.tiles:
                apart = math.dist(logo.centre_mm, tile.centre_mm)
                side_gap, end_gap = apart - (width + logo.size_mm[1]) / 2, apart - (length + logo.size_mm[0]) / 2
                gap = side_gap if -2 < side_gap < 3 else end_gap
                if logo.angle == tile.angle and -2 < gap < 3:
                    beside += 1
                    under += gap < 0
    assert beside >= 10 and under >= 1


def test_hubcam_synth_draws_busy_tables_and_refuses_a_share_out_of_range(tmp_path):
    from api.cli import main

    base = ["synth", "--kind", "table", "--n", "1", "--size", "320x240", "--workers", "1"]
    assert main([*base, "--busy", "1.5", "--out", str(tmp_path / "x")]) == 2
    assert main([*base, "--busy", "1", "--out", str(tmp_path / "busy")]) == 0
    assert json.loads((tmp_path / "busy" / "manifest.json").read_text())["options"]["busy"] == 1.0
