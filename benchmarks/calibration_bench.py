"""Measuring ``hubcam calibrate camera`` on rendered photos of hubcam's board by three known cameras (issue 68).

    python -m benchmarks.calibration_bench [--n 20] [--seed 68] [--cameras webcam hd phone]

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
whether the standard five are enough. Writes ``benchmarks/results/calibration.json`` and ``.md``.
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
from datasets.synth.board_photos import CAMERAS, PhotoCamera, covered_pixels, lens_gap_px, photos

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


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20, help="photos per camera (default 20)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--cameras", nargs="+", choices=sorted(CAMERAS), default=list(CAMERAS))
    args = parser.parse_args()
    rows = [measure(CAMERAS[name], args.n, args.seed) for name in args.cameras]
    report = {"benchmark": "calibration_bench", "photos_per_camera": args.n, "seed": args.seed, "cameras": rows}
    write_report("calibration", report, markdown(rows, args.n, args.seed))


if __name__ == "__main__":
    run()
