"""hubcam's four table markers: printed ArUco markers laid at the table's corners, that tell the table's plane.

Four markers of one printed size, numbered 0 to 3 (``DICT_5X5_50``: a dictionary of its own, so that
the ChArUco board's 4x4 markers are never read as one of them, nor these as the board's). Printed at
``MARKER_MM`` a side (the black square, its border included), all four on one A4 page
(``write_markers``), cut out and laid flat at the table's corners: 0 and 1 along one edge, 2 and 3
along the opposite one. Each marker's four corners, found to a fraction of a pixel, give the plane
(``calibration.table``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.board import pdf_of

DICTIONARY = cv2.aruco.DICT_5X5_50
MARKER_IDS = (0, 1, 2, 3)
MARKER_MM = 80.0
"""A marker's side as printed: 7 cells of 11.4 mm, read across a 1 m table by a 720p webcam."""
PAGE_MM = (210.0, 297.0)
"""A4 portrait: the four markers in two rows of two, each with its number beneath."""
PX_PER_MM = 8
"""The sheet's resolution (about 200 dpi): a marker's cell is a whole number of pixels."""
EDGE_SAMPLES = 24
"""Points found along each side of a marker, to fit its edge by a line."""
EDGE_REACH = 0.6
"""Each edge point is looked for within this share of a marker's cell either side of the side found:
its black border is one cell wide, and the paper round it wider. (0.4 left a far webcam marker's
corners 2-3 px off where ArUco's outline had shrunk more than that: calibration_bench's webcam table 9.)"""
SEARCH_SIDE_PX = 2000
"""Markers are searched for in a copy at most this large; the corners are refined in the photo itself."""


class MarkerError(ValueError):
    """Markers found that cannot give the plane (some of the four missing, or one twice); the message says which."""


