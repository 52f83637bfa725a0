"""Measuring ``hubcam calibrate camera`` and ``hubcam calibrate table`` on rendered photos by known cameras (issue 68).

    python -m benchmarks.calibration_bench [--n 20] [--seed 68] [--cameras webcam hd phone]
                                           [--tables 10] [--parts camera table]

For each camera (``datasets.synth.board_photos.CAMERAS``: a 1280x720 webcam with strong barrel
distortion, a 1920x1080 camera, a 4032x3024 phone) ``--n`` photos of the board printed 30 cm wide
are rendered (tilted up to 50 degrees, in every corner and edge of the frame, some partly out of it,
on wood, blurred, noisy, unevenly lit), written as PNG to ``out/calibration-bench/<camera>/`` and
given to ``hubcam calibrate camera FOLDER --json`` exactly as a person would (in this process, timed).
Its answer is compared with the truth:

- focal error: the larger of fx's and fy's, in % of the true value;
- principal point error: the distance between the true and the found (cx, cy), px;
- reprojection error: the command's own (RMS over every corner used), px;
- distortion error: over the part of the frame the boards of the photos used covered, the largest
  difference between where the true and the found camera put a pixel once undistorted, px;
- photos skipped, and the command's seconds (finding the board in every photo, and the fit).

The same corners fitted with OpenCV's rational model (8 coefficients) are reported beside, to show
whether the standard five are enough.

The table part: ``--tables`` rendered tables in play per camera size (``datasets.synth.table_markers``:
tilted 10 to 45 degrees, barrel distortion, light, blur, noise), each photographed once with hubcam's
four markers at the corners of a rectangle about 85 cm square round the hub and once, closer, without
them. Each photo is given to ``hubcam calibrate table PHOTO --json`` (in this process), and the
homography it writes is compared with the truth at 80 points round the rectangle through the markers'
centres (the table's edge): with the markers and their measured spans (``--span-mm``), with the
markers alone (their printed size the only scale), and without markers by the hub (camera known from
a profile, and not: a 60-degree view assumed). The hub's frame is its own (origin the hub, turned as
the photo is): it is placed on the truth by the best turn and shift first, never scaled.
Writes ``benchmarks/results/calibration.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from api.cli import main as hubcam
from benchmarks.report import write_report
from calibration.camera import board_detector, calibrate, find_board
from calibration.markers import MARKER_IDS
from calibration.profile import CameraPart, write_camera
from calibration.table import through, undistort
from datasets.synth.board_photos import CAMERAS, PhotoCamera, covered_pixels, lens_gap_px, photos
from datasets.synth.table_markers import TablePhoto, table_photo

KEPT = Path("out/calibration-bench")
SEED = 68


def measure(camera: PhotoCamera, count: int, seed: int) -> dict[str, Any]:
    start = time.perf_counter()
    taken = photos(camera, count, seed)
    render_s = time.perf_counter() - start
    folder = KEPT / camera.name
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.png"):
        stale.unlink()
    names = [folder / f"{camera.name}-{index:02d}.png" for index in range(count)]
    for name, photo in zip(names, taken, strict=True):
        cv2.imwrite(str(name), photo.image_bgr)
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = hubcam(["calibrate", "camera", str(folder), "--json"])
    seconds = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"hubcam calibrate camera {folder} exited {code}: {err.getvalue()}")
    found = json.loads(out.getvalue())
    used = [names.index(Path(name)) for name in found["photos_used"]]
    covered = covered_pixels(camera, [taken[index] for index in used])
    row = scored(camera, np.array(found["camera_matrix"]), np.array(found["distortion"]), covered)
    row |= {
        "camera": camera.name,
        "size": f"{camera.size_px[0]}x{camera.size_px[1]}",
        "reprojection_error_px": found["reprojection_error_px"],
        "photos": count,
        "photos_skipped": len(found["photos_skipped"]),
        "skipped": [Path(entry["photo"]).name for entry in found["photos_skipped"]],
        "seconds": round(seconds, 1),
        "render_seconds": round(render_s, 1),
    }
    row["rational"] = rational_fit(camera, [taken[index] for index in used], covered)
    return row


def scored(camera: PhotoCamera, matrix: np.ndarray, distortion: np.ndarray, covered: np.ndarray) -> dict[str, Any]:
    focal = max(abs(matrix[0, 0] / camera.K[0, 0] - 1), abs(matrix[1, 1] / camera.K[1, 1] - 1)) * 100
    return {
        "focal_error_pct": round(float(focal), 4),
        "principal_point_error_px": round(float(np.linalg.norm(matrix[:2, 2] - camera.K[:2, 2])), 3),
        "distortion_error_px": round(lens_gap_px(camera, matrix, distortion, covered), 3),
    }


def rational_fit(camera: PhotoCamera, taken: list[Any], covered: np.ndarray) -> dict[str, Any]:
    detector = board_detector()
    sightings = [sighting for photo in taken if (sighting := find_board(photo.image_bgr, detector)) is not None]
    calibration, _ = calibrate(sightings, camera.size_px, rational=True)
    row = scored(camera, calibration.camera_matrix, calibration.distortion, covered)
    return row | {"reprojection_error_px": round(calibration.reprojection_error_px, 4)}


def markdown(rows: list[dict[str, Any]], count: int, seed: int) -> list[str]:
    lines = [
        "# hubcam calibrate camera on rendered photos of its board",
        "",
        f"{count} photos per camera (seed {seed}), the board printed 30 cm wide, tilted up to 50 degrees, in every",
        "corner and edge of the frame (some partly out of it), on wood, with blur, noise and uneven light.",
        "Written by `python -m benchmarks.calibration_bench`.",
        "",
        "| camera | size | focal error | principal point error | reprojection error | distortion error "
        "(board-covered area) | photos skipped | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['camera']} | {row['size']} | {row['focal_error_pct']:.3f} % | "
            f"{row['principal_point_error_px']:.2f} px | {row['reprojection_error_px']:.3f} px | "
            f"{row['distortion_error_px']:.3f} px | {row['photos_skipped']} of {row['photos']} | {row['seconds']:.1f} |"
        )
    lines += [
        "",
        "The same corners fitted with OpenCV's rational model (k1 k2 p1 p2 k3 k4 k5 k6) instead of the standard five:",
        "",
        "| camera | focal error | principal point error | reprojection error | distortion error |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        fit = row["rational"]
        lines.append(
            f"| {row['camera']} | {fit['focal_error_pct']:.3f} % | {fit['principal_point_error_px']:.2f} px | "
            f"{fit['reprojection_error_px']:.3f} px | {fit['distortion_error_px']:.3f} px |"
        )
    skipped = [f"{row['camera']}: {', '.join(row['skipped'])}" for row in rows if row["skipped"]]
    if skipped:
        lines += ["", "Skipped (the board not found, or too little of it): " + "; ".join(skipped) + "."]
    return lines


TABLE_WAYS = ("markers and spans", "markers alone", "hub, camera known", "hub, camera assumed")
HUB_SQUARE_MM = 420.0
"""Without markers, the error is measured round a square of this half-side about the hub (the markers' place)."""


def table_call(argv: list[str]) -> tuple[dict[str, Any] | None, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = hubcam(["calibrate", "table", *argv, "--json"])
    return (json.loads(out.getvalue()) if code == 0 else None), err.getvalue().strip()


def edge_error_mm(photo: TablePhoto, found: dict[str, Any], calibrated: bool) -> float:
    """The largest distance, mm, between where the found homography and the truth put the table's edge."""
    to_table = np.array(found["image_to_table"])
    matrix, distortion = photo.lens()
    if photo.marker_centres_mm:
        centres = [photo.marker_centres_mm[number] for number in MARKER_IDS]
        edge = np.concatenate([np.linspace(centres[i], centres[(i + 1) % 4], 20) for i in range(4)])
        x_axis = (centres[1] - centres[0]) / np.linalg.norm(centres[1] - centres[0])
        truth = (edge - centres[0]) @ np.stack([x_axis, [x_axis[1], -x_axis[0]]]).T
    else:
        corners = HUB_SQUARE_MM * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
        edge = np.concatenate([np.linspace(corners[i], corners[(i + 1) % 4], 20) for i in range(4)])
        truth = edge * [1, -1]
    pixels = photo.project(edge)
    seen = through(to_table, undistort(pixels, matrix, distortion) if calibrated else pixels)
    if not photo.marker_centres_mm:  # the hub's frame: placed on the truth by a turn and a shift
        truth_mean, seen_mean = truth.mean(axis=0), seen.mean(axis=0)
        u, _, vt = np.linalg.svd((truth - truth_mean).T @ (seen - seen_mean))
        truth = (truth - truth_mean) @ (u @ np.diag([1, np.sign(np.linalg.det(u @ vt))]) @ vt) + seen_mean
    return float(np.linalg.norm(seen - truth, axis=1).max())


def measure_tables(name: str, size_px: tuple[int, int], count: int, seed: int) -> dict[str, Any]:
    folder = KEPT / f"tables-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    errors: dict[str, list[float]] = {way: [] for way in TABLE_WAYS}
    failed: dict[str, list[str]] = {way: [] for way in TABLE_WAYS}
    tilts: list[float] = []
    start = time.perf_counter()
    for index in range(count):
        table_seed = seed * 1000 + index
        for markers in (True, False):
            photo = table_photo(table_seed, size_px, markers=markers)
            path = folder / f"{'markers' if markers else 'hub'}-{index:02d}.png"
            cv2.imwrite(str(path), photo.image_bgr)
            matrix, distortion = photo.lens()
            profile = folder / f"camera-{index:02d}.json"
            profile.unlink(missing_ok=True)
            write_camera(profile, CameraPart(matrix, distortion, size_px, 0.0))
            tilts.append(float(np.degrees(np.arccos(-photo.camera.R[2, 2]))))
            if markers:
                centres = [photo.marker_centres_mm[number] for number in MARKER_IDS]
                spans = [np.linalg.norm(centres[1] - centres[0]), np.linalg.norm(centres[2] - centres[1])]
                calls = {
                    "markers and spans": [str(path), "--profile", str(profile), "--span-mm", *map(str, spans)],
                    "markers alone": [str(path), "--profile", str(profile)],
                }
            else:
                tile = ["--tile-mm", f"{photo.tile_mm:.1f}"]  # the set's, as its owner would measure it
                calls = {
                    "hub, camera known": [str(path), "--profile", str(profile), *tile],
                    "hub, camera assumed": [str(path), *tile],
                }
            for way, argv in calls.items():
                found, why = table_call(argv)
                if found is None or found["method"] != ("markers" if markers else "hub"):
                    reason = why.split(f"{path}: ", 1)[-1] if why else f"read by the {found and found['method']}"
                    failed[way].append(f"{path.name} ({reason})")
                    continue
                errors[way].append(edge_error_mm(photo, found, "--profile" in argv))
    seconds = time.perf_counter() - start
    ways = {}
    for way in TABLE_WAYS:
        values = np.array(errors[way])
        ways[way] = {
            "tables": len(values),
            "failed": failed[way],
            "median_mm": round(float(np.median(values)), 2) if len(values) else None,
            "worst_mm": round(float(values.max()), 2) if len(values) else None,
            "under_1mm": int((values < 1.0).sum()),
        }
    return {
        "camera": name,
        "size": f"{size_px[0]}x{size_px[1]}",
        "tables": count,
        "tilt_deg": [round(min(tilts), 1), round(max(tilts), 1)],
        "ways": ways,
        "seconds": round(seconds, 1),
    }


def table_markdown(rows: list[dict[str, Any]], count: int, seed: int) -> list[str]:
    lines = [
        "",
        "## hubcam calibrate table on rendered tables",
        "",
        f"{count} tables in play per camera size (seed {seed}), tilted 10 to 45 degrees, barrel distortion; the",
        "largest error at the table's edge (80 points round the rectangle through the four markers' centres, about",
        "85 cm square; without markers the same square about the hub, the hub's frame placed by a turn and a shift):",
        "",
        "| camera | way | tables read | median error at the edge | worst | under 1 mm |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        for way, result in row["ways"].items():
            median = "-" if result["median_mm"] is None else f"{result['median_mm']:.2f} mm"
            worst = "-" if result["worst_mm"] is None else f"{result['worst_mm']:.2f} mm"
            lines.append(
                f"| {row['camera']} {row['size']} | {way} | {result['tables']} of {row['tables']} | {median} | "
                f"{worst} | {result['under_1mm']} |"
            )
    failures = [f"{row['camera']}, {way}: {'; '.join(result['failed'])}" for row in rows
                for way, result in row["ways"].items() if result["failed"]]  # fmt: skip
    if failures:
        lines += ["", "Not read:", "", *(f"- {failure}" for failure in failures)]
    return lines


TABLE_CAMERAS = {"webcam": (1280, 720), "hd": (1920, 1080), "phone": (4032, 3024)}


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20, help="photos of the board per camera (default 20)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--cameras", nargs="+", choices=sorted(CAMERAS), default=list(CAMERAS))
    parser.add_argument("--tables", type=int, default=10, help="rendered tables per camera size (default 10)")
    parser.add_argument("--parts", nargs="+", choices=["camera", "table"], default=["camera", "table"])
    args = parser.parse_args()
    rows = [measure(CAMERAS[name], args.n, args.seed) for name in args.cameras] if "camera" in args.parts else []
    tables = (
        [measure_tables(name, TABLE_CAMERAS[name], args.tables, args.seed) for name in args.cameras]
        if "table" in args.parts
        else []
    )
    report = {
        "benchmark": "calibration_bench",
        "photos_per_camera": args.n,
        "seed": args.seed,
        "cameras": rows,
        "tables_per_camera": args.tables,
        "tables": tables,
    }
    lines = markdown(rows, args.n, args.seed) if rows else ["# hubcam calibrate on rendered photos"]
    write_report("calibration", report, lines + (table_markdown(tables, args.tables, args.seed) if tables else []))


if __name__ == "__main__":
    run()
