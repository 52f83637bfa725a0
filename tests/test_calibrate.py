"""hubcam calibrate: the board it prints is found again, and photos of it by a known camera give that
camera back (issue 68); photos without the board are named and left out; bad input is refused clearly."""

from __future__ import annotations

import json
import re
import zlib

import cv2
import numpy as np
import pytest

from api.cli import main
from calibration.board import HUBCAM_BOARD, board_image, pdf_of
from calibration.camera import CalibrationError, calibrate, find_board, saddle_points
from calibration.profile import CameraPart, Profile, ProfileError, read_profile, write_camera
from datasets.synth.board_photos import SMALL, covered_pixels, lens_gap_px, photos, wood

PHOTOS = 10
SEED = 68


@pytest.fixture(scope="module")
def taken():
    """Photos of the board by the small barrel-distorted camera (about 2 s to render)."""
    return photos(SMALL, PHOTOS, SEED)


@pytest.fixture(scope="module")
def photo_folder(taken, tmp_path_factory):
    folder = tmp_path_factory.mktemp("board-photos")
    for index, photo in enumerate(taken):
        cv2.imwrite(str(folder / f"board-{index:02d}.png"), photo.image_bgr)
    return folder


def test_the_board_image_is_found_with_every_corner():
    sighting = find_board(board_image())
    assert sighting is not None
    assert sorted(sighting.ids.tolist()) == list(range(HUBCAM_BOARD.corner_count))
    assert sighting.markers == HUBCAM_BOARD.squares[0] * HUBCAM_BOARD.squares[1] // 2


def test_the_board_printed_30_cm_wide_has_25_mm_squares():
    assert HUBCAM_BOARD.size_mm == (300.0, 225.0)
    assert HUBCAM_BOARD.square_mm == 25.0


def test_the_pdf_page_is_the_sheet_at_true_size_and_holds_the_image():
    image = board_image()
    pdf = pdf_of(image, HUBCAM_BOARD.size_mm)
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    assert box is not None
    width_mm, height_mm = (float(points) * 25.4 / 72 for points in box.groups())
    assert width_mm == pytest.approx(300, abs=0.01) and height_mm == pytest.approx(225, abs=0.01)
    start = pdf.index(b"stream\n", pdf.index(b"/Subtype /Image")) + len(b"stream\n")
    length = int(re.search(rb"/Subtype /Image.*?/Length (\d+)", pdf).group(1))
    pixels = np.frombuffer(zlib.decompress(pdf[start : start + length]), np.uint8)
    assert np.array_equal(pixels.reshape(image.shape), image)
    offset = int(pdf.rsplit(b"startxref\n", 1)[1].split()[0])
    assert pdf[offset:].startswith(b"xref")


