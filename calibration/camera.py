"""A camera's intrinsics and lens distortion from photos of hubcam's calibration board (``calibration.board``).

Each photo is searched for the board's markers, and through them for its chessboard corners, to a
fraction of a pixel (OpenCV's ChArUco detector, then each corner put on its saddle point:
``saddle_points``); a photo where too few corners are found is left out (the command names it).
The corners of every photo kept are fitted at once (``cv2.calibrateCamera``): OpenCV's pinhole
with its standard five distortion coefficients k1 k2 p1 p2 k3, which holds webcam barrel
distortion as well as a phone's (the rational model's three more coefficients fitted the rendered
photos of ``benchmarks/calibration_bench.py`` no closer, and bent the webcam's lens wrongly where
the corners were few: 1.3 px off at worst instead of 0.5).

The photos are best 15 to 20, the board tilted various ways up to 50 degrees and put in every part
of the frame: the distortion is only known where the board has been.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.board import HUBCAM_BOARD, Board

LEAST_CORNERS = 8
"""Fewer corners in a photo pin its pose down too loosely to help."""
LEAST_PHOTOS = 3
"""Fewer photos of a plane cannot separate focal length from distance."""
SEARCH_SIDE_PX = 2000
"""Markers are searched for in a copy at most this large (a phone's 12 megapixels are slow, and their
thick marker borders defeat the thresholds' small windows); the corners are refined in the photo itself."""
FOCAL_SHARES = (0.1, 10.0)
"""A focal length (px) between these shares of the image's longer side: fields of view from 6 to 157 degrees."""
SADDLE_WINDOW = 0.15
"""A corner's saddle is fitted over a window of this share of a square each side of it: the white
round a marker is a fifth of a square (``calibration.board.MARKER_SHARE``)."""
SADDLE_RADIUS_MAX_PX = 10
SADDLE_SMOOTHING_PX = 1.5
"""The image is smoothed first (a Gaussian of this sigma), so that the saddle is smooth, not the pixels' noise."""
SADDLE_STEPS = 6
OFF_VIEW = 5.0
"""A photo whose corners fit this many times worse than the median photo's (and over ``OFF_VIEW_PX``)
holds a wrong corner, not a camera: it is dropped and the fit made again."""
OFF_VIEW_PX = 1.0
OFF_CORNER = 6.0
"""Then a corner this many times further from where the fit puts it than the median corner (and over
``OFF_CORNER_PX``) is a corner misplaced, left out for the final fit."""
OFF_CORNER_PX = 0.75


class CalibrationError(ValueError):
    """Photos that cannot give a calibration (too few, or all showing the board one way); the message says why."""


@dataclass(frozen=True)
class BoardSighting:
    """The board's chessboard corners found in one photo."""

    ids: np.ndarray
    """``(n,)`` int32: each corner's number on the board (row by row from the top-left inner corner)."""
    corners_px: np.ndarray
    """``(n, 2)`` float32: where each is in the photo, in pixels."""
    markers: int
    """How many of the board's markers were read."""


@dataclass(frozen=True)
class CameraCalibration:
    camera_matrix: np.ndarray
    """``(3, 3)``: fx 0 cx / 0 fy cy / 0 0 1, pixels."""
    distortion: np.ndarray
    """``(5,)`` k1 k2 p1 p2 k3 (OpenCV's order; ``(8,)`` with k4 k5 k6 for the rational model)."""
    image_size: tuple[int, int]
    """(width, height) of the photos."""
    reprojection_error_px: float
    """Root mean square distance between the corners found and where the fitted camera puts them."""
    photo_errors_px: tuple[float, ...]
    """The same for each photo used, in their order."""


def board_detector(board: Board = HUBCAM_BOARD) -> cv2.aruco.CharucoDetector:
    """OpenCV's ChArUco detector for the board, tuned for small boards seen at a slant."""
    markers = cv2.aruco.DetectorParameters()
    markers.minMarkerPerimeterRate = 0.015  # a board far off in a phone photo has small markers
    markers.adaptiveThreshWinSizeMax = 53  # thick marker borders, blurred, need wider windows too
    markers.adaptiveThreshWinSizeStep = 10
    markers.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # the chessboard corners are refined instead
    charuco = cv2.aruco.CharucoParameters()
    charuco.tryRefineMarkers = True  # look again, by the board's layout, for markers the first pass missed
    return cv2.aruco.CharucoDetector(board.charuco(), charuco, markers)


def find_board(image_bgr: np.ndarray, detector: cv2.aruco.CharucoDetector | None = None) -> BoardSighting | None:
    """The board's corners in the photo; None where fewer than ``LEAST_CORNERS`` are found (or they lie
    on one line, which tells nothing of the plane)."""
    detector = detector or board_detector()
    grey = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, SEARCH_SIDE_PX / max(grey.shape))
    if scale < 1.0:
        small = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        _, _, small_corners, marker_ids = detector.detectBoard(small)
        if marker_ids is None or len(marker_ids) == 0:
            return None
        # back to the photo's pixels (pixel centres: x_small + 0.5 = (x + 0.5) * scale)
        scaled_up = [((np.asarray(quad, np.float32) + 0.5) / scale - 0.5).astype(np.float32) for quad in small_corners]
        corners, ids, marker_corners, marker_ids = detector.detectBoard(
            grey, markerCorners=scaled_up, markerIds=marker_ids
        )
    else:
        corners, ids, marker_corners, marker_ids = detector.detectBoard(grey)
    if (ids is None or len(ids) < LEAST_CORNERS) and marker_ids is not None and len(marker_ids) >= 2:
        # OpenCV's check that the markers belong to one board can refuse a whole board seen steeply
        # (every marker read) after its markers were refined: the corners are then taken unchecked;
        # a corner misplaced there is left out by ``calibrate`` (it fits far worse than the others)
        unchecked = cv2.aruco.CharucoParameters()
        unchecked.tryRefineMarkers = False
        unchecked.checkMarkers = False
        lenient = cv2.aruco.CharucoDetector(detector.getBoard(), unchecked, detector.getDetectorParameters())
        corners, ids, _, _ = lenient.detectBoard(grey, markerCorners=marker_corners, markerIds=marker_ids)
    if ids is None or len(ids) < LEAST_CORNERS:
        return None
    board = detector.getBoard()
    if board.checkCharucoCornersCollinear(ids):
        return None
    found_ids = np.asarray(ids, np.int32).reshape(-1)
    found = np.asarray(corners, np.float32).reshape(-1, 2)
    refined = saddle_points(grey, found, local_square_px(found, found_ids, board))
    return BoardSighting(found_ids, refined, 0 if marker_ids is None else len(marker_ids))


