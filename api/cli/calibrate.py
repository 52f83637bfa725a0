"""The verbs of calibrating at the table: ``calibrate board`` prints hubcam's board, ``calibrate camera``
finds a camera's intrinsics and lens distortion from photos of it, ``calibrate markers`` prints the four
table markers, ``calibrate table`` finds the table's plane in one photo (by the markers, or by the hub
and the engine), ``calibrate seats`` tells which hub slot is whose (docs/calibration.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from api.cli.common import UsageError, photos_in, with_progress
from api.parsing import output_file

if TYPE_CHECKING:
    from api.cli.common import AddVerb, Verbs
    from calibration.camera import CameraCalibration
    from calibration.profile import Profile, TablePart


def add_calibrate(verbs: Verbs) -> None:
    calibrate = verbs.add_parser(
        "calibrate",
        help="print the calibration board (board) or table markers (markers); measure the camera's lens (camera), "
        "the table's plane (table) or whose each hub slot is (seats)",
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
    markers = jobs.add_parser("markers", help="write the four table markers (0 to 3) on one A4 page, 80 mm each")
    markers.add_argument(
        "--out", type=output_file, required=True, metavar="FILE",
        help="a PNG (or JPEG) image, or a PDF whose page prints the markers at their true size",
    )  # fmt: skip
    markers.set_defaults(run=run_markers)
    _add_table(jobs)
    _add_seats(jobs)
    calibrate.set_defaults(run=lambda args: _which_job(calibrate))


def _add_table(jobs: Any) -> None:
    table = jobs.add_parser(
        "table", help="the table's plane from one photo: by the four markers at its corners, or by the hub and engine"
    )
    table.add_argument("photo", type=Path, help="a JPEG or PNG photo of the table by the camera that will watch it")
    table.add_argument(
        "--profile", type=Path, metavar="FILE",
        help="a profile whose camera undistorts the photo first (default: --out's, where it holds one)",
    )  # fmt: skip
    table.add_argument(
        "--tile-mm", type=float, default=50.0, metavar="MM",
        help="a tile's length (default 50): the scale without markers, and the tile size reported",
    )  # fmt: skip
    table.add_argument(
        "--span-mm", type=float, nargs=2, metavar=("ACROSS", "DOWN"),
        help="the markers' centres measured with a tape: 0 to 1, and 1 to 2 (at a rectangle's corners); "
        "makes the plane good to a millimetre at the table's edge",
    )  # fmt: skip
    table.add_argument("--json", action="store_true", help="one JSON object on standard output")
    table.add_argument(
        "--out", type=output_file, metavar="PROFILE", help="write the table into this profile (its other parts kept)"
    )
    table.set_defaults(run=run_table)


def _add_seats(jobs: Any) -> None:
    seats = jobs.add_parser(
        "seats", help="which hub slot is whose: from a photo of each player's marker by their slot, or by hand"
    )
    seats.add_argument("photo", type=Path, nargs="?", help="a photo of the hub with each player's marker by their slot")
    seats.add_argument("--players", type=int, metavar="N", help="how many players (markers expected in the photo)")
    seats.add_argument(
        "--first", type=float, default=270.0, metavar="ANGLE",
        help="seat 0 is the marker nearest this angle round the hub, degrees counter-clockwise from the photo's "
        "right (default 270: below the hub); the others follow counter-clockwise",
    )  # fmt: skip
    seats.add_argument(
        "--slot", action="append", default=[], metavar="ANGLE=SEAT",
        help="by hand, instead of a photo: the slot at ANGLE degrees is SEAT's (once per seat)",
    )  # fmt: skip
    seats.add_argument(
        "--mexican", type=float, metavar="ANGLE",
        help="the Mexican train's slot (default from a photo: the next slot counter-clockwise after the last seat's)",
    )  # fmt: skip
    seats.add_argument("--json", action="store_true", help="the seat map as one JSON object on standard output")
    seats.add_argument(
        "--out", type=output_file, metavar="PROFILE", help="write the seats into this profile (its other parts kept)"
    )
    seats.set_defaults(run=run_seats)


def _which_job(calibrate: argparse.ArgumentParser) -> int:
    calibrate.print_usage(sys.stderr)
    print("hubcam calibrate: error: name what to calibrate: board, camera, markers, table or seats", file=sys.stderr)
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
    from calibration.camera import BoardPhotos, CalibrationError
    from calibration.profile import CameraPart, ProfileError, write_camera
    from vision.photo import PhotoError, read_photo

    def told(name: str, reason: str) -> None:
        print(f"hubcam calibrate camera: skipped {name}: {reason}", file=sys.stderr)

    photos = BoardPhotos(told)
    try:
        for path in with_progress(photos_in(args.photos), "searching"):
            try:
                if path.is_dir():
                    raise PhotoError(f"{path} is a folder with no JPEG or PNG photo in it")
                image = read_photo(path)
            except PhotoError as error:
                photos.skip(str(path), str(error))
                continue
            photos.add(str(path), image)
        calibration, used_photos = photos.fitted()
    except CalibrationError as error:
        raise UsageError(str(error)) from None
    camera = CameraPart.of(calibration)
    if args.out is not None:
        try:
            write_camera(args.out, camera)
        except ProfileError as error:
            raise UsageError(f"--out {error}") from None
    if args.json:
        print(json.dumps({**camera.to_json(), "photos_used": used_photos, "photos_skipped": photos.skipped}))
    else:
        print(camera_text(calibration, len(used_photos), len(used_photos) + len(photos.skipped), args.out))
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


def run_markers(args: argparse.Namespace) -> int:
    from calibration.markers import MARKER_MM, write_markers

    write_markers(args.out)
    print(
        f"wrote {args.out}: hubcam's table markers 0 to 3 on an A4 page; printed at 100 % each is {MARKER_MM:.0f} mm "
        "wide: cut them out and lay one at each corner of the table, 0 and 1 along one edge"
    )
    return 0


def _profile_for(args: argparse.Namespace) -> Profile | None:
    """``--profile``'s, else ``--out``'s where that file exists already; None without either."""
    from calibration.profile import ProfileError, read_profile

    path = args.profile or (args.out if args.out is not None and args.out.exists() else None)
    if path is None:
        return None
    try:
        return read_profile(path)
    except ProfileError as error:
        raise UsageError(f"--profile {error}" if args.profile else f"--out {error}") from None


def run_table(args: argparse.Namespace) -> int:
    """The markers searched for first; without any, the hub and the engine as ``hubcam analyze`` reads them."""
    from api.cli.pipelines import table_reader
    from calibration.profile import ProfileError, write_table
    from calibration.table import camera_fits, table_from_photo
    from vision.photo import PhotoError, read_photo
    from vision.square_on_view import hub_seen

    try:
        image = read_photo(args.photo)
    except PhotoError as error:
        raise UsageError(str(error)) from None
    if not args.tile_mm > 0:
        raise UsageError(f"--tile-mm {args.tile_mm:g}: expected a tile's length in mm, above 0")
    if args.span_mm is not None and min(args.span_mm) <= 0:
        raise UsageError(f"--span-mm {args.span_mm[0]:g} {args.span_mm[1]:g}: expected two distances in mm, above 0")
    profile = _profile_for(args)
    camera = None if profile is None else profile.camera
    span = None if args.span_mm is None else (args.span_mm[0], args.span_mm[1])
    try:
        camera_fits(camera, (image.shape[1], image.shape[0]))
        part, fit_px = table_from_photo(image, hub_seen(table_reader()(image)), args.tile_mm, camera, span)
    except ValueError as error:  # MarkerError, TableError
        raise UsageError(f"{args.photo}: {error}") from None
    if args.out is not None:
        try:
            write_table(args.out, part)
        except ProfileError as error:
            raise UsageError(f"--out {error}") from None
    if args.json:
        print(json.dumps(part.to_json() | {"marker_fit_px": fit_px, "camera": "profile" if camera else "assumed"}))
    else:
        print(table_text(part, fit_px, camera is not None, args.out))
    return 0


def table_text(part: TablePart, fit_px: float | None, calibrated: bool, profile: Path | None) -> str:
    """``hubcam calibrate table``'s summary: what the JSON holds, rounded for a person."""
    how = "the four markers" if part.method == "markers" else "the hub's rim and the tiles' length"
    lines = [f"table plane by {how}" + ("" if fit_px is None else f" (corners fitted to {fit_px:.2f} px)")]
    lines.append(
        f"  a {part.tile_mm:g} mm tile is {part.tile_px:.1f} px long at the "
        + ("hub" if part.hub_centre_px is not None else "table's middle")
        + f"; the camera is tilted {part.tilt_deg:.1f} degrees from straight down"
        + ("" if calibrated else " (a 60-degree view assumed: calibrate the camera to know)")
    )
    if part.hub_centre_px is not None and part.hub_centre_mm is not None:
        (x, y), (u, v) = part.hub_centre_px, part.hub_centre_mm
        lines.append(f"  the hub's centre at ({x:.1f}, {y:.1f}) px, ({u:.1f}, {v:.1f}) mm on the table")
    rows = [" ".join(f"{value: .6g}" for value in row) for row in part.image_to_table]
    lines.append("  pixels to table mm: [" + " / ".join(rows) + "]" + (" (undistorted pixels)" if calibrated else ""))
    if profile is not None:
        lines.append(f"  written to the profile {profile}")
    return "\n".join(lines)


