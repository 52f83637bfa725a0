"""The run-time detector's pre- and post-processing, photo reading, and the pip reader's halves."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detect.onnx_obb import (
    Letterbox,
    decode,
    decode_looks,
    only_sure_and_large,
    padded_blob,
    view_of,
)
from vision.geometry import (
    halves_in_frame,
    halves_of,
    points_in_quads,
    share_in_frame,
    short_edge_first,
    upright_box,
    xywhr_to_corners,
)
from vision.photo import PhotoError, read_photo
from vision.read.halves import cut_halves, in_half, rectify, split


def padded(view):
    """The view on its padded square, as Ultralytics' letterbox draws it."""
    (height, width), top, left = view.shrunk.shape[:2], int(view.box.pad_y), int(view.box.pad_x)
    bottom, right = view.size - height - top, view.size - width - left
    return cv2.copyMakeBorder(view.shrunk, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114))


def test_the_view_keeps_the_aspect_ratio_and_the_blob_centres_it():
    image = np.full((50, 100, 3), 200, np.uint8)
    view = view_of(image, 64)
    blob = padded_blob(view)
    assert blob.shape == (1, 3, 64, 64)
    assert view.box.scale == pytest.approx(0.64) and (view.box.pad_x, view.box.pad_y) == (0, 16)
    grey, face = np.float32(114) * np.float32(1 / 255), np.float32(200) * np.float32(1 / 255)
    assert (blob[0, :, :16] == grey).all() and (blob[0, :, 48:] == grey).all() and (blob[0, :, 16:48] == face).all()


def test_the_blob_is_what_opencv_makes_of_the_image():
    image = np.random.default_rng(0).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    view = view_of(image, 53)  # the image as it is, padded above and below
    blob = padded_blob(view)
    assert blob.dtype == np.float32 and blob.flags.c_contiguous
    assert np.array_equal(blob, cv2.dnn.blobFromImage(padded(view), 1 / 255, swapRB=True))


@pytest.mark.parametrize("shape", [(50, 100, 3), (100, 37, 3), (64, 64, 3)])
def test_the_padded_blob_is_the_blob_of_the_letterboxed_image(shape):
    image = np.random.default_rng(1).integers(0, 256, shape, dtype=np.uint8)
    view = view_of(image, 64)
    scale = view.box.scale
    assert scale == pytest.approx(64 / max(shape[:2]))
    assert view.shrunk.shape[:2] == (round(shape[0] * scale), round(shape[1] * scale))
    assert np.array_equal(padded_blob(view), cv2.dnn.blobFromImage(padded(view), 1 / 255, swapRB=True))


def test_a_halved_view_averages_the_photo_down_by_halves_first():
    from vision.sampling import halved_towards

    stripes = np.zeros((1203, 1601, 3), np.uint8)
    stripes[:, ::2] = 255  # columns one pixel wide: bilinear shrinking catches or misses them
    halved, times = halved_towards(stripes, 448)
    assert times == 2 and halved.shape[:2] == (601, 800)  # trimmed to even sides, then halved once
    assert (halved == 128).all()  # every pixel the mean of two white and two black
    assert halved_towards(stripes, 801)[0] is stripes  # under twice the size asked: as it is
    assert halved_towards(np.zeros((3024, 4032, 3), np.uint8), 448)[0].shape[:2] == (378, 504)  # 8 times
    view = view_of(stripes, 448, halved=True)
    assert abs(view.shrunk.astype(float).mean() - 128) < 1  # evenly grey, as the stripes average
    assert view_of(stripes, 448).shrunk.astype(float).std() > 30  # one bilinear step: stripes caught or missed


def test_a_halved_view_keeps_the_photos_coordinates():
    photo = np.zeros((1200, 1600, 3), np.uint8)
    cv2.circle(photo, (1203, 301), 12, (255, 255, 255), -1)
    for halved in (False, True):
        view = view_of(photo, 448, halved=halved)
        assert view.box.scale == pytest.approx(448 / 1600) and view.shrunk.shape[:2] == (336, 448)
        grey = view.shrunk[..., 0].astype(float)
        ys, xs = np.mgrid[: grey.shape[0], : grey.shape[1]]
        centre = np.array([(xs * grey).sum(), (ys * grey).sum()]) / grey.sum()
        in_photo = (centre + 0.5) / view.box.scale - 0.5  # as decode takes a box back to the photo
        assert np.allclose(in_photo, [1203, 301], atol=1.5)


def test_xywhr_corners_follow_the_angle():
    flat = xywhr_to_corners([[10, 10, 4, 2, 0]])[0]
    assert np.allclose(flat, [[12, 11], [12, 9], [8, 9], [8, 11]])
    upright = xywhr_to_corners([[10, 10, 4, 2, np.pi / 2]])[0]
    assert np.allclose(sorted(map(tuple, upright.round(4))), sorted([(9, 12), (11, 12), (11, 8), (9, 8)]))