def local_square_px(corners_px: np.ndarray, ids: np.ndarray, board: cv2.aruco.CharucoBoard) -> np.ndarray:
    """``(n,)``: each corner's square size in the photo, the smallest it shows towards any corner found
    within two squares (the board's most foreshortened direction there)."""
    on_board = np.asarray(board.getChessboardCorners(), np.float64).reshape(-1, 3)[ids, :2] / board.getSquareLength()
    apart_squares = np.linalg.norm(on_board[:, None] - on_board[None], axis=2)
    apart_px = np.linalg.norm(corners_px[:, None].astype(np.float64) - corners_px[None], axis=2)
    near = (apart_squares > 0) & (apart_squares <= 2.01)
    ratio = np.where(near, apart_px / np.where(near, apart_squares, 1.0), np.inf)
    smallest = ratio.min(axis=1)
    return np.where(np.isfinite(smallest), smallest, 0.0)


def saddle_points(grey: np.ndarray, corners_px: np.ndarray, square_px: np.ndarray) -> np.ndarray:
    """``(n, 2)`` float32: each chessboard corner moved to the saddle point of the smoothed image round it.

    A corner is where two dark and two light squares meet: smoothed, the image there is a saddle,
    symmetric about the corner whatever the angle the board is seen at. A quadratic fitted to a small
    window (a sixth of a square: clear of the markers' edges, which would pull OpenCV's gradient-based
    refinement aside) and re-centred on its saddle until it settles puts the corner there; on the
    rendered photos this halves the corners' error (median 0.07 to 0.03 px on the webcam). A corner
    whose window shows no saddle keeps OpenCV's place."""
    smooth = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), SADDLE_SMOOTHING_PX)
    refined = np.asarray(corners_px, np.float64).copy()
    for index, (start, square) in enumerate(zip(refined.copy(), square_px, strict=True)):
        radius = int(np.clip(round(SADDLE_WINDOW * square), 2, SADDLE_RADIUS_MAX_PX))
        if SADDLE_WINDOW * square < 1.5:
            continue  # no neighbour found, or squares too small for a window clear of the markers
        fit = _quadratic_fit(radius)
        point = start.copy()
        for _ in range(SADDLE_STEPS):
            window = cv2.getRectSubPix(smooth, (2 * radius + 1, 2 * radius + 1), (float(point[0]), float(point[1])))
            xx, xy, yy, x, y, _ = fit @ window.astype(np.float64).reshape(-1)
            hessian = np.array([[2 * xx, xy], [xy, 2 * yy]])
            if np.linalg.det(hessian) >= 0:
                break  # no saddle: leave the corner where OpenCV put it
            step = -np.linalg.solve(hessian, [x, y])
            point += step
            if np.linalg.norm(point - start) > radius:
                break
            if np.abs(step).max() < 1e-3:
                refined[index] = point
                break
        else:
            refined[index] = point
    return refined.astype(np.float32)