@pytest.mark.parametrize("suffix", [".png", ".pdf"])
def test_calibrate_board_writes_the_sheet_and_says_the_square_size(tmp_path, capsys, suffix):
    out = tmp_path / f"board{suffix}"
    assert main(["calibrate", "board", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert str(out) in said and "25.0 mm" in said and "30 cm" in said
    if suffix == ".png":
        assert np.array_equal(cv2.imread(str(out), cv2.IMREAD_GRAYSCALE), board_image())
    else:
        assert out.read_bytes().startswith(b"%PDF")


def test_photos_by_a_known_camera_give_it_back(taken):
    found = [(photo, sighting) for photo in taken if (sighting := find_board(photo.image_bgr)) is not None]
    assert len(found) >= 7
    calibration, used = calibrate([sighting for _, sighting in found], SMALL.size_px)
    assert len(used) == len(found)
    assert calibration.reprojection_error_px < 0.5
    fx, fy = calibration.camera_matrix[0, 0], calibration.camera_matrix[1, 1]
    assert fx == pytest.approx(SMALL.K[0, 0], rel=0.02) and fy == pytest.approx(SMALL.K[1, 1], rel=0.02)
    assert np.abs(calibration.camera_matrix[:2, 2] - SMALL.K[:2, 2]).max() < 3  # principal point, px
    assert calibration.distortion[0] == pytest.approx(SMALL.D[0], abs=0.03)  # k1: the barrel
    covered = covered_pixels(SMALL, [photo for photo, _ in found])
    gap_px = lens_gap_px(SMALL, calibration.camera_matrix, calibration.distortion, covered)
    assert gap_px < 1.0, "the lens's distortion, over the part of the frame the boards covered"


def test_the_true_camera_has_no_lens_gap_and_a_wrong_one_has(taken):
    covered = covered_pixels(SMALL, taken)
    assert len(covered) > 1000
    assert lens_gap_px(SMALL, SMALL.K, SMALL.D, covered) < 1e-6
    assert lens_gap_px(SMALL, SMALL.K, SMALL.D * 0.9, covered) > 1.0


@pytest.mark.parametrize(("first_deg", "second_deg"), [(0, 90), (20, 75), (-10, 50)])
def test_a_corner_is_put_on_its_saddle_at_any_angle(first_deg, second_deg):
    """Two edges crossing at (30.25, 27.625) (on the supersampling's grid), seen at a slant (not at right
    angles), supersampled and blurred: the corner is found to a fiftieth of a pixel from a start a pixel away."""
    corner, fine = np.array([30.25, 27.625]), 8
    ys, xs = (np.mgrid[0 : 60 * fine, 0 : 60 * fine] + 0.5) / fine - 0.5
    first, second = np.radians([first_deg, second_deg])
    across_first = -(xs - corner[0]) * np.sin(first) + (ys - corner[1]) * np.cos(first)
    across_second = -(xs - corner[0]) * np.sin(second) + (ys - corner[1]) * np.cos(second)
    image = np.where(across_first * across_second > 0, 220.0, 30.0).astype(np.float32)
    image = cv2.GaussianBlur(cv2.resize(image, (60, 60), interpolation=cv2.INTER_AREA), (0, 0), 1.0)
    found = saddle_points(image.astype(np.uint8), np.array([[31.1, 26.9]], np.float32), np.array([30.0]))
    assert np.linalg.norm(found[0] - corner) < 0.02


def test_the_corners_found_lie_where_the_camera_put_them(taken):
    """To a fraction of a pixel, though the small camera's squares are 15 to 25 px wide."""
    errors = []
    for photo in taken:
        sighting = find_board(photo.image_bgr)
        if sighting is None:
            continue
        truth, _ = cv2.projectPoints(
            HUBCAM_BOARD.corners_mm()[sighting.ids].astype(np.float64),
            cv2.Rodrigues(photo.rotation)[0], photo.translation_mm, SMALL.K, SMALL.D,
        )  # fmt: skip
        error = np.linalg.norm(truth.reshape(-1, 2) - sighting.corners_px, axis=1)
        assert np.median(error) < 0.2
        errors.extend(error)
    assert np.sqrt(np.mean(np.square(errors))) < 0.15


def test_a_photo_without_the_board_is_skipped_and_named(photo_folder, tmp_path, capsys):
    table = tmp_path / "just-the-table.png"
    cv2.imwrite(str(table), wood(SMALL.size_px, np.random.default_rng(0)).astype(np.uint8))
    assert main(["calibrate", "camera", str(photo_folder), str(table), "--json"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    assert len(lines) == 1, "one JSON object on standard output"
    result = json.loads(lines[0])
    assert np.array(result["camera_matrix"]).shape == (3, 3)
    assert len(result["distortion"]) == 5
    assert result["image_size"] == list(SMALL.size_px)
    assert result["reprojection_error_px"] < 0.5
    assert result["camera_matrix"][0][0] == pytest.approx(SMALL.K[0, 0], rel=0.02)
    skipped = {entry["photo"] for entry in result["photos_skipped"]}
    assert str(table) in skipped and str(table) not in result["photos_used"]
    assert f"skipped {table}" in captured.err


def test_the_summary_and_the_profile(photo_folder, tmp_path, capsys):
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"version": 1, "seats": {"slots": {"0": 0}}}))
    assert main(["calibrate", "camera", str(photo_folder), "--out", str(profile)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("camera from ") and "reprojection error" in said and "focal length" in said
    written = read_profile(profile)
    assert written.camera is not None and written.camera.image_size == SMALL.size_px
    assert written.seats == {"slots": {"0": 0}, "mexican": None}, "the profile's other parts are kept"


def too_few(folder, tmp_path):
    """Two photos with the board and one without."""
    chosen = sorted(folder.iterdir())[:2]
    table = tmp_path / "table.png"
    cv2.imwrite(str(table), np.full((SMALL.size_px[1], SMALL.size_px[0], 3), 120, np.uint8))
    return [*map(str, chosen), str(table)]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("nothing readable", "no photo could be read"),
        ("too few", "the board was found in 2 of 3 photos: at least 3"),
        ("sizes differ", "photos of different sizes"),
        ("no job", "name what to calibrate"),
    ],
)
def test_bad_input_exits_2_with_the_reason(case, message, photo_folder, tmp_path, capsys):
    if case == "nothing readable":
        broken = tmp_path / "broken.jpg"
        broken.write_bytes(b"not a photo")
        argv = ["calibrate", "camera", str(broken)]
    elif case == "too few":
        argv = ["calibrate", "camera", *too_few(photo_folder, tmp_path)]
    elif case == "sizes differ":
        other = tmp_path / "other.png"
        cv2.imwrite(str(other), np.zeros((100, 200, 3), np.uint8))
        argv = ["calibrate", "camera", str(other), str(photo_folder)]
    else:
        argv = ["calibrate"]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_calibrating_needs_three_photos():
    with pytest.raises(CalibrationError, match="at least 3"):
        calibrate([], (640, 400))


def test_photos_all_square_on_cannot_tell_the_focal_length():
    square_on = find_board(board_image())
    with pytest.raises(CalibrationError, match="cannot tell the focal length.*tilted"):
        calibrate([square_on] * 3, (2400, 1800))


def test_a_profile_round_trips_and_refuses_another_version_or_a_missing_field(tmp_path):
    camera = CameraPart(np.array([[500.0, 0, 320], [0, 500, 200], [0, 0, 1]]), np.zeros(5), (640, 400), 0.1)
    path = tmp_path / "profile.json"
    write_camera(path, camera)
    back = read_profile(path).camera
    assert back is not None and back.to_json() == camera.to_json()
    with pytest.raises(ProfileError, match="version 2: this hubcam reads profiles of version 1"):
        Profile.from_json({"version": 2, "camera": camera.to_json()})
    with pytest.raises(ProfileError, match="missing version"):
        Profile.from_json({"camera": camera.to_json()})
    without = {name: value for name, value in camera.to_json().items() if name != "distortion"}
    with pytest.raises(ProfileError, match="camera: missing distortion"):
        Profile.from_json({"version": 1, "camera": without})
    path.write_text("{")
    with pytest.raises(ProfileError, match="is not JSON"):
        read_profile(path)