def test_short_edge_first():
    long_first = np.array([[0, 0], [4, 0], [4, 2], [0, 2]], np.float32)
    assert np.linalg.norm(short_edge_first(long_first)[1] - short_edge_first(long_first)[0]) == pytest.approx(2)
    short_first = np.roll(long_first, -1, axis=0)
    assert (short_edge_first(short_first) == short_first).all()
    both = short_edge_first(np.stack([long_first, short_first]))  # many at once: each as alone
    assert (both == np.stack([short_edge_first(long_first), short_first])).all()
    assert short_edge_first(np.zeros((0, 4, 2))).shape == (0, 4, 2)


def test_halves_and_their_share_in_the_frame():
    tile = np.array([[0, 20], [0, 0], [40, 0], [40, 20]], np.float32)  # pips[0] end at x = 0
    first, second = halves_of(tile)
    assert np.allclose(first, [[0, 20], [0, 0], [20, 0], [20, 20]]) and np.allclose(second[2:], tile[2:])
    assert share_in_frame(tile, 100, 100) == pytest.approx(1.0)
    assert share_in_frame(tile - [30, 0], 100, 100) == pytest.approx(0.25)  # 10 of its 40 px are left
    assert halves_in_frame(tile, 100, 100) and halves_in_frame(tile - [0.5, 0], 100, 100)
    assert not halves_in_frame(tile - [5, 0], 100, 100)  # a quarter of the first half is cut away
    assert not halves_in_frame(tile + [65, 0], 100, 100)


def raw_output(rows: list[tuple[float, float, float, float, list[float], float]]) -> np.ndarray:
    """A ``(1, 4 + nc + 1, n)`` array as the exported model gives: box, class scores, angle."""
    return np.array([[cx, cy, w, h, *scores, angle] for cx, cy, w, h, scores, angle in rows], np.float32).T[None]


def test_decode_keeps_confident_boxes_suppresses_overlaps_and_undoes_the_letterbox():
    output = raw_output(
        [
            (32, 32, 20, 10, [0.9, 0.0, 0.0], 0.0),
            (33, 32, 20, 10, [0.8, 0.0, 0.0], 0.0),  # the same tile again, less sure
            (10, 50, 8, 4, [0.0, 0.7, 0.0], 0.0),  # a face-down tile
            (50, 10, 8, 4, [0.1, 0.0, 0.0], 0.0),  # below the threshold
        ]
    )
    found = decode(output, Letterbox(scale=0.5, pad_x=0, pad_y=12), conf=0.25, iou=0.5)
    assert len(found) == 2
    assert list(found.classes) == [0, 1] and found.scores[0] == pytest.approx(0.9)
    first = found.corners[0]
    assert np.allclose(first.mean(axis=0), [64, 40])  # (32 - 0) / 0.5, (32 - 12) / 0.5
    assert np.linalg.norm(first[1] - first[0]) == pytest.approx(20)  # the short edge, in original pixels


def test_decode_keeps_every_proposal_before_suppression_with_all_its_scores():
    output = raw_output(
        [
            (32, 32, 20, 10, [0.9, 0.0, 0.3], 0.0),
            (33, 32, 20, 10, [0.2, 0.0, 0.6], 0.0),  # suppressed, but its standing score is kept
            (50, 10, 8, 4, [0.1, 0.0, 0.0], 0.0),  # below the threshold: no proposal
        ]
    )
    found = decode(output, Letterbox(scale=0.5, pad_x=0, pad_y=12), conf=0.25, iou=0.5)
    assert len(found) == 1 and found.proposals.scores.shape == (2, 3)
    assert np.allclose(found.proposals.centres, [[64, 40], [66, 40]])  # in the photo's pixels
    assert np.allclose(found.proposals.scores[:, 2], [0.3, 0.6])


def test_two_looks_at_one_photo_keep_each_tile_once_at_its_best():
    first = raw_output([(32, 32, 20, 10, [0.5, 0.0, 0.0], 0.0), (10, 10, 8, 4, [0.9, 0.0, 0.0], 0.0)])
    second = raw_output([(16, 16, 10, 5, [0.8, 0.0, 0.0], 0.0)])  # the first box, seen at half the size
    found = decode_looks([(first, Letterbox(1, 0, 0)), (second, Letterbox(0.5, 0, 0))], conf=0.25, iou=0.5)
    assert len(found) == 2 and list(found.scores) == pytest.approx([0.9, 0.8])
    assert np.allclose(found.corners[1].mean(axis=0), [32, 32])  # in the photo's pixels
    assert np.linalg.norm(found.corners[1][2] - found.corners[1][1]) == pytest.approx(20)