def _quadratic_fit(radius: int) -> np.ndarray:
    """``(6, (2r+1)^2)``: a window's pixels to the coefficients of xx, xy, yy, x, y, 1 (its centre (0, 0)),
    fitted by least squares weighted towards the centre."""
    ys, xs = np.mgrid[-radius : radius + 1, -radius : radius + 1].astype(np.float64)
    xs, ys = xs.reshape(-1), ys.reshape(-1)
    weights = np.exp(-(xs**2 + ys**2) / (2 * (radius / 1.5) ** 2))
    terms = np.column_stack([xs**2, xs * ys, ys**2, xs, ys, np.ones_like(xs)])
    return np.asarray(np.linalg.pinv(terms * weights[:, None]) * weights[None, :])


def calibrate(
    sightings: Sequence[BoardSighting],
    image_size: tuple[int, int],
    board: Board = HUBCAM_BOARD,
    rational: bool = False,
) -> tuple[CameraCalibration, list[int]]:
    """The camera that best explains the corners of every sighting, and the indices of the sightings used.
    A sighting that fits far worse than the others is left out, and then any corner that does (a corner
    the detector put on a marker's edge instead, on a board seen steeply): each time the fit is made
    again. ``rational``: OpenCV's rational model (k1 k2 p1 p2 k3 k4 k5 k6), measured against the standard
    one by the benchmark."""
    if len(sightings) < LEAST_PHOTOS:
        raise CalibrationError(f"{len(sightings)} photos with the board found: at least {LEAST_PHOTOS} are needed")
    corners_mm = board.corners_mm()
    used = list(range(len(sightings)))
    while True:
        calibration, residuals = _fit([sightings[index] for index in used], corners_mm, image_size, rational)
        errors = np.array(calibration.photo_errors_px)
        worst = int(np.argmax(errors))
        if len(used) <= LEAST_PHOTOS or errors[worst] <= max(OFF_VIEW * float(np.median(errors)), OFF_VIEW_PX):
            break
        del used[worst]
    _check_focal(calibration)
    limit = max(OFF_CORNER * float(np.median(np.concatenate(residuals))), OFF_CORNER_PX)
    kept = [(index, residual <= limit) for index, residual in zip(used, residuals, strict=True)]
    if all(good.all() for _, good in kept):
        return calibration, used
    trimmed = [(index, _only(sightings[index], good)) for index, good in kept if good.sum() >= LEAST_CORNERS]
    if len(trimmed) < LEAST_PHOTOS:
        return calibration, used
    calibration, _ = _fit([sighting for _, sighting in trimmed], corners_mm, image_size, rational)
    return calibration, [index for index, _ in trimmed]


def _check_focal(calibration: CameraCalibration) -> None:
    """A focal length far outside any camera's says the photos could not tell it (the board seen the same
    way in every photo, square-on): the fit is refused with what to do, not returned."""
    side = max(calibration.image_size)
    focal = calibration.camera_matrix[0, 0], calibration.camera_matrix[1, 1]
    if not all(np.isfinite(value) and FOCAL_SHARES[0] * side <= value <= FOCAL_SHARES[1] * side for value in focal):
        raise CalibrationError(
            f"the photos cannot tell the focal length (fitted {focal[0]:.4g} x {focal[1]:.4g} px for a "
            f"{side}-pixel side): photograph the board tilted various ways, up to 45 degrees"
        )


