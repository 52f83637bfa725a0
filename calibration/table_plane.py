"""The table's plane, from the tiles found on it: how slanted the photo is, and the photo seen square-on.

Every tile's top face is the same 2:1 rectangle lying on one plane, so the tiles found tell how
the camera looked at the table. A photo taken at a slant shows near tiles larger than far ones,
and tiles as trapezoids; the detector learnt tilts up to 45 degrees from synthetic scenes, but
real photos tipped further lose tiles and gain wrong boxes (``benchmarks/real_variants.py``).
Such a photo is redrawn as if seen from straight above (``square_on``); the pipeline finds the
tiles again there and takes their boxes back to the photo.

The plane is fitted by a homography that makes every found tile as near a 2:1 rectangle as it
can: a projective part (the table's horizon, two numbers) and an affine part up to a similarity
(two more). Tiles the fit cannot make rectangles (a box over two halves, a standing tile) are
dropped once and the fit made again; how far each box stays from a 2:1 rectangle on the plane
(``misfits``) tells such boxes from tiles' faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

LEAST_TILES = 3
"""Fewer tiles tell too little about the plane (each gives four right angles and a ratio)."""
LONGEST_VIEW = 1600
"""The redrawn view's longer side at most, for a caller that gives none: a phone photo's full
resolution would only cost warping time and memory (the boxes found are refined in the photo
itself). The pipeline gives its own, from its detector's input size (vision.pipeline.VIEW_OVER_INPUT)."""
STEPS = 30
"""Levenberg-Marquardt steps at most; the fit usually settles in under ten."""
SETTLED = 1e-6
"""A step that takes less than this share off the squared error ends the fit."""
_NUDGE = 1e-6
"""Each number's nudge for the finite-difference Jacobian."""
_SQUARE_ON = np.array([0.0, 0.0, 1.0, 0.0])
"""The shape (horizon x, horizon y, stretch, shear) of a plane seen square-on."""
_NEXT, _PREVIOUS = [1, 2, 3, 0], [3, 0, 1, 2]
"""Each corner's next and previous corner round a quad."""


@dataclass(frozen=True)
class TablePlane:
    to_plane: np.ndarray
    """``(3, 3)``: photo pixels to the table's plane (in units of the tiles' spread, up to a similarity)."""
    slant: float
    """How much larger the nearest tile looks than the farthest (on the plane they are alike): 1.0
    for a photo taken square-on."""


AS_SEEN = TablePlane(np.eye(3), 1.0)
"""The photo itself taken as the table's plane (as if seen square-on): boxes measured as they show."""


def size_spread(corners: Sequence[np.ndarray]) -> float:
    """The largest over the smallest tile's size in the photo (the square root of its area): a
    photo's slant as its tiles show it before any fit. Fitting the plane only makes that robust to
    a wrong box, so a photo whose spread is small is not slanted more (and needs no fit)."""
    if len(corners) == 0:
        return 1.0
    sizes = np.sqrt(_areas(np.asarray(corners, np.float64)))
    return float(sizes.max() / max(sizes.min(), 1e-12))


def table_plane(corners: Sequence[np.ndarray]) -> TablePlane | None:
    """The plane the tiles lie on, from their ``(4, 2)`` corners in the photo; None for too few tiles."""
    if len(corners) < LEAST_TILES:
        return None
    quads = np.asarray(corners, np.float64)
    centre = quads.reshape(-1, 2).mean(axis=0)
    spread = float(quads.reshape(-1, 2).std()) or 1.0
    normalised = (quads - centre) / spread
    shape = _fit(normalised, _SQUARE_ON)
    misfit = np.linalg.norm(_residuals(shape[None], normalised)[0], axis=1)
    fitting = misfit <= max(3 * float(np.median(misfit)), 0.05)
    if LEAST_TILES <= fitting.sum() < len(quads):
        shape = _fit(normalised[fitting], shape)  # from where the first fit ended: a few steps more
    normalise = np.array([[1 / spread, 0, -centre[0] / spread], [0, 1 / spread, -centre[1] / spread], [0, 0, 1]])
    to_plane = _homography(shape) @ normalise
    if not np.isfinite(to_plane).all():
        return None  # degenerate boxes (no area, all in a line): no plane to tell
    return TablePlane(to_plane, _slant(to_plane, quads[fitting]))