def test_only_sure_and_large_boxes_of_a_look_are_kept():
    output = raw_output(
        [
            (16, 16, 10, 5, [0.0, 0.8, 0.0], 0.0),  # 20 px long in the photo, sure (of any class)
            (40, 40, 4, 9, [0.8, 0.0, 0.0], 0.0),  # 18 px: too short
            (60, 60, 12, 6, [0.5, 0.0, 0.0], 0.0),  # long enough, too unsure
        ]
    )
    kept, box = only_sure_and_large((output, Letterbox(0.5, 0, 0)), least_score=0.7, least_long_side_px=19)
    assert kept.shape == (1, output.shape[1], 1) and kept[0, 0, 0] == 16 and box.scale == 0.5


def test_decode_of_nothing():
    found = decode(raw_output([(5, 5, 2, 1, [0.01, 0.0, 0.0], 0.0)]), Letterbox(1, 0, 0))
    assert len(found) == 0 and found.corners.shape == (0, 4, 2)


def test_halves_put_each_tiles_end_on_the_left():
    face = np.zeros((40, 80, 3), np.uint8)
    face[:, :4] = 255  # a white stripe at the far left end (half 0's end)
    face[:, -4:] = 128  # a grey stripe at the far right end (half 1's end)
    first, second = split(face)
    assert first[:, 0].mean() == 255 and second[:, 0].mean() == 128


def test_rectify_and_cut_halves_follow_the_corner_order():
    image = np.zeros((200, 200, 3), np.uint8)
    cv2.rectangle(image, (50, 80), (54, 120), (255, 255, 255), -1)  # a mark at the tile's left end
    corners = np.array([[50, 120], [50, 80], [130, 80], [130, 120]], np.float32)  # corners[0..1] on the left
    face = rectify(image, corners, 40)
    assert face.shape == (40, 80, 3) and face[:, :2].mean() > 200 and face[:, -2:].mean() < 10
    assert cut_halves(image, [corners, corners], 40).shape == (4, 40, 40, 3)
    assert cut_halves(image, [], 40).shape == (0, 40, 40, 3)


def large_tile_photo() -> tuple[np.ndarray, np.ndarray]:
    """A 480 x 240 px tile turned 30 degrees in a photo, its face one-pixel stripes (grey 127 on
    average) with a solid white end at corners[0..1]; and its corners."""
    face = np.zeros((240, 480, 3), np.uint8)
    face[::2] = 255  # stripes across the tile, a pixel each
    face[:, :40] = 255  # the end at corners[0..1]
    flat = np.array([[0, 240], [0, 0], [480, 0], [480, 240]], np.float32)
    centre, turn = np.array([500, 400], np.float32), np.radians(30)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]], np.float32)
    corners = (flat - [240, 120]) @ rotation.T + centre
    H = cv2.getPerspectiveTransform(flat, corners.astype(np.float32))
    photo = cv2.warpPerspective(face, H, (1000, 800), flags=cv2.INTER_NEAREST)
    return photo, corners.astype(np.float32)


def test_a_large_tile_is_averaged_down_not_sampled():
    photo, corners = large_tile_photo()
    face = rectify(photo, corners, 24)  # ten photo pixels to one
    stripes = face[3:-3, 12:-3].astype(float)
    assert abs(stripes.mean() - 127) < 5 and stripes.std() < 5  # the stripes' mean, evenly
    assert face[3:-3, 1:3].mean() > 230  # the white end still on the left, where corners[0..1] are
    sampled = rectify(photo, corners, 24, shrink_above=None)[3:-3, 12:-3].astype(float)
    assert abs(sampled.mean() - 127) > 40 and sampled.std() > 30  # bilinear sampling: stripes caught or missed


def test_a_tile_near_the_faces_size_or_beyond_the_photo_is_not_shrunk():
    photo, corners = large_tile_photo()
    same = rectify(photo, corners, 200)  # 480 px long drawn 400: under SHRINK_ABOVE
    assert np.array_equal(same, rectify(photo, corners, 200, shrink_above=None))
    beyond = corners + [2000, 0]
    assert rectify(photo, beyond, 24).max() == 0  # nothing of the photo to shrink or show


def test_how_many_times_a_warp_averages_the_photo_down_first():
    from vision.sampling import shrinking, source_of, warp_shrunk

    tenth = np.diag([0.1, 0.1, 1.0])  # ten photo pixels to one
    assert shrinking(source_of(tenth, (96, 48)), (96, 48), 1.5) == 16  # a power of two: halved four times
    assert shrinking(source_of(np.diag([0.25, 0.25, 1.0]), (96, 48)), (96, 48), 1.5) == 4
    assert shrinking(source_of(np.diag([0.7, 0.7, 1.0]), (96, 48)), (96, 48), 1.5) == 1  # 1.43 to one
    photo = np.full((600, 1200, 3), 90, np.uint8)
    assert (warp_shrunk(photo, np.zeros((3, 3)), (96, 48)) == 0).all()  # no inverse: drawn as the warp draws it


# --- photos -------------------------------------------------------------------------------