def _only(sighting: BoardSighting, good: np.ndarray) -> BoardSighting:
    return BoardSighting(sighting.ids[good], sighting.corners_px[good], sighting.markers)


def _fit(
    sightings: Sequence[BoardSighting], corners_mm: np.ndarray, image_size: tuple[int, int], rational: bool
) -> tuple[CameraCalibration, list[np.ndarray]]:
    """The fit, and each sighting's ``(n,)`` distances from its corners to where the fit puts them."""
    object_points = [corners_mm[sighting.ids] for sighting in sightings]
    image_points = [sighting.corners_px.reshape(-1, 1, 2) for sighting in sightings]
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 200, 1e-12)
    flags, coefficients = (cv2.CALIB_RATIONAL_MODEL, 8) if rational else (0, 5)
    try:
        rms, matrix, distortion, rotations, translations, _, _, errors = cv2.calibrateCameraExtended(
            object_points, image_points, image_size, np.eye(3), np.zeros(coefficients), flags=flags, criteria=criteria
        )
    except cv2.error as error:  # views that pin nothing down (all nearly the same, or degenerate)
        raise CalibrationError(f"OpenCV could not fit a camera to {len(sightings)} photos: {error.err}") from None
    residuals = []
    for points, seen, rotation, translation in zip(object_points, image_points, rotations, translations, strict=True):
        placed, _ = cv2.projectPoints(points, rotation, translation, matrix, distortion)
        residuals.append(np.linalg.norm((placed - seen).reshape(-1, 2), axis=1))
    calibration = CameraCalibration(
        np.asarray(matrix, np.float64),
        np.asarray(distortion, np.float64).reshape(-1),
        image_size,
        float(rms),
        tuple(float(error) for error in np.asarray(errors).reshape(-1)),
    )
    return calibration, residuals


NO_BOARD = "hubcam's board was not found (or too little of it: print it with hubcam calibrate board)"
FIT_WORSE = "its corners fit far worse than the other photos' (a corner misread): left out"


class BoardPhotos:
    """Photos of the printed board searched one at a time, only the corners found kept (a phone's photos
    need not all be held at once), then fitted together: ``hubcam calibrate camera`` and ``POST
    /calibrate/camera``. Each photo left out is named with the reason (``skipped``, and ``told`` as it
    happens)."""

    def __init__(self, told: Callable[[str, str], None] | None = None) -> None:
        self.detector = board_detector()
        self.told = told
        self.size: tuple[int, int] | None = None
        self.first = ""
        self.found: list[tuple[str, BoardSighting]] = []
        self.skipped: list[dict[str, str]] = []

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append({"photo": name, "reason": reason})
        if self.told is not None:
            self.told(name, reason)

    def add(self, name: str, image_bgr: np.ndarray) -> None:
        """Search one photo for the board (left out, with the reason, where it is not found); a
        CalibrationError for a photo of another size than the first."""
        size = (image_bgr.shape[1], image_bgr.shape[0])
        if self.size is None:
            self.size, self.first = size, name
        elif size != self.size:
            raise CalibrationError(
                f"photos of different sizes: {self.first} is {self.size[0]}x{self.size[1]}, {name} is "
                f"{size[0]}x{size[1]} (expected photos by one camera at one resolution)"
            )
        sighting = find_board(image_bgr, self.detector)
        if sighting is None:
            self.skip(name, NO_BOARD)
        else:
            self.found.append((name, sighting))

    def fitted(self) -> tuple[CameraCalibration, list[str]]:
        """The camera the photos with the board found give, and the names of those it was fitted to (one
        whose corners fit far worse than the rest is left out); a CalibrationError saying why there is none."""
        if self.size is None:
            raise CalibrationError("no photo could be read (expected JPEG or PNG photos of the printed board)")
        if len(self.found) < LEAST_PHOTOS:
            raise CalibrationError(
                f"the board was found in {len(self.found)} of {len(self.found) + len(self.skipped)} photos: at least "
                f"{LEAST_PHOTOS} are needed (15 to 20 is best: docs/calibration.md)"
            )
        calibration, used = calibrate([sighting for _, sighting in self.found], self.size)
        for index, (name, _) in enumerate(self.found):
            if index not in used:
                self.skip(name, FIT_WORSE)
        return calibration, [self.found[index][0] for index in used]