def misfits(plane: TablePlane, corners: Sequence[np.ndarray]) -> np.ndarray:
    """How far each tile's quad is from a 2:1 rectangle on the plane: the largest of its four
    corner cosines and its long-to-short ratio's log distance from 2:1 (0 for a tile's face)."""
    if len(corners) == 0:
        return np.zeros(0)
    on_plane = through(plane.to_plane, np.asarray(corners, np.float64))
    departures: np.ndarray = np.abs(_residuals(_SQUARE_ON[None], on_plane)[0]).max(axis=1)
    return departures


def relative_areas(plane: TablePlane, corners: Sequence[np.ndarray], among: np.ndarray | None = None) -> np.ndarray:
    """Each quad's area on the plane over the median quad's (of those ``among`` says, a bool mask;
    None: all): near 1 for the faces of one set's tiles, about a half or less for a box over part of
    a tile or a tile mostly beyond the frame."""
    if len(corners) == 0:
        return np.zeros(0)
    areas = _areas(through(plane.to_plane, np.asarray(corners, np.float64)))
    reference = areas if among is None or not among.any() else areas[among]
    relative: np.ndarray = areas / max(float(np.median(reference)), 1e-12)
    return relative


def square_on(
    image_bgr: np.ndarray, plane: TablePlane, corners: Sequence[np.ndarray], longest: int = LONGEST_VIEW
) -> tuple[np.ndarray, np.ndarray]:
    """The photo redrawn on the table's plane, round the tiles found with a tile's length to spare,
    tiles as many pixels long as the photo's median tile, the view's longer side at most ``longest``
    pixels; and the ``(3, 3)`` matrix taking photo pixels to it. Beyond the photo: its border's colour."""
    quads = np.asarray(corners, np.float64)
    on_plane = through(plane.to_plane, quads)
    length_on_plane = float(np.median([_long_side(quad) for quad in on_plane]))
    length_in_photo = float(np.median([_long_side(quad) for quad in quads]))
    points = on_plane.reshape(-1, 2)
    low, high = points.min(axis=0) - length_on_plane, points.max(axis=0) + length_on_plane
    pixels = min(length_in_photo / length_on_plane, longest / float((high - low).max()))
    place = np.array([[pixels, 0, -low[0] * pixels], [0, pixels, -low[1] * pixels], [0, 0, 1]])
    matrix = place @ plane.to_plane
    size = np.ceil((high - low) * pixels).astype(int)
    view = cv2.warpPerspective(image_bgr, matrix, (int(size[0]), int(size[1])), borderValue=border_colour(image_bgr))
    return view, matrix


