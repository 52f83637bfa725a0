"""``hubcam score`` end to end with the shipped models (skipped until models/ holds them)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.cli import main
from datasets.synth.scene import make_scene, render
from models import COUNTER, DETECTOR
from vision.observation import Reason
from vision.read.pip_reader import BEYOND_FRAME, HOLDS_NO_COUNT, UNSURE

pytestmark = pytest.mark.skipif(not (DETECTOR.exists() and COUNTER.exists()), reason="no trained models in models/")


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("photos")
    image, label = render(make_scene("hand", 424242))
    cv2.imwrite(str(folder / "hand.jpg"), image)
    return folder / "hand.jpg", label


def shapes_looked_at(scorer, monkeypatch) -> list[tuple[int, ...]]:
    """The shape of every image ``scorer`` looks for tiles in from now on (the photo, redrawn views)."""
    seen: list[tuple[int, ...]] = []
    look = scorer.find_tiles

    def find_tiles(image, *view, **placed):
        seen.append(image.shape)
        return look(image, *view, **placed)

    monkeypatch.setattr(scorer, "find_tiles", find_tiles)
    return seen


def test_score_json_has_the_promised_shape(photo, capsys):
    path, _ = photo
    assert main(["score", str(path), "--json", "--timings"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(result) == {"image", "width", "height", "tiles", "total", "uncertain", "cut_by_frame", "timings_ms"}
    assert (result["width"], result["height"]) == tuple(cv2.imread(str(path)).shape[1::-1])
    assert set(result["timings_ms"]) == {"decode", "detect", "pips", "total"}
    for index, tile in enumerate(result["tiles"]):
        assert len(tile["corners"]) == 4 and 0 <= tile["confidence"] <= 1
        if index not in result["uncertain"]:
            assert all(0 <= count <= 18 for count in tile["pips"])
    counted = [tile for index, tile in enumerate(result["tiles"]) if index not in result["uncertain"]]
    assert result["total"] == sum(sum(tile["pips"]) for tile in counted)


def test_a_bad_photo_gets_an_error_line_and_the_others_are_still_scored(photo, tmp_path, capsys):
    path, _ = photo
    (tmp_path / "notes.jpg").write_text("not a photo")
    assert main(["score", str(tmp_path / "notes.jpg"), str(path), "--json"]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert lines[0]["error"].endswith("is not a JPEG or PNG image") and "tiles" in lines[1]


def test_overlay_and_table(photo, tmp_path, capsys):
    path, _ = photo
    assert main(["score", str(path), "--overlay", str(tmp_path / "over")]) == 0
    assert "tiles, total" in capsys.readouterr().out
    overlay = cv2.imread(str(tmp_path / "over" / "hand.overlay.jpg"))
    assert overlay.shape == cv2.imread(str(path)).shape
    corner = overlay[: overlay.shape[0] // 40, : overlay.shape[1] // 10]
    assert (corner.max(axis=2) < 40).mean() > 0.5 and corner.max() > 200  # the total, white on a black strip


def test_an_overlay_names_why_a_tile_was_left_out_in_a_word():
    from vision import leave_out
    from vision.observation import Reason, Sighting
    from vision.overlay import overlay_text
    from vision.read import pip_reader
    from vision.table_reader import HUB_MARK

    reasons = [pip_reader.BEYOND_FRAME, pip_reader.HOLDS_NO_COUNT, pip_reader.UNSURE]
    reasons += [leave_out.NOT_A_FACE, leave_out.PART_OF_A_TILE, leave_out.OTHER_POSE_SEEN, leave_out.READ_ALIKE]
    reasons += [leave_out.ACROSS_TWO, leave_out.FOUND_UNSURELY, HUB_MARK]
    assert sorted(reasons) == sorted(Reason)  # every reason is one a pipeline gives
    words = [reason.word for reason in Reason]
    assert len(set(words)) == len(words) and all(reason.message for reason in Reason)
    corners = np.zeros((4, 2), np.float32)
    assert overlay_text(Sighting(corners, (6, 3), 0.3, Reason.BEYOND_FRAME)) == "? edge"
    assert overlay_text(Sighting(corners, (6, 3))) == "6-3" and overlay_text(Sighting(corners, None)) == "?"


def test_a_banner_covers_only_the_top_left_corner():
    from vision.draw import banner

    image = np.full((600, 800, 3), 128, np.uint8)
    banner(image, "total 42", 2)
    ys, xs = np.nonzero((image != 128).any(axis=2))
    assert ys.max() < 60 and xs.max() < 250 and image[:30, :100].min() == 0 and image[:30, :100].max() == 255


def test_a_folder_is_scored_photo_by_photo_and_no_overlay_overwrites_another(photo, tmp_path, capsys):
    path, _ = photo
    first, second, empty = tmp_path / "first", tmp_path / "second", tmp_path / "empty"
    for folder in (first, second, empty):
        folder.mkdir()
    for copy in (first / "b.JPG", first / "a.jpg", second / "a.jpg"):
        copy.write_bytes(path.read_bytes())
    (first / "notes.txt").write_text("not a photo, and not named as one: left out")
    assert main(["score", str(first), str(second), "--json", "--overlay", str(tmp_path / "over")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert [line["image"] for line in lines] == [str(first / "a.jpg"), str(first / "b.JPG"), str(second / "a.jpg")]
    assert len({line["total"] for line in lines}) == 1  # the same photo three times
    assert sorted(item.name for item in (tmp_path / "over").iterdir()) == [
        "a-2.overlay.jpg", "a.overlay.jpg", "b.overlay.jpg",
    ]  # fmt: skip
    assert main(["score", str(empty), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error"] == f"{empty} is a folder with no JPEG or PNG photo in it"


class _Stream(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


@pytest.mark.parametrize(
    ("out_terminal", "err_terminal", "photos", "shown"),
    [(False, True, 2, True), (True, True, 2, False), (False, False, 2, False), (False, True, 1, False)],
)
def test_a_progress_bar_shows_only_where_the_results_do_not(monkeypatch, out_terminal, err_terminal, photos, shown):
    from api.cli.common import with_progress

    err = _Stream(err_terminal)
    monkeypatch.setattr(sys, "stdout", _Stream(out_terminal))
    monkeypatch.setattr(sys, "stderr", err)
    paths = [Path(f"{index}.jpg") for index in range(photos)]
    assert list(with_progress(paths)) == paths
    assert ("scoring" in err.getvalue()) == shown


def test_a_hand_photo_imports_neither_torch_nor_ultralytics(photo):
    path, _ = photo
    code = (
        "import sys; from api.cli import main; main(['score', sys.argv[1], '--json']); "
        "print('heavy:', sorted(m for m in ('torch', 'ultralytics') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("heavy: []")


def test_impossible_counts_are_never_reported(photo, capsys):
    path, _ = photo
    assert main(["score", str(path), "--json", "--set", "6"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert all(max(tile["pips"]) <= 6 for tile in result["tiles"] if tile["pips"])
    assert np.isfinite(result["total"])


def test_a_half_beyond_the_frame_is_not_read(photo):
    """A tile cut by the frame is reported uncertain rather than read short (a cut half looks blank)."""
    from vision.read.pip_reader import PipReader

    path, label = photo
    image = cv2.imread(str(path))
    whole = np.array(label["tiles"][0]["corners"], np.float32)
    length = np.linalg.norm(whole[2] - whole[1])
    at_edge = whole - whole.min(axis=0) + [1, 1]  # wholly inside, touching the top-left corner
    cut = at_edge - [length / 4, 0]  # now a quarter of the tile is off the left edge
    inside, outside = PipReader(COUNTER).read(image, [at_edge, cut], highest=18)
    assert not (inside.uncertain and min(inside.confidence) >= 0.6)  # only its confidence can refuse it
    assert outside.uncertain and outside.why == "beyond_frame"
    assert inside.why == ("read_unsure" if inside.uncertain else None)


def test_a_tile_the_frame_cuts_is_told_apart_from_the_tiles_and_says_why(photo, tmp_path, capsys):
    path, label = photo
    image = cv2.imread(str(path))
    whole = np.array(label["tiles"][0]["corners"], np.float32)
    shifted = np.float32([[1, 0, -whole[:, 0].min() - np.linalg.norm(whole[2] - whole[1]) / 4], [0, 1, 0]])
    cut_photo = tmp_path / "cut.png"  # the first tile a quarter beyond the left edge
    cv2.imwrite(str(cut_photo), cv2.warpAffine(image, shifted, (image.shape[1], image.shape[0])))
    assert main(["score", str(cut_photo), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    cut = result["cut_by_frame"]
    assert all(tile["cut"] and tile["reason"] for tile in cut)
    assert any(tile["reason"] == "beyond_frame" and min(x for x, _ in tile["corners"]) < 2 for tile in cut)
    left_out = [result["tiles"][index] for index in result["uncertain"]]
    assert all(tile["reason"] for tile in left_out)
    assert not any("reason" in tile for index, tile in enumerate(result["tiles"]) if index not in result["uncertain"])
    assert main(["score", str(cut_photo)]) == 0
    assert f"and {len(cut)} tile" in capsys.readouterr().out


def test_a_close_up_of_one_tile_is_found_by_the_second_look(photo):
    """A tile filling 60 % of the frame: larger than the detector learnt, found seen smaller
    (the first look alone misses it)."""
    from benchmarks.eval.metrics import match_tiles
    from vision.pipeline import HandScorer

    path, label = photo
    image = cv2.imread(str(path))
    tile = next(t for t in label["tiles"] if t["pose"] == "face_up" and not t["cut"])
    corners = np.array(tile["corners"], np.float32)
    side = round(np.linalg.norm(corners[2] - corners[1]) / 0.6)
    x0, y0 = np.clip(corners.mean(axis=0) - [side / 2, side * 3 / 8], 0, None).astype(int)
    window = np.ascontiguousarray(image[y0 : y0 + side * 3 // 4, x0 : x0 + side])
    found = HandScorer()(window)
    matches = match_tiles([corners - [x0, y0]], [t.corners for t in found.tiles])
    assert matches and sorted(found.tiles[matches[0][1]].pips) == sorted(tile["pips"])


def test_a_hand_photographed_from_afar_is_looked_at_closer(monkeypatch):
    """A hand of 15 tiles in the middle of a photo three times its size (the tiles as many pixels long,
    a third as long at the detector's input): one look misses most of them; the closer look, at the
    part they lie in, totals the hand as the photo of it alone is totalled."""
    from vision.pipeline import HandScorer

    image, label = render(make_scene("hand", 424248))
    height, width = image.shape[:2]
    afar = np.empty((3 * height, 3 * width, 3), np.uint8)
    afar[:] = np.median(image[0], axis=0)
    afar[height : 2 * height, width : 2 * width] = image
    scorer = HandScorer()
    regions = []
    look_within = scorer.detector.look_within

    def looked_within(photo, region):
        regions.append(region)
        return look_within(photo, region)

    monkeypatch.setattr(scorer.detector, "look_within", looked_within)
    assert scorer(afar).total == scorer(image).total == label["total_pips"]
    x0, y0, x1, y1 = regions[0]
    assert x0 >= width * 0.8 and y0 >= height * 0.8 and x1 <= width * 2.2 and y1 <= height * 2.2  # round the hand
    assert HandScorer(closer_look=None)(afar).total < label["total_pips"] / 2


def test_the_bundled_detector_runs_at_the_size_asked_else_at_the_size_it_was_trained_at():
    from vision.detect.onnx_obb import OBBDetector

    trained_at = json.loads(DETECTOR.with_name("card.json").read_text())["recipe"]["imgsz"]
    assert OBBDetector(DETECTOR).imgsz == trained_at
    detector = OBBDetector(DETECTOR, 416)
    assert detector.dynamic and detector.imgsz == 416
    assert len(detector(np.zeros((480, 640, 3), np.uint8)).scores) == 0


def test_a_detector_exported_at_a_fixed_size_runs_at_that_size(tmp_path):
    """(Older exports, and any made with ``dynamic=False``, take one input size only.)"""
    import onnx

    from vision.detect.onnx_obb import OBBDetector

    model = onnx.load(str(DETECTOR))
    for axis, size in zip(model.graph.input[0].type.tensor_type.shape.dim[2:], (320, 320), strict=True):
        axis.dim_value = size  # fix the height and width
    onnx.save(model, str(tmp_path / "model.onnx"))
    fixed = OBBDetector(tmp_path / "model.onnx", 416)
    assert not fixed.dynamic and fixed.imgsz == 320
    assert len(fixed(np.zeros((480, 640, 3), np.uint8)).scores) == 0


def test_a_detector_sees_photos_halved_first_where_its_card_says_it_learnt_them_so(tmp_path):
    from vision.detect.onnx_obb import OBBDetector

    (tmp_path / "model.onnx").symlink_to(DETECTOR)
    card = json.loads(DETECTOR.with_name("card.json").read_text())
    assert not OBBDetector(tmp_path / "model.onnx").halved  # no card: a bilinear view, as before
    card["recipe"]["halved_view"] = True
    (tmp_path / "card.json").write_text(json.dumps(card))
    detector = OBBDetector(tmp_path / "model.onnx", 448)
    stripes = np.zeros((1200, 1600, 3), np.uint8)
    stripes[:, ::2] = 255
    assert detector.halved and (detector.view(stripes).shrunk == 128).all()
    assert not OBBDetector(tmp_path / "model.onnx", 448, halved=False).halved  # asked otherwise


def test_a_dim_photo_is_read_brightened(photo, monkeypatch):
    """The pipeline looks for tiles in the brightened photo, and only when asked to brighten."""
    from vision.exposure import LEVEL, highlights
    from vision.pipeline import HandScorer

    path, _ = photo
    dim = (cv2.imread(str(path)) * 0.4).astype(np.uint8)
    seen: list[int] = []
    for brighten in (True, False):
        scorer = HandScorer(brighten=brighten)
        look = scorer.find_tiles

        def find_tiles(image, *view, look=look, **placed):
            seen.append(highlights(image))
            return look(image, *view, **placed)

        monkeypatch.setattr(scorer, "find_tiles", find_tiles)
        scorer(dim)
    assert abs(seen[0] - LEVEL) <= 2 and seen[1] == highlights(dim) < LEVEL - 50


def test_a_slanted_photo_is_looked_at_again_square_on(monkeypatch):
    """A hand of 15 face-up tiles photographed 40 degrees further tipped: the tiles are found again
    in the photo redrawn square-on (again while that view still looks slanted), and come back in the
    photo's own pixels."""
    from benchmarks.eval.metrics import match_tiles
    from datasets.synth.retake import slanted
    from vision.pipeline import SQUARE_ON_LOOKS, HandScorer

    image, label = render(make_scene("hand", 830))  # the score benchmark's hand: 15 face-up tiles
    tipped, matrix = slanted(-40)(image)  # against the render's own tilt, so the slant adds up
    truth = [
        cv2.perspectiveTransform(np.array(t["corners"], np.float64)[None], matrix)[0]
        for t in label["tiles"]
        if t["pose"] == "face_up" and not t["cut"]
    ]
    scorer = HandScorer()
    looked_at = shapes_looked_at(scorer, monkeypatch)
    found = scorer(tipped)
    assert 2 <= len(looked_at) <= 1 + SQUARE_ON_LOOKS and tipped.shape not in looked_at[1:]
    assert len(match_tiles(truth, [t.corners for t in found.tiles])) >= 0.9 * len(truth)


def test_boxes_the_refiner_moves_onto_one_tile_are_counted_once(photo, monkeypatch):
    """Two boxes over parts of one tile, both moved onto all of it, are one tile."""
    from vision.pipeline import HandScorer

    path, _ = photo
    image = cv2.imread(str(path))
    counts = []
    for covered in (None, 0.6):
        scorer = HandScorer(covered=covered, slant=None)
        refine = scorer.refiner

        def onto_the_first(image_bgr, corners, placed=None, refine=refine):
            refined = refine(image_bgr, corners, placed)
            return [refined[0], *refined[1:-1], refined[0] + np.float32([3, 2])]  # the worst box onto the best's tile

        monkeypatch.setattr(scorer, "refiner", onto_the_first)
        found = scorer(image)
        counts.append(len(found.tiles))
    assert counts[0] >= 3 and counts[1] == counts[0] - 1


@pytest.mark.parametrize(
    ("spread_slant", "slant_again", "most", "looks"),
    [(None, None, 3, 0), (1.8, 1.1, 3, 0), (1.6, None, 3, 1), (1.6, 1.3, 3, 1), (1.6, 1.1, 2, 2), (1.6, 1.1, 3, 3)],
)
def test_tiles_of_spread_sizes_are_looked_at_square_on_and_again_while_they_look_slanted(
    photo, monkeypatch, spread_slant, slant_again, most, looks
):
    """Tiles whose sizes spread 1.7 times, on a plane fitted slanted 1.2 (under SLANT): redrawn where
    the spread is over ``spread_slant``, and again, up to ``most`` views, where the view's tiles still
    look slanted over ``slant_again``."""
    from calibration.table_plane import TablePlane
    from vision import pipeline

    path, _ = photo
    image = cv2.imread(str(path))
    scorer = pipeline.HandScorer(
        slant=1.4, spread_slant=spread_slant, slant_again=slant_again, foreshortened=None, square_on_looks=most
    )
    corners, scores, proposals, _ = scorer.find_tiles(image)
    seen = shapes_looked_at(scorer, monkeypatch)
    monkeypatch.setattr(pipeline, "size_spread", lambda corners: 1.7)
    monkeypatch.setattr(pipeline, "table_plane", lambda corners: TablePlane(np.eye(3), 1.2))
    scorer.square_on_again(image, corners, scores, proposals)
    assert len(seen) == looks


@pytest.mark.parametrize(
    ("foreshortened", "ratio", "looks"), [(None, 2.6, 0), (2.25, 2.1, 0), (2.25, 2.6, 3), (2.7, 2.6, 0)]
)
def test_tiles_longer_for_their_width_than_a_face_are_looked_at_square_on(
    photo, monkeypatch, foreshortened, ratio, looks
):
    """Boxes all ``ratio`` times as long as wide, alike in size, on a plane fitted square-on: redrawn
    (and again, while the view's boxes look so) where that is over ``foreshortened``."""
    from calibration.table_plane import TablePlane
    from vision import pipeline

    path, _ = photo
    image = cv2.imread(str(path))
    scorer = pipeline.HandScorer(foreshortened=foreshortened, square_on_looks=3)
    corners, scores, proposals, _ = scorer.find_tiles(image)
    monkeypatch.setattr(pipeline, "FORESHORTENED_TILES", len(corners))  # the photo's boxes are enough to tell
    seen = shapes_looked_at(scorer, monkeypatch)
    monkeypatch.setattr(pipeline, "size_spread", lambda corners: 1.0)
    monkeypatch.setattr(pipeline, "table_plane", lambda corners: TablePlane(np.eye(3), 1.0))
    monkeypatch.setattr(pipeline, "side_ratios", lambda corners: np.full(len(corners), ratio))
    scorer.square_on_again(image, corners, scores, proposals)
    assert len(seen) == looks


@pytest.mark.parametrize("in_view", [True, False])
def test_boxes_found_in_a_redrawn_view_are_refined_there_or_in_the_photo(photo, monkeypatch, in_view):
    from calibration.table_plane import TablePlane
    from vision import pipeline

    path, _ = photo
    image = cv2.imread(str(path))
    scorer = pipeline.HandScorer(slant=1.1, refine_in_view=in_view, foreshortened=None, square_on_looks=1)
    corners, scores, proposals, _ = scorer.find_tiles(image)
    refine, refined_in = scorer.refiner, []

    def recorded(image_bgr, corners, placed=None, refine=refine):
        refined_in.append(image_bgr.shape)
        return refine(image_bgr, corners, placed)

    monkeypatch.setattr(scorer, "refiner", recorded)
    seen = shapes_looked_at(scorer, monkeypatch)
    monkeypatch.setattr(pipeline, "size_spread", lambda corners: 1.3)
    monkeypatch.setattr(pipeline, "table_plane", lambda corners: TablePlane(np.eye(3), 1.3))
    found, _, _ = scorer.square_on_again(image, corners, scores, proposals)
    assert len(seen) == 1 and seen[0] != image.shape  # one redrawn view, cut round the tiles
    assert refined_in == [seen[0] if in_view else image.shape]
    assert len(found) >= 3 and all(quad.shape == (4, 2) for quad in found)
    first = np.array([quad.mean(axis=0) for quad in corners])
    nearest = [np.linalg.norm(first - quad.mean(axis=0), axis=1).min() for quad in found]
    length = np.median([np.linalg.norm(quad[2] - quad[1]) for quad in corners])
    assert np.median(nearest) < 0.1 * length  # taken back to the photo's pixels, onto the tiles seen at first


def test_the_slant_is_judged_by_the_boxes_whose_pips_were_read_surely(photo, monkeypatch):
    """Boxes over no tile come in every size: only those read surely say whether the photo is slanted."""
    import dataclasses

    from vision import pipeline

    path, _ = photo
    image = cv2.imread(str(path))
    scorer = pipeline.HandScorer()
    read = scorer.reader.read

    given = []

    def first_refused(image_bgr, corners, highest=None):
        readings = read(image_bgr, corners, highest)
        given.append([dataclasses.replace(readings[0], why=UNSURE), *readings[1:]])
        return given[-1]

    judged = []
    monkeypatch.setattr(scorer.reader, "read", first_refused)
    monkeypatch.setattr(pipeline, "size_spread", lambda corners: judged.append(len(corners)) or 1.0)
    found = scorer(image)
    sure = sum(not reading.uncertain for reading in given[0])
    assert len(found.tiles) >= 3 and 0 < sure < len(found.tiles) and judged == [sure]


@pytest.mark.parametrize(
    ("doubt_slant", "why", "odd", "looks"),
    [
        (1.2, "", False, 1),
        (1.2, UNSURE, False, 2),
        (1.2, HOLDS_NO_COUNT, False, 1),
        (1.2, BEYOND_FRAME, False, 1),
        (1.2, "", True, 2),
        (None, UNSURE, True, 1),
    ],
)
def test_a_photo_slanted_under_slant_is_redrawn_only_where_the_first_look_left_doubt(
    photo, monkeypatch, doubt_slant, why, odd, looks
):
    """A plane fitted slanted 1.3, between DOUBT_SLANT and SLANT: redrawn (a second look) only where a
    tile was read unsurely at the first, or a box was of no tile's shape; not for a printed back
    refused or a tile beyond the frame, which a square-on view does not mend."""
    import dataclasses

    from calibration.table_plane import TablePlane
    from vision import leave_out, pipeline

    path, _ = photo
    image = cv2.imread(str(path))
    scorer = pipeline.HandScorer(
        slant=1.4, doubt_slant=doubt_slant, spread_slant=None, foreshortened=None, square_on_looks=1
    )
    read = scorer.reader.read
    calls = []

    def first_look_refused(image_bgr, corners, highest=None):
        readings = [dataclasses.replace(reading, why=None) for reading in read(image_bgr, corners, highest)]
        calls.append(len(corners))
        if len(calls) == 1:
            readings = [dataclasses.replace(readings[0], why=why), *readings[1:]]
        return readings

    monkeypatch.setattr(scorer.reader, "read", first_look_refused)
    reason = leave_out.NOT_A_FACE if odd else None
    monkeypatch.setattr(scorer, "odd_ones", lambda corners, readings, frame: [reason] + [None] * (len(corners) - 1))
    seen = shapes_looked_at(scorer, monkeypatch)
    monkeypatch.setattr(pipeline, "size_spread", lambda corners: 1.3)
    monkeypatch.setattr(pipeline, "table_plane", lambda corners: TablePlane(np.eye(3), 1.3))
    scorer(image)
    assert len(seen) == looks and len(calls) == looks


def test_a_tile_is_read_only_with_the_share_of_each_half_inside_the_photo_asked(photo):
    """The same box near the frame's edge is read where the reader asks for a little less of each half
    inside the photo than lies there, and reported uncertain where it asks for a little more."""
    from vision.geometry import halves_of, share_in_frame
    from vision.read.pip_reader import PipReader

    path, label = photo
    image = cv2.imread(str(path))
    whole = np.array(label["tiles"][0]["corners"], np.float32)
    at_edge = whole - whole.min(axis=0) + [1, 1]
    nudged = at_edge - (at_edge[2] - at_edge[1]) * 0.04  # moved along its length, partly off the frame
    height, width = image.shape[:2]
    inside = min(share_in_frame(half, width, height) for half in halves_of(nudged))
    assert 0.7 < inside < 1.0
    below, above = (PipReader(COUNTER, min_confidence=0.0, in_frame=share) for share in (inside - 0.01, inside + 0.01))
    assert not below.read(image, [nudged], highest=18)[0].uncertain
    assert above.read(image, [nudged], highest=18)[0].uncertain


def test_the_boxes_shape_tells_a_foreshortened_photo_only_from_enough_boxes():
    from vision.pipeline import FORESHORTENED, FORESHORTENED_TILES, HandScorer

    scorer = HandScorer()
    long_box = np.float32([[0, 10], [0, 0], [26, 0], [26, 10]])  # 2.6:1
    face = np.float32([[0, 10], [0, 0], [20, 0], [20, 10]])  # 2:1
    assert FORESHORTENED < 2.6
    assert not scorer.looks_foreshortened([long_box] * (FORESHORTENED_TILES - 1))
    assert scorer.looks_foreshortened([long_box] * FORESHORTENED_TILES)
    assert not scorer.looks_foreshortened([face] * FORESHORTENED_TILES)
    assert not HandScorer(foreshortened=None).looks_foreshortened([long_box] * FORESHORTENED_TILES)


def test_boxes_the_detector_also_saw_in_another_pose_are_left_out(photo, monkeypatch):
    """The leave-out stage asks ``seen_in_other_pose`` about the final boxes and leaves those it names out."""
    from vision import leave_out, pipeline

    path, _ = photo
    image = cv2.imread(str(path))
    asked = []

    def every_other_one(corners, proposals, ratio):
        asked.append((len(corners), len(proposals.centres), ratio))
        return [index % 2 == 1 for index in range(len(corners))]

    plain = pipeline.HandScorer(other_pose=None)(image)
    monkeypatch.setattr(leave_out, "seen_in_other_pose", every_other_one)
    told = pipeline.HandScorer(other_pose=0.7)(image)
    assert asked and asked[0][0] == len(told.tiles) >= 2 and asked[0][1] >= len(told.tiles) and asked[0][2] == 0.7
    assert [tile.uncertain for tile in told.tiles][1::2] == [True] * (len(told.tiles) // 2)
    assert {tile.reason for tile in told.tiles[1::2]} <= {Reason.OTHER_POSE, Reason.BEYOND_FRAME}
    expected = sum(sum(tile.pips) for index, tile in enumerate(plain.tiles) if index % 2 == 0 and not tile.uncertain)
    assert told.total == expected


def test_a_tile_read_twice_is_counted_once():
    """One set holds each tile once: a hand photographed twice over, one copy above the other, totals
    as the hand does, each tile's second reading left out (ONE_OF_EACH)."""
    from vision.leave_out import READ_ALIKE
    from vision.pipeline import HandScorer

    image, _ = render(make_scene("hand", 12))  # 16 face-up tiles, all read surely
    twice = np.concatenate([image, image], axis=0)
    scorer, counting_all = HandScorer(), HandScorer(one_of_each=False)
    once = scorer(image)
    assert not any(tile.uncertain for tile in once.tiles)
    doubled = scorer(twice)
    assert doubled.total == once.total and counting_all(twice).total == 2 * once.total
    assert sum(tile.reason == READ_ALIKE for tile in doubled.tiles) == len(once.tiles)


def test_a_box_scoring_below_the_least_score_is_left_out_as_found_unsurely():
    """LEAST_BOX_SCORE: asked for more than any box can score, every tile is left out, saying why."""
    from vision.leave_out import FOUND_UNSURELY
    from vision.pipeline import HandScorer

    image, _ = render(make_scene("hand", 12))  # 16 face-up tiles, all read surely
    found = HandScorer()(image)
    assert found.total > 0 and not any(tile.uncertain for tile in found.tiles)
    doubted = HandScorer(least_score=1.01)(image)
    assert doubted.total == 0 and {tile.reason for tile in doubted.tiles} == {FOUND_UNSURELY}
    assert HandScorer(least_score=None)(image).total == found.total


def test_boxes_across_the_ends_of_tiles_in_a_row_are_left_out_and_the_tiles_kept():
    """Three tiles end to end, 20 x 10 each, and two less sure boxes across their ends (ACROSS)."""
    from vision.leave_out import across_two

    def box(x: float, length: float = 20) -> np.ndarray:
        return np.array([[x, 10], [x, 0], [x + length, 0], [x + length, 10]], np.float32)

    tiles, across = [box(0), box(20), box(40)], [box(10), box(30)]
    assert across_two(tiles + across, [0.9, 0.8, 0.7, 0.6, 0.5]) == [False, False, False, True, True]
    assert across_two(across + tiles, [0.6, 0.5, 0.9, 0.8, 0.7]) == [True, True, False, False, False]
    assert across_two(tiles + across, [0.9, 0.8, 0.7, 0.6, 0.5], iou=None) == [False] * 5
    # a box over one tile's end and past it (its other half on no tile) is left to the other tests
    assert across_two(tiles + [box(50)], [0.9, 0.8, 0.7, 0.6]) == [False] * 4
    # two tiles side by side, and a box across both their left ends
    beside = box(0) + [0, 10]
    assert across_two([box(0), beside, box(20)], [0.9, 0.8, 0.7]) == [False] * 3  # three tiles
    square_across = np.array([[10, 0], [0, 0], [0, 20], [10, 20]], np.float32)
    assert across_two([box(0), beside, square_across], [0.9, 0.8, 0.7]) == [False, False, True]


def test_the_table_says_which_surer_tile_a_tile_left_out_repeats():
    from api.cli.read import score_text
    from vision.observation import Observation, Reason, Sighting

    corners = np.zeros((4, 2), np.float32)
    seen = Observation(
        (
            Sighting(corners, (6, 3), 0.9, Reason.READ_UNSURE), Sighting(corners, (3, 6), 0.9),
            Sighting(corners, (6, 3), 0.9, Reason.READ_ALIKE), Sighting(corners, None, 0.0, Reason.NO_COUNT),
        )
    )  # fmt: skip
    lines = score_text("hand.jpg", seen).splitlines()
    assert lines[0] == "hand.jpg: 4 tiles, total 9"
    assert "6-3?" in lines[1] and "(uncertain: read unsure, not counted)" in lines[1]  # shown as the JSON has it
    assert "3-6 " in lines[2] and "uncertain" not in lines[2]
    assert "6-3?" in lines[3] and "read like the surer tile 2, not counted" in lines[3]
    assert " ?  " in lines[4] and "confidence 0.00 (uncertain: a half holds no count" in lines[4]


def test_a_close_crop_of_one_tile_gives_that_tile_alone():
    """Cropped close round its upright box, a tile is the one tile reported: no box over its pips or
    divider, nor over the table beside it (tiles cut by the crop's edge aside). In this hand, boxes the
    size of a pip, reported uncertain or even counted as 0-0, stood beside six of its tiles so cropped."""
    from benchmarks.eval.metrics import match_tiles
    from vision.pipeline import HandScorer

    image, label = render(make_scene("hand", 424251))
    scorer = HandScorer()
    for tile in [t for t in label["tiles"] if t["pose"] == "face_up" and not t["cut"]]:
        corners = np.array(tile["corners"], np.float32)
        pad = 0.15 * np.linalg.norm(corners[2] - corners[1])
        (x0, y0), (x1, y1) = (
            np.maximum(corners.min(axis=0) - pad, 0).astype(int),
            (corners.max(axis=0) + pad).astype(int),
        )
        found = scorer(np.ascontiguousarray(image[y0:y1, x0:x1]))
        whole = [t for t in found.tiles if not t.cut]
        assert len(whole) == 1 and match_tiles([corners - [x0, y0]], [whole[0].corners])
        assert sorted(whole[0].pips) == sorted(tile["pips"])


def test_boxes_far_smaller_than_the_tiles_counted_are_dropped_not_reported():
    from vision.leave_out import phantoms
    from vision.observation import Sighting

    def box(x, y, long, short=None):
        short = short or long / 2
        return np.array([[x, y], [x, y + short], [x + long, y + short], [x + long, y]], np.float32)

    near, middle, far = Sighting(box(0, 0, 300), (1, 2)), Sighting(box(400, 0, 200), (3, 4)), box(700, 0, 110)
    pip = Sighting(box(10, 10, 20, 20), (0, 0), reason=Reason.READ_UNSURE)
    far_tile = Sighting(far, (5, 6), reason=Reason.READ_UNSURE)  # 0.13 of the nearest, 0.19 of the median
    assert phantoms([near, middle, far_tile, pip]) == [False, False, False, True]
    assert phantoms([pip, Sighting(box(10, 10, 20, 20), (0, 0), reason=Reason.FOUND_UNSURELY)]) == [False, False]
    cut_pip = Sighting(box(0, 0, 20, 20), (0, 0), reason=Reason.BEYOND_FRAME, cut=True)
    assert phantoms([near, cut_pip]) == [False, False]  # part of a tile the frame cuts: reported
