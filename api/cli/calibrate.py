"""The verbs of calibrating at the table: ``calibrate board`` prints hubcam's board, ``calibrate camera``
finds a camera's intrinsics and lens distortion from photos of it (docs/calibration.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from api.cli.common import UsageError, photos_in, with_progress
from api.parsing import output_file

if TYPE_CHECKING:
    from api.cli.common import AddVerb, Verbs
    from calibration.camera import CameraCalibration


def add_calibrate(verbs: Verbs) -> None:
    calibrate = verbs.add_parser(
        "calibrate", help="print the calibration board (board), or measure the camera's lens from photos of it (camera)"
    )
    jobs = calibrate.add_subparsers(dest="job", metavar="JOB")
    board = jobs.add_parser("board", help="write hubcam's calibration board, to print 30 cm wide")
    board.add_argument(
        "--out", type=output_file, required=True, metavar="FILE",
        help="a PNG (or JPEG) image, or a PDF whose page prints the board at its true size",
    )  # fmt: skip
    board.set_defaults(run=run_board)
    camera = jobs.add_parser("camera", help="the camera's intrinsics and lens distortion from photos of the board")
    camera.add_argument(
        "photos", nargs="+", type=Path,
        help="15 to 20 JPEG or PNG photos of the printed board by one camera, or folders of them",
    )  # fmt: skip
    camera.add_argument("--json", action="store_true", help="one JSON object on standard output")
    camera.add_argument(
        "--out", type=output_file, metavar="PROFILE",
        help="write the camera into this profile (JSON; its other parts are kept)",
    )  # fmt: skip
    camera.set_defaults(run=run_camera)
    calibrate.set_defaults(run=lambda args: _which_job(calibrate))


def _which_job(calibrate: argparse.ArgumentParser) -> int:
    calibrate.print_usage(sys.stderr)
    print("hubcam calibrate: error: name what to calibrate: board or camera", file=sys.stderr)
    return 2


def run_board(args: argparse.Namespace) -> int:
    from calibration.board import HUBCAM_BOARD, write_board

    write_board(args.out, HUBCAM_BOARD)
    across, down = HUBCAM_BOARD.squares
    width, height = HUBCAM_BOARD.size_mm
    print(
        f"wrote {args.out}: hubcam's ChArUco board, {across} x {down} squares; printed {width / 10:.0f} cm wide "
        f"({width:.0f} x {height:.0f} mm) a square is {HUBCAM_BOARD.square_mm:.1f} mm"
    )
    return 0


def run_camera(args: argparse.Namespace) -> int:
    """Every photo searched for the board, the ones where it is found fitted at once. Photos that could not
    be read or show no board are named on stderr and left out; exit 0 when a camera came of the rest."""
    from calibration.camera import LEAST_PHOTOS, CalibrationError, board_detector, calibrate, find_board
    from calibration.profile import CameraPart, ProfileError, write_camera
    from vision.photo import PhotoError, read_photo

    detector = board_detector()
    sizes: dict[tuple[int, int], Path] = {}
    found, skipped = [], []

    def skip(path: Path, reason: str) -> None:
        skipped.append({"photo": str(path), "reason": reason})
        print(f"hubcam calibrate camera: skipped {path}: {reason}", file=sys.stderr)

    for path in with_progress(photos_in(args.photos), "searching"):
        try:
            if path.is_dir():
                raise PhotoError(f"{path} is a folder with no JPEG or PNG photo in it")
            image = read_photo(path)
        except PhotoError as error:
            skip(path, str(error))
            continue
        size = (image.shape[1], image.shape[0])
        sizes.setdefault(size, path)
        if len(sizes) > 1:
            (first_size, first), (other_size, other) = list(sizes.items())[:2]
            raise UsageError(
                f"photos of different sizes: {first} is {first_size[0]}x{first_size[1]}, {other} is "
                f"{other_size[0]}x{other_size[1]} (expected photos by one camera at one resolution)"
            )
        sighting = find_board(image, detector)
        if sighting is None:
            skip(path, "hubcam's board was not found (or too little of it: print it with hubcam calibrate board)")
            continue
        found.append((path, sighting))
    if not sizes:
        raise UsageError("no photo could be read (expected JPEG or PNG photos of the printed board)")
    if len(found) < LEAST_PHOTOS:
        raise UsageError(
            f"the board was found in {len(found)} of {len(found) + len(skipped)} photos: at least {LEAST_PHOTOS} are "
            "needed (15 to 20 is best: docs/calibration.md)"
        )
    try:
        calibration, used = calibrate([sighting for _, sighting in found], next(iter(sizes)))
    except CalibrationError as error:
        raise UsageError(str(error)) from None
    for index, (path, _) in enumerate(found):
        if index not in used:
            skip(path, "its corners fit far worse than the other photos' (a corner misread): left out")
    camera = CameraPart.of(calibration)
    if args.out is not None:
        try:
            write_camera(args.out, camera)
        except ProfileError as error:
            raise UsageError(f"--out {error}") from None
    used_photos = [str(found[index][0]) for index in used]
    if args.json:
        print(json.dumps({**camera.to_json(), "photos_used": used_photos, "photos_skipped": skipped}))
    else:
        print(camera_text(calibration, len(used_photos), len(used_photos) + len(skipped), args.out))
    return 0


def camera_text(calibration: CameraCalibration, used: int, given: int, profile: Path | None) -> str:
    """``hubcam calibrate camera``'s summary: what the JSON holds, rounded for a person."""
    matrix, (k1, k2, p1, p2, k3) = calibration.camera_matrix, calibration.distortion[:5]
    width, height = calibration.image_size
    lines = [
        f"camera from {used} of {given} photos ({width}x{height}): reprojection error "
        f"{calibration.reprojection_error_px:.2f} px",
        f"  focal length fx {matrix[0, 0]:.1f} px, fy {matrix[1, 1]:.1f} px; principal point "
        f"({matrix[0, 2]:.1f}, {matrix[1, 2]:.1f}) px",
        f"  distortion k1 {k1:.4f}, k2 {k2:.4f}, p1 {p1:.5f}, p2 {p2:.5f}, k3 {k3:.4f}",
    ]
    if profile is not None:
        lines.append(f"  written to the profile {profile}")
    return "\n".join(lines)


VERBS: dict[str, AddVerb] = {"calibrate": add_calibrate}
"""This room's verbs, each by the function that adds it to the parser."""