def back_to_photo(matrix: np.ndarray, corners: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Corners found in ``square_on``'s view, in the photo's pixels."""
    if len(corners) == 0:
        return []
    return list(points_to_photo(matrix, np.asarray(corners, np.float64).reshape(-1, 2)).reshape(-1, 4, 2))


def points_to_photo(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(m, 2)`` points found in ``square_on``'s view, in the photo's pixels."""
    if len(points) == 0:
        return np.zeros((0, 2), np.float32)
    return through(np.linalg.inv(matrix), np.asarray(points, np.float64)).astype(np.float32)


def border_colour(image_bgr: np.ndarray) -> tuple[int, int, int]:
    """The median colour of the photo's outermost pixels: what to draw beyond its edge."""
    border = np.concatenate([image_bgr[0], image_bgr[-1], image_bgr[:, 0], image_bgr[:, -1]])
    blue, green, red = (int(value) for value in np.median(border, axis=0))
    return blue, green, red


def through(matrix: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Points ``(..., 2)`` (float: quads ``(n, 4, 2)``, a quad, a list of points) through the ``(3, 3)``
    homography ``matrix``, in one call."""
    mapped: np.ndarray = cv2.perspectiveTransform(quads.reshape(1, -1, 2), matrix).reshape(quads.shape)
    return mapped


def _areas(quads: np.ndarray) -> np.ndarray:
    """``(n,)`` areas of ``(n, 4, 2)`` quads (the shoelace formula)."""
    x, y = quads[..., 0], quads[..., 1]
    areas: np.ndarray = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))
    return areas


def _long_side(quad: np.ndarray) -> float:
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)


def _homography(shape: np.ndarray) -> np.ndarray:
    horizon_x, horizon_y, stretch, shear = shape
    affine = np.array([[stretch, shear, 0], [0, 1, 0], [0, 0, 1]])
    projective = np.array([[1, 0, 0], [0, 1, 0], [horizon_x, horizon_y, 1]])
    matrix: np.ndarray = affine @ projective
    return matrix


def _residuals(shapes: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """``(k, n, 5)`` for ``k`` shapes at once: each tile's four corner cosines and its log ratio's
    distance from 2:1 (both 0 for a 2:1 rectangle). The fit's innermost work: x and y kept apart
    and corners indexed rather than rolled (a third faster)."""
    horizon_x, horizon_y, stretch, shear = (shapes[:, i, None, None] for i in range(4))
    w = 1 + horizon_x * quads[None, ..., 0] + horizon_y * quads[None, ..., 1]
    x, y = quads[None, ..., 0] / w, quads[None, ..., 1] / w
    x = stretch * x + shear * y
    edge_x, edge_y = x[..., _NEXT] - x, y[..., _NEXT] - y
    lengths = np.sqrt(edge_x * edge_x + edge_y * edge_y) + 1e-12
    edge_x, edge_y = edge_x / lengths, edge_y / lengths
    cosines = edge_x * edge_x[..., _PREVIOUS] + edge_y * edge_y[..., _PREVIOUS]
    across, along = lengths[..., 0] + lengths[..., 2], lengths[..., 1] + lengths[..., 3]
    ratio = np.abs(np.log(along / across)) - np.log(2)
    return np.concatenate([cosines, ratio[..., None]], axis=2)


def _fit(quads: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Levenberg-Marquardt over the four numbers from ``start``; the Jacobian by finite differences,
    worked out in the same batch as each step's trial (one call a step). It stops once a step gains
    less than SETTLED of the error: the thresholds that use the fit (SLANT, ODD_SHAPE) are tenths
    apart."""
    nudges = np.vstack([np.zeros(4), _NUDGE * np.eye(4)])

    def at(shape: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        errors = _residuals(shape + nudges, quads).reshape(5, -1)
        return errors[0], ((errors[1:] - errors[0]) / _NUDGE).T

    shape, damping = start.copy(), 1e-2
    error, jacobian = at(shape)
    for _ in range(STEPS):
        normal = jacobian.T @ jacobian
        step = -np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-12), jacobian.T @ error)
        trial, trial_jacobian = at(shape + step)
        if trial @ trial < error @ error:
            settled = error @ error - trial @ trial < SETTLED * (error @ error + 1e-12)
            shape, error, jacobian, damping = shape + step, trial, trial_jacobian, damping / 3
            if settled:
                break
        else:
            damping *= 5
    return shape


def _slant(to_plane: np.ndarray, quads: np.ndarray) -> float:
    """The largest over the smallest of the tiles' sizes in the photo relative to their size on the plane."""
    scales = np.sqrt(_areas(quads) / np.maximum(_areas(through(to_plane, quads)), 1e-12))
    return float(scales.max() / max(scales.min(), 1e-12))