@dataclass(frozen=True)
class MarkerSighting:
    """The table markers found in one photo."""

    corners_px: dict[int, np.ndarray]
    """Each marker's ``(4, 2)`` float64 corners by its number, in the printed marker's order (its top-left,
    top-right, bottom-right, bottom-left as printed)."""


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """Marker ``marker_id`` as a ``(side_px, side_px)`` uint8 image, its black border reaching the edge."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, side_px, borderBits=1), np.uint8)


def markers_sheet() -> np.ndarray:
    """The A4 page as a ``(height, width)`` uint8 grey image: four markers ``MARKER_MM`` wide, each numbered,
    with a thin grey cut line round each a few millimetres out."""
    width, height = (round(side * PX_PER_MM) for side in PAGE_MM)
    sheet = np.full((height, width), 255, np.uint8)
    side = round(MARKER_MM * PX_PER_MM)
    gap_x = (width - 2 * side) // 3
    gap_y = (height - 2 * side) // 3
    for marker_id in MARKER_IDS:
        column, row = marker_id % 2, marker_id // 2
        x, y = gap_x + column * (side + gap_x), gap_y + row * (side + gap_y)
        sheet[y : y + side, x : x + side] = marker_image(marker_id, side)
        cut = 8 * PX_PER_MM
        cv2.rectangle(sheet, (x - cut, y - cut), (x + side + cut, y + side + cut + 12 * PX_PER_MM), 190, 2)
        label = f"{marker_id}   ({MARKER_MM:.0f} mm)"
        cv2.putText(sheet, label, (x, y + side + 9 * PX_PER_MM), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 0, 3, cv2.LINE_AA)
    return sheet


def write_markers(path: Path) -> None:
    """The page as ``path``: a PNG (or any image OpenCV writes) or, for ``.pdf``, an A4 page that printed at
    100 % gives markers ``MARKER_MM`` wide."""
    sheet = markers_sheet()
    if path.suffix.lower() == ".pdf":
        path.write_bytes(pdf_of(sheet, PAGE_MM))
        return
    if not cv2.imwrite(str(path), sheet):
        raise OSError(f"cannot write {path}: OpenCV writes no image of that kind (expected .png, .jpg or .pdf)")


def marker_detector() -> cv2.aruco.ArucoDetector:
    parameters = cv2.aruco.DetectorParameters()
    parameters.minMarkerPerimeterRate = 0.01  # a marker at a far corner of a phone photo is small
    parameters.adaptiveThreshWinSizeMax = 53
    # a far marker is 30 px of blur: its bits are read from the middle of each cell, finely sampled (the
    # defaults, 4 px a cell and 13 % of its margin ignored, lost a webcam's far marker on a chequered cloth)
    parameters.perspectiveRemovePixelPerCell = 8
    parameters.perspectiveRemoveIgnoredMarginPerCell = 0.25
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY), parameters)


def find_markers(image_bgr: np.ndarray) -> MarkerSighting:
    """The table markers (numbers 0 to 3) found in the photo; others of the dictionary are ignored."""
    grey = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    detector = marker_detector()
    scale = min(1.0, SEARCH_SIDE_PX / max(grey.shape))
    if scale < 1.0:
        small = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        corners, ids, _ = detector.detectMarkers(small)
        corners = tuple((np.asarray(quad, np.float32) + 0.5) / scale - 0.5 for quad in corners)
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 0.01)
        for quad in corners:
            cv2.cornerSubPix(grey, quad.reshape(-1, 1, 2), (5, 5), (-1, -1), criteria)
    else:
        corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    for quad, marker_id in zip(corners, [] if ids is None else np.asarray(ids).reshape(-1), strict=True):
        number = int(marker_id)
        if number not in MARKER_IDS:
            continue
        if number in found:
            raise MarkerError(f"marker {number} was found twice (expected each of 0 to 3 once, at the table's corners)")
        found[number] = refined_corners(grey, np.asarray(quad, np.float64).reshape(4, 2))
    return MarkerSighting(found)


def refined_corners(grey: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """``(4, 2)``: a marker's corners where the lines fitted to its four edges meet.

    ArUco puts a corner where a thresholded outline bends, which on a marker 50 pixels wide is a pixel
    off, and mostly inwards (blur lets the paper eat into the ink): across a table that is 2 % of its
    size. Each edge, followed where the brightness changes fastest across it (the middle of the blur,
    whichever way it leans), is a line to a twentieth of a pixel."""
    smooth = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 0.7)
    side = float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
    reach = max(1.5, EDGE_REACH * side / 7)
    offsets = np.arange(-reach, reach + 1e-9, 0.25)
    lines = []
    middle = quad.mean(axis=0)
    for start, end in zip(quad, np.roll(quad, -1, axis=0), strict=True):
        along = (end - start) / max(float(np.linalg.norm(end - start)), 1e-9)
        normal = np.array([-along[1], along[0]])
        if np.dot(normal, (start + end) / 2 - middle) < 0:
            normal = -normal  # outwards: from the black border to the paper, the light rises
        shares = np.linspace(0.15, 0.85, EDGE_SAMPLES)
        centres = start + np.outer(shares, end - start)
        xs = (centres[:, :1] + offsets[None] * normal[0]).astype(np.float32)
        ys = (centres[:, 1:] + offsets[None] * normal[1]).astype(np.float32)
        profile = cv2.remap(smooth, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        slope = np.diff(profile, axis=1)  # rising only: the paper's own edge on a dark cloth falls
        points = []
        for row, values in enumerate(slope):
            peak = int(np.argmax(values))
            if 0 < peak < len(values) - 1:
                below, at, above = values[peak - 1 : peak + 2]
                curve = below - 2 * at + above
                shift = 0.5 * (below - above) / curve if curve < 0 else 0.0
                offset = (offsets[peak] + offsets[peak + 1]) / 2 + shift * (offsets[1] - offsets[0])
                points.append(centres[row] + offset * normal)
        if len(points) < EDGE_SAMPLES // 2:
            return quad  # an edge hidden or cut: keep ArUco's corners
        vx, vy, x0, y0 = cv2.fitLine(np.asarray(points, np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(-1)
        lines.append(np.cross([x0, y0, 1.0], [x0 + vx, y0 + vy, 1.0]))
    corners = []
    for index in range(4):
        meeting = np.cross(lines[index - 1], lines[index])
        if abs(meeting[2]) < 1e-12:
            return quad
        corners.append(meeting[:2] / meeting[2])
    refined = np.asarray(corners, np.float64)
    if np.abs(refined - quad).max() > reach * 2:
        return quad  # the lines went astray (an edge mistaken): keep ArUco's corners
    return refined