def png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"hello, this is text\n", "is not a JPEG or PNG image"),
        (png_header(20_000, 20_000), "is too large: 20000x20000"),
    ],
)
def test_bad_files_get_a_clear_error(tmp_path, content, message):
    path = tmp_path / "photo.jpg"
    path.write_bytes(content)
    with pytest.raises(PhotoError, match=message):
        read_photo(path)


def test_a_truncated_jpeg_is_refused_and_a_whole_one_read(tmp_path):
    image = np.random.default_rng(0).integers(0, 255, (120, 160, 3), dtype=np.uint8)
    whole = cv2.imencode(".jpg", image)[1].tobytes()
    (tmp_path / "whole.jpg").write_bytes(whole)
    assert read_photo(tmp_path / "whole.jpg").shape == (120, 160, 3)
    (tmp_path / "cut.jpg").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(PhotoError, match="truncated JPEG"):
        read_photo(tmp_path / "cut.jpg")
    with pytest.raises(PhotoError, match="cannot read"):
        read_photo(tmp_path / "missing.jpg")


def test_exif_orientation_is_applied_like_cv2_imread():
    real = Path(__file__).resolve().parents[2] / "shared" / "real" / "yeshdev1__domino_helper" / "IMG_4384.JPG"
    if not real.exists():
        pytest.skip("../shared/real is not here")
    assert read_photo(real).shape == cv2.imread(str(real)).shape


def test_loosened_corners_stay_on_the_tile_but_move():
    from benchmarks.eval.metrics import polygon_iou
    from models.train.counter import loosen

    tile = np.array([[100, 140], [100, 100], [180, 100], [180, 140]], np.float32)
    rng = np.random.default_rng(0)
    loosened = [loosen(tile, rng) for _ in range(200)]
    ious = [polygon_iou(tile, quad) for quad in loosened]
    assert min(ious) > 0.6 and np.median(ious) < 0.97
    shifts = [np.linalg.norm(quad.mean(axis=0) - tile.mean(axis=0)) for quad in loosened]
    assert max(shifts) < 0.4 * 40
    ends = [np.linalg.norm(quad[:2].mean(axis=0) - tile[:2].mean(axis=0)) for quad in loosened]
    assert max(ends) < 20  # corners[0..1] stay at the same end: the halves keep their order


def test_an_overrun_box_runs_past_one_end_only():
    from models.train.refiner import overrun

    tile = np.array([[100, 140], [100, 100], [180, 100], [180, 140]], np.float32)
    rng = np.random.default_rng(0)
    grown_ends = set()
    for _ in range(50):
        grown = overrun(tile, rng)
        first, last = np.abs(grown[:2] - tile[:2]).max(), np.abs(grown[2:] - tile[2:]).max()
        assert min(first, last) == 0  # one end stays where it was ...
        assert 0.1 * 80 - 1e-3 <= max(first, last) <= 0.4 * 80 + 1e-3  # ... the other runs on 10-40 % of the length
        assert np.allclose(grown[:, 1], tile[:, 1])  # along the tile, never across it
        grown_ends.add("first" if first else "last")
    assert grown_ends == {"first", "last"}


def test_a_cut_tile_is_shown_to_the_refiner_as_the_detector_finds_it():
    from models.train.refiner import as_found

    tile = np.array([[-30, 60], [-30, 20], [50, 20], [50, 60]], np.float32)  # its first half mostly beyond x = 0
    found = as_found(tile, 200, 100)
    assert found is not None
    assert found[:, 0].min() == pytest.approx(0) and found[:, 0].max() == pytest.approx(50)
    assert found[:2, 0].mean() < found[2:, 0].mean()  # the corners[0..1] end is still the one at the left
    assert as_found(tile - np.float32([45, 0]), 200, 100) is None  # too little of it shows


def test_tiles_cut_by_the_frame_are_not_taught_to_the_counter():
    from datasets.synth.scene import FULL, make_scene, render
    from models.train.counter import HalvesJob, scene_halves

    _, label = render(make_scene("hand", 17, FULL), (1280, 960), FULL)  # a hand with a tile the frame cuts
    cut = [tile for tile in label["tiles"] if tile["pose"] == "face_up" and tile["cut"]]
    whole = [tile for tile in label["tiles"] if tile["pose"] == "face_up" and not tile["cut"]]
    halves, counts, maps = scene_halves(HalvesJob(17, FULL))
    assert cut and len(halves) == len(counts) <= 2 * len(whole) and counts.max() <= 18
    assert maps.shape == (len(halves), 0, 0)  # pip maps only for a peak counter