def run_seats(args: argparse.Namespace) -> int:
    from calibration.profile import ProfileError, write_seats
    from calibration.seats import SeatsError, checked_seats

    if args.photo is not None and args.slot:
        raise UsageError("give a photo or --slot ANGLE=SEAT by hand, not both")
    try:
        if args.photo is None:
            if not args.slot:
                raise UsageError("give a photo of the hub with the players' markers, or --slot ANGLE=SEAT per seat")
            seats = checked_seats({"slots": dict(_slot(text) for text in args.slot), "mexican": args.mexican})
        else:
            seats = _seats_from_photo(args)
    except SeatsError as error:
        raise UsageError(str(error)) from None
    if args.out is not None:
        try:
            write_seats(args.out, seats)
        except ProfileError as error:
            raise UsageError(f"--out {error}") from None
    if args.json:
        print(json.dumps(seats))
    else:
        colours = seats.get("colours", {})
        owned = ", ".join(
            f"seat {seat} at {angle} degrees" + (f" (marker {colours[str(seat)]})" if str(seat) in colours else "")
            for angle, seat in sorted(seats["slots"].items(), key=_by_seat)
        )
        mexican = "none" if seats["mexican"] is None else f"{seats['mexican']:g} degrees"
        print(f"{owned}; the Mexican train at {mexican}" + ("" if args.out is None else f"\n  written to {args.out}"))
    return 0


def _by_seat(item: tuple[str, int]) -> int:
    return item[1]


def _slot(text: str) -> tuple[str, str]:
    angle, equals, seat = text.partition("=")
    if not equals:
        raise UsageError(f"--slot {text!r}: expected ANGLE=SEAT, as 90=0 (the slot at 90 degrees is seat 0's)")
    return angle, seat  # checked_seats turns both into numbers, or says why not


def _seats_from_photo(args: argparse.Namespace) -> dict[str, Any]:
    from api.cli.pipelines import table_reader
    from calibration.seats import SeatsError, seats_from_photo
    from vision.photo import PhotoError, read_photo

    if args.players is None or not 2 <= args.players <= 12:
        raise UsageError("--players N: expected 2 to 12 players, one marker each by their slot")
    try:
        image = read_photo(args.photo)
    except PhotoError as error:
        raise UsageError(str(error)) from None
    hub, markers = table_reader()(image).hub_and_markers()
    try:
        return seats_from_photo(image, hub, markers, args.players, args.first, args.mexican)
    except SeatsError as error:
        raise UsageError(f"{args.photo}: {error}") from None


VERBS: dict[str, AddVerb] = {"calibrate": add_calibrate}
"""This room's verbs, each by the function that adds it to the parser."""