def test_a_filmed_rounds_frames_teach_the_halves_of_their_whole_face_up_tiles():
    from datasets.synth.scene import FULL
    from datasets.synth.video_frames import round_frames
    from models.train.counter import (
        FRAME_PICKS,
        FRAME_SIZE,
        FRAME_WHOLE_SHARE,
        MIN_FRAME_SHORT_SIDE_PX,
        HalvesJob,
        scene_halves,
    )

    wanted = [
        pips
        for _, label in round_frames(6, FRAME_SIZE, FRAME_PICKS, FRAME_WHOLE_SHARE)
        for tile in label["tiles"]
        if tile["pose"] == "face_up" and not tile["cut"] and not tile["unreadable"]
        and np.linalg.norm(np.subtract(tile["corners"][1], tile["corners"][0])) >= MIN_FRAME_SHORT_SIDE_PX
        for pips in tile["pips"]
    ]  # fmt: skip
    halves, counts, maps = scene_halves(HalvesJob(6, FULL, kind="frames"))
    assert len(wanted) > 20 and counts.tolist() == wanted
    assert halves.shape == (len(wanted), 48, 48, 3) and maps.shape == (len(wanted), 0, 0)


def test_printed_backs_are_taught_as_no_count_only_in_back_scenes():
    import dataclasses

    from datasets.synth.scene import FULL, make_scene
    from models.train.counter import BACK, BACKS_SHOWN, HalvesJob, scene_halves

    backs_shown = dataclasses.replace(FULL, **BACKS_SHOWN)
    seed = next(seed for seed in range(100) if make_scene("hand", seed, backs_shown).style.back_print)
    scene = make_scene("hand", seed, backs_shown)
    assert any(tile.pose == "face_down" for tile in scene.tiles)
    halves, counts, _ = scene_halves(HalvesJob(seed, backs_shown, backs=True))
    assert (counts == BACK).any() and len(halves) == len(counts)  # those the bundled counter reads blank: left out
    face_up = scene_halves(HalvesJob(seed, backs_shown))[1]  # not asked: the face-up halves alone
    assert not (face_up == BACK).any() and len(face_up) == (counts != BACK).sum()


def test_a_counter_recipe_builds_the_network_of_its_widths():
    torch = pytest.importorskip("torch")  # the train extra
    from models.train.counter import COUNTS, build_model

    model = build_model(COUNTS, (16, 16, 64, 64))
    convolutions = [layer for layer in model.modules() if isinstance(layer, torch.nn.Conv2d)]
    assert [layer.out_channels for layer in convolutions] == [16, 16, 64, 64]
    assert tuple(model(torch.zeros(2, 3, 48, 48)).shape) == (2, COUNTS)
    strided = build_model(COUNTS, (16, 16, 64, 64), strided_stem=True)
    assert next(layer for layer in strided.modules() if isinstance(layer, torch.nn.Conv2d)).stride == (2, 2)
    assert tuple(strided(torch.zeros(2, 3, 48, 48)).shape) == (2, COUNTS)


def test_a_peak_counter_reads_the_count_of_its_maps_peaks():
    torch = pytest.importorskip("torch")  # the train extra
    from models.train.counter import COUNTS, build_model

    model = build_model(COUNTS + 1, (8, 16, 16), peaks=True).eval()
    halves = torch.rand(3, 3, 48, 48)
    with torch.no_grad():
        logits = model(halves)
        assert tuple(logits.shape) == (3, COUNTS + 1)
        assert (logits[:, :COUNTS].argmax(dim=1) == 0).all()  # as it starts, no place is a pip
        model = build_model(COUNTS, (8, 16, 16), peaks=True).eval()
        places = torch.zeros(3, 1, 24, 24)
        places[:, :, 4:20:5, 4:20:5] = 1.0  # 16 places set apart, each a peak
        model.features = torch.nn.Identity()  # the map comes straight from the test
        model.pips = torch.nn.Conv2d(1, 1, 1)
        model.pips.weight.fill_(6.0)
        model.pips.bias.fill_(-3.0)
        assert (model(places)[:, :COUNTS].argmax(dim=1) == 16).all()
        places[0, :, 4, 4] = 0.5  # one peak at the threshold: 15 or 16, unsure
        probabilities = model(places)[0, :COUNTS].softmax(dim=0)
        assert 0.3 < probabilities[15] < 0.7 and 0.3 < probabilities[16] < 0.7


def test_a_peak_counter_in_training_gives_its_map_too():
    torch = pytest.importorskip("torch")
    from models.train.counter import COUNTS, build_model

    model = build_model(COUNTS, (8, 16, 16), peaks=True).train()
    logits, found = model(torch.rand(2, 3, 48, 48))
    assert tuple(logits.shape) == (2, COUNTS) and tuple(found.shape) == (2, 1, 24, 24)
    assert [layer.out_channels for layer in model.modules() if isinstance(layer, torch.nn.Conv2d)] == [8, 16, 16, 1]


def test_the_peak_loss_is_least_where_the_map_finds_the_pips():
    torch = pytest.importorskip("torch")
    from models.train.counter import peak_loss, pip_maps

    wanted = torch.from_numpy(pip_maps([np.array([[10.0, 20.0], [30.0, 30.0]], np.float32)]))[:, None]
    right = torch.logit(wanted.clamp(0.01, 0.99))
    assert peak_loss(right, wanted) < peak_loss(torch.full_like(wanted, -2.2), wanted)
    assert peak_loss(right, wanted) < peak_loss(right.roll(3, dims=3), wanted)


def test_pip_maps_put_one_peak_on_every_drawn_pip():
    """Each half's map has as many places at 1 as the half has pips, and they lie on the pips the halves
    show: the ink (the
    difference from the body, dark pips or light) at a place is over twice the half's on average, as a
    map two pixels off gets to only about 1.1."""
    from datasets.labels import FACE_UP
    from datasets.synth.scene import MAKERS, make_scene, render
    from models.train.counter import MAP_STEP, pip_maps, pip_places

    ratios = []
    for seed in range(6):
        scene = make_scene("hand", seed, MAKERS)
        image, label = render(scene, (1280, 960), MAKERS)
        for tile in label["tiles"]:
            if tile["pose"] != FACE_UP or tile["cut"]:
                continue
            quad = np.array(tile["corners"], np.float32)
            places = pip_places(tuple(tile["pips"]), scene.style, quad, quad)
            maps = pip_maps(places)
            assert maps.shape == (2, 48 // MAP_STEP, 48 // MAP_STEP)
            assert (maps >= 1 - 1e-6).sum(axis=(1, 2)).tolist() == list(tile["pips"])
            for half, pixels in zip(cut_halves(image, [quad]), places, strict=True):
                grey = cv2.GaussianBlur(cv2.cvtColor(half, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1)
                ink = np.abs(grey - np.median(grey))
                for x, y in np.round(pixels).astype(int):
                    if 3 <= x < 45 and 3 <= y < 45:
                        ratios.append(ink[y - 1 : y + 2, x - 1 : x + 2].mean() / ink.mean())
    assert len(ratios) > 100
    assert np.median(ratios) > 2


def test_a_point_of_the_rectified_face_is_where_split_puts_it():
    for (x, y), side in (((5, 30), 0), ((70, 10), 1)):
        face = np.zeros((48, 96, 3), np.uint8)
        face[y, x] = 255
        found = np.argwhere(split(face)[side][:, :, 0])  # (row, column)
        assert found[:, ::-1].tolist() == in_half(np.array([[x, y]], np.float32), side).tolist()


def test_maps_turn_with_their_halves():
    torch = pytest.importorskip("torch")
    from models.train.counter import flipped_with_maps

    halves, maps = torch.zeros(16, 3, 48, 48), torch.zeros(16, 1, 24, 24)
    halves[:, :, 10:12, 30:32] = 1.0  # one pip, the map's place (5, 15)
    maps[:, :, 5, 15] = 1.0
    generator = torch.Generator().manual_seed(0)
    seen = set()
    for _ in range(8):
        turned_halves, turned_maps = flipped_with_maps(halves, maps, generator)
        row, column = divmod(int(turned_maps[0, 0].argmax()), 24)
        bright = turned_halves[0, 0].nonzero()
        assert bright[:, 0].min() // 2 == row and bright[:, 1].min() // 2 == column
        seen.add((row, column))
    assert len(seen) > 1  # it did turn


def test_a_peak_counter_is_not_started_from_another(tmp_path):
    pytest.importorskip("torch")
    from models.train.counter import CounterRecipe, train_and_export

    with pytest.raises(ValueError, match="trained from nothing"):
        train_and_export(tmp_path, CounterRecipe(peaks=True, start_from="models/pip-counter/model.onnx"))


def test_the_set_is_the_smallest_that_holds_every_sure_count():
    from vision.read.pip_reader import likely_set

    def sure(*counts: int, confidence: float = 0.95) -> np.ndarray:
        rows = np.full((len(counts), 19), (1 - confidence) / 18)
        rows[np.arange(len(counts)), counts] = confidence
        return rows

    assert likely_set(sure(0, 3, 6)) == 6
    assert likely_set(sure(0, 3, 7)) == 9
    assert likely_set(sure(12, 1)) == 12
    assert likely_set(np.vstack([sure(2, 5), sure(13, confidence=0.5)])) == 6  # an unsure 13 does not count
    assert likely_set(sure(13, 2)) == 15
    # a lone sure half (a double-12 held up close, its 12 read unsurely) tells nothing of the set
    assert likely_set(np.vstack([sure(7), sure(12, confidence=0.7)])) == 18
    assert likely_set(np.zeros((0, 19))) == 18
    cut = np.zeros((1, 20))
    cut[0, 19] = 1.0  # a counter that also says "cut by the frame": that is no count
    assert likely_set(np.vstack([np.pad(sure(2, 5), ((0, 0), (0, 1))), cut])) == 6


def test_a_half_the_counter_sees_cut_makes_its_tile_uncertain(monkeypatch):
    """A half the counter says holds no count (cut, or a printed back's) more likely than not is
    refused; one it merely doubts is read among the counts alone."""
    from vision.read import pip_reader

    class Counter:
        """Says 5 pips surely for a dark half, mostly "cut" for a bright one, and for a grey one 5
        with 0.35, 6 with 0.2 and "cut" with 0.45 (in every view)."""

        def __init__(self, path, what):
            pass

        def get_inputs(self):
            return [type("Input", (), {"shape": ["n", 3, 48, 48]})]

        def get_outputs(self):
            return [type("Output", (), {"shape": ["n", 20]})]

        def run(self, names, feeds):
            logits = np.full((len(feeds["halves"]), 20), -20.0, np.float32)
            logits[:, 5] = 20.0
            level = feeds["halves"].mean(axis=(1, 2, 3))
            bright, grey = level > 0.7, (level > 0.3) & (level < 0.7)
            logits[bright, 19], logits[bright, 5] = 20.0, 18.0
            logits[grey, 5], logits[grey, 6], logits[grey, 19] = np.log([0.35, 0.2, 0.45]).astype(np.float32)
            return [logits]

    monkeypatch.setattr(pip_reader, "cpu_session", Counter)
    reader = pip_reader.PipReader(Path("counter.onnx"))
    tile = np.array([[10, 50], [10, 10], [90, 10], [90, 50]], np.float32)
    image = np.zeros((100, 450, 3), np.uint8)
    image[:, 150:300] = 255  # where the second tile lies
    image[:, 300:] = 128  # ... and the third
    whole, cut, doubted = reader.read(image, [tile, tile + np.float32([150, 0]), tile + np.float32([300, 0])])
    assert whole.pips == (5, 5) and not whole.uncertain
    assert cut.pips == (5, 5) and cut.uncertain and max(cut.confidence) == 0.0
    assert doubted.pips == (5, 5) and not doubted.uncertain and doubted.confidence[0] == pytest.approx(0.35 / 0.55)


def test_symmetric_views_turn_and_mirror_each_half():
    from vision.read.pip_reader import symmetric_views

    half = np.zeros((1, 4, 4, 3), np.uint8)
    half[0, 0, 1] = 255  # one bright pixel at row 0, column 1
    bright = [tuple(np.argwhere(view[0, :, :, 0])[0]) for view in symmetric_views(half)]
    assert bright == [(0, 1), (3, 2), (3, 1), (0, 2)]


def test_the_upright_box_holds_a_turned_quad():
    turned = xywhr_to_corners([[50, 40, 20, 10, np.radians(30)]])[0]
    box = upright_box(turned)
    assert np.allclose(box[0], turned.min(axis=0)) and np.allclose(box[2], turned.max(axis=0))
    assert np.allclose(box[1], [turned[:, 0].max(), turned[:, 1].min()])


def test_points_in_quads_whichever_way_round():
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    points = np.array([[5, 5], [10, 5], [11, 5], [-1, -1]], np.float32)
    inside = points_in_quads([square, square[::-1], square + 20], points)
    assert inside.tolist() == [[True, True, False, False], [True, True, False, False], [False] * 4]
    assert points_in_quads([square], np.zeros((0, 2))).shape == (1, 0)


def test_the_shipped_detector_rebuilds_into_trainable_weights_that_find_the_same(tmp_path: Path):
    torch = pytest.importorskip("torch")  # the train extra
    pytest.importorskip("ultralytics")
    from datasets.synth.dataset import OBB_NAMES
    from models.train.detector import _offline_ultralytics
    from models.train.from_onnx import rebuild, save_checkpoint
    from vision.onnx_session import cpu_session

    export = Path(__file__).resolve().parents[1] / "models" / "tile-detector" / "model.onnx"
    rng = np.random.default_rng(0)
    scenes = [rng.integers(0, 256, (240, 320, 3), np.uint8) for _ in range(3)]
    images = [padded_blob(view_of(scene, 128))[0] for scene in scenes]
    model = rebuild(export, OBB_NAMES[:3], images[:2])  # the hand detector's three classes
    with torch.no_grad():
        rebuilt = model(torch.from_numpy(images[2][None]))[0].numpy()
    exported = cpu_session(export, "the tile detector").run(None, {"images": images[2][None]})[0]
    assert np.abs(rebuilt - exported).max() < 0.02  # pixels and scores alike: float rounding only
    grown = rebuild(export, OBB_NAMES, images[:2])  # markers and hubs too: their class rows are new
    with torch.no_grad():
        more = grown(torch.from_numpy(images[2][None]))[0].numpy()
    assert more.shape[1] == exported.shape[1] + len(OBB_NAMES) - 3
    kept_rows = [*range(4 + 3), more.shape[1] - 1]  # box, the three classes, angle
    assert np.abs(more[:, kept_rows] - exported).max() < 0.02
    saved = save_checkpoint(model, tmp_path / "start.pt", export, 128)  # as Ultralytics loads starting weights
    with torch.no_grad():
        loaded = _offline_ultralytics()(str(saved)).model.float().eval()(torch.from_numpy(images[2][None]))[0]
    assert np.abs(loaded.numpy() - exported).max() < 0.02
    trainable = [bn for bn in model.modules() if isinstance(bn, torch.nn.BatchNorm2d)]
    assert trainable and all(bn.weight.requires_grad for bn in trainable)
    with pytest.raises(ValueError, match="in the export"):  # two classes: the class layers do not fit
        rebuild(export, OBB_NAMES[:2], images[:1])


@pytest.mark.parametrize(
    ("lr0", "asked"), [(None, {}), (3e-4, {"optimizer": "AdamW", "lr0": 3e-4, "warmup_epochs": 0})]
)
def test_a_gentle_detector_run_asks_ultralytics_for_adamw_at_its_rate_without_warm_up(
    monkeypatch, tmp_path, lr0, asked
):
    import models.train.detector as train_module

    calls = []

    class FakeYOLO:
        def __init__(self, *args, **kwargs):
            pass

        def train(self, **kwargs):
            calls.append(kwargs)

    monkeypatch.setattr(train_module, "_offline_ultralytics", lambda: FakeYOLO)
    recipe = train_module.Recipe(epochs=1, lr0=lr0)
    train_module.train(tmp_path / "data.yaml", tmp_path / "run", recipe)
    chosen = {key: calls[0][key] for key in ("optimizer", "lr0", "warmup_epochs") if key in calls[0]}
    assert chosen == asked


def test_the_reader_on_labelled_corners_reads_the_face_up_tiles_alone():
    """A synthetic label also holds face-down and standing tiles; read, a back counts as a blank double and
    its halves sway the set judged from the photo."""
    from benchmarks.eval.metrics import square
    from benchmarks.eval.oracle import PipsOnTrueCorners
    from datasets.labels import FACE_DOWN, STANDING, LabelledImage, LabelledTile

    image = np.full((200, 300, 3), 90, np.uint8)
    tile = np.array([[20, 60], [20, 20], [100, 20], [100, 60]], np.float32)
    face_up = LabelledTile(tile, (0, 0))
    label = LabelledImage(
        Path("hand.jpg"), 300, 200,
        (LabelledTile(tile + [0, 100], pose=FACE_DOWN), face_up, LabelledTile(square(150, 50, 40), pose=STANDING)),
    )  # fmt: skip
    read = PipsOnTrueCorners()(image, label)
    assert len(read.tiles) == 1
    np.testing.assert_array_equal(read.tiles[0].corners, face_up.corners)


def test_the_peak_counter_overrules_the_counter_only_on_tiles_large_enough(monkeypatch):
    """A counter sure of 7 pips on every half, a peak counter that finds 10 clear peaks on a dark half
    and 4 on a bright one: the peaks' count is taken on a tile long enough (FOR_HANDS), and a sure
    low count within one pip of the peaks stands (vision.read.fusion)."""
    from vision.read import pip_peaks, pip_reader
    from vision.read.fusion import FOR_HANDS

    class Counter:
        def __init__(self, path, what):
            pass

        def get_inputs(self):
            return [type("Input", (), {"shape": ["n", 3, 48, 48]})]

        def get_outputs(self):
            return [type("Output", (), {"shape": ["n", 19]})]

        def run(self, names, feeds):
            logits = np.full((len(feeds["halves"]), 19), -20.0, np.float32)
            bright = feeds["halves"].mean(axis=(1, 2, 3)) > 0.5
            logits[~bright, 7], logits[bright, 3] = 20.0, 20.0
            return [logits]

    class Peaks(Counter):
        def run(self, names, feeds):
            maps = np.zeros((len(feeds["halves"]), 1, 24, 24), np.float32)
            bright = feeds["halves"].mean(axis=(1, 2, 3)) > 0.5
            for index, light in enumerate(bright):
                for place in range(4 if light else 10):
                    maps[index, 0, 2 + 2 * (place // 5), 2 + 4 * (place % 5)] = 0.95
            return [maps]

    monkeypatch.setattr(pip_reader, "cpu_session", Counter)
    monkeypatch.setattr(pip_peaks, "cpu_session", Peaks)
    reader = pip_reader.PipReader(Path("counter.onnx"), peaks=Path("peaks.onnx"))
    long_side = FOR_HANDS.peaks_from_px + 10
    large = np.array([[10, 50], [10, 10], [10 + long_side, 10], [10 + long_side, 50]], np.float32)
    small = np.array([[10, 30], [10, 10], [50, 10], [50, 30]], np.float32)
    image = np.zeros((100, 400, 3), np.uint8)
    image[:, 200:] = 255  # the bright tile
    counted, too_small, low = reader.read(image, [large, small + np.float32([0, 60]), large + np.float32([200, 0])])
    assert counted.pips == (10, 10) and not counted.uncertain
    assert too_small.pips == (7, 7)
    assert low.pips == (3, 3)
