"""The table's plane from one photo: a homography from the photo's pixels to the table seen from above, in mm.

Two ways, the first far the better:

- **markers** (``calibration.markers``): four printed markers of known size at the table's corners.
  Their 16 corners are fitted at once by one homography and each marker's turn on the table, and
  either each marker's place too (the scale then rests on the markers' printed size alone: a third
  of a pixel on a marker 50 pixels wide is several millimetres at a metre) or, given the spans
  between their centres measured with a tape (``span_mm``), the centres at a rectangle's corners
  (under a millimetre at the table's edge: ``benchmarks/results/calibration.md``). The table frame's
  origin is marker 0's centre, its x axis points to marker 1's centre.
- **hub**: the hub's rim, an ellipse in the photo, is a circle on the table: the ellipse's shape
  gives the plane's tilt and which way it leans (the far side taken to be up the photo, as from a
  camera over a table); the tiles found (the engine, and every other tile read), each of the set's
  known length, give the scale. The tilt is found in a view turned to look straight at the hub,
  through the camera's intrinsics (the profile's, or a 60-degree field of view assumed): a rotation,
  so the table's perspective is kept. The frame's origin is the hub's centre, its x axis the photo's
  right as near as the tilt allows. Centimetres at a table's edge, not millimetres.

Both frames are top-down images of the table: x to the right, y down (towards the camera's side for
the hub). Where the profile holds the camera, the photo's points are undistorted first and the
homography takes undistorted pixels (``TablePart.undistorted``). The run-time reader's findings (the
hub, the tiles) come in as plain numbers (``HubSeen``): calibration knows nothing of vision.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.markers import MARKER_IDS, MARKER_MM, MarkerError, find_markers
from calibration.profile import CameraPart, TablePart

ASSUMED_HFOV_DEG = 60.0
"""The field of view taken where no camera is calibrated: most webcams and phones have 55 to 75 degrees."""
WORST_FIT_PX = 3.0
"""Markers whose corners lie further than this from the best plane (RMS) are not four flat markers seen
whole; a good photo fits to a few tenths of a pixel."""
STEPS = 50
"""Levenberg-Marquardt steps at most for the markers' fit; it settles in under ten."""
_NUDGE = 1e-7
RIM_RAYS = 180
"""Rays cast from the hub's centre to find its rim, one every 2 degrees."""
RIM_BAND = (0.6, 1.45)
"""The rim is looked for between these shares of the detector's hub radius (half its box's mean side:
between the ellipse's semi-axes) from its centre: clear of the engine, short of the trains' far ends."""
RIM_EDGE_SHARE = 0.35
"""An edge along a ray counts if at least this share of the ray's strongest: the rim is the outermost."""
RIM_TRIES = 300
RIM_INLIER_SHARE = 0.02
"""A rim point within this share of the radius (at least 1.5 px) of an ellipse supports it."""


class TableError(ValueError):
    """A photo that cannot give the table's plane; the message says why and what to do."""


@dataclass(frozen=True)
class HubSeen:
    """The hub and the tiles as the table reader found them in the photo (its pixels, as taken)."""

    centre: tuple[float, float]
    radius: float
    """Half the detector's box's mean side."""
    engine: np.ndarray | None
    """``(4, 2)`` the engine tile's corners (corners[1] to corners[2] a long side); None where not found."""
    tiles: Sequence[np.ndarray]
    """The other tiles read, ``(4, 2)`` each."""


@dataclass(frozen=True)
class Ellipse:
    centre: tuple[float, float]
    axes: tuple[float, float]
    """Semi-axes, major then minor, pixels."""
    major_deg: float
    """The major axis's direction, degrees from the photo's x axis towards its y."""

    @classmethod
    def fitted(cls, points: np.ndarray) -> Ellipse:
        (cx, cy), (width, height), angle = cv2.fitEllipse(np.asarray(points, np.float32).reshape(-1, 1, 2))
        if width >= height:
            return cls((cx, cy), (width / 2, height / 2), angle % 180)
        return cls((cx, cy), (height / 2, width / 2), (angle + 90) % 180)

    def points(self, count: int = 72) -> np.ndarray:
        """``(count, 2)`` points round it."""
        t = np.linspace(0, 2 * math.pi, count, endpoint=False)
        turn = math.radians(self.major_deg)
        major, minor = np.array([math.cos(turn), math.sin(turn)]), np.array([-math.sin(turn), math.cos(turn)])
        return (
            np.asarray(self.centre)
            + np.outer(self.axes[0] * np.cos(t), major)
            + np.outer(self.axes[1] * np.sin(t), minor)
        )

    def radial_distance(self, points: np.ndarray) -> np.ndarray:
        """``(n,)``: each point's distance from the ellipse along the ray from its centre, pixels."""
        turn = math.radians(self.major_deg)
        offset = np.asarray(points, np.float64) - self.centre
        along = offset @ [math.cos(turn), math.sin(turn)]
        across = offset @ [-math.sin(turn), math.cos(turn)]
        rho = np.sqrt((along / self.axes[0]) ** 2 + (across / max(self.axes[1], 1e-9)) ** 2)
        distance: np.ndarray = np.abs(1 - rho) * np.linalg.norm(offset, axis=1) / np.maximum(rho, 1e-9)
        return distance


def assumed_camera(image_size: tuple[int, int]) -> np.ndarray:
    """``(3, 3)``: a camera of ``ASSUMED_HFOV_DEG``, its principal point the photo's centre."""
    width, height = image_size
    focal = width / 2 / math.tan(math.radians(ASSUMED_HFOV_DEG) / 2)
    return np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])


def through(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``(n, 2)`` points through a homography."""
    mapped: np.ndarray = cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(1, -1, 2), matrix)
    return mapped.reshape(-1, 2)


def distort(points: np.ndarray, camera_matrix: np.ndarray, distortion: np.ndarray) -> np.ndarray:
    """``(n, 2)`` undistorted pixels back to where the lens puts them."""
    rays = np.linalg.inv(camera_matrix) @ np.column_stack([points, np.ones(len(points))]).T
    placed, _ = cv2.projectPoints(rays.T.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), camera_matrix, distortion)
    return np.asarray(placed, np.float64).reshape(-1, 2)


def undistort(points: np.ndarray, camera_matrix: np.ndarray, distortion: np.ndarray) -> np.ndarray:
    """``(n, 2)`` pixels as a perfect lens of the same intrinsics would have put them."""
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
    moved = cv2.undistortPoints(
        np.asarray(points, np.float64).reshape(-1, 1, 2), camera_matrix, distortion, P=camera_matrix, criteria=criteria
    )
    return np.asarray(moved, np.float64).reshape(-1, 2)


def camera_fits(camera: CameraPart | None, size: tuple[int, int]) -> None:
    """A TableError where ``camera`` was calibrated on photos of another size than ``size`` (width, height):
    its lens would be put on the wrong pixels. Checked before the photo is read."""
    if camera is not None and camera.image_size != size:
        raise TableError(
            f"the photo is {size[0]}x{size[1]} but the camera was calibrated on {camera.image_size[0]}x"
            f"{camera.image_size[1]} photos (expected a photo by that camera at that size)"
        )


def table_from_photo(
    image_bgr: np.ndarray,
    hub: HubSeen | None,
    tile_mm: float,
    camera: CameraPart | None = None,
    span_mm: tuple[float, float] | None = None,
) -> tuple[TablePart, float | None]:
    """``hubcam calibrate table``'s (and ``POST /calibrate/table``'s) table part of one photo: by the table
    markers found in it, else by ``hub`` (the hub and engine as read); and the markers' fit error in pixels.
    A ValueError (MarkerError, TableError) says why there is none."""
    return table_part(image_bgr, find_markers(image_bgr).corners_px, hub, tile_mm, camera, span_mm)


def table_part(
    image_bgr: np.ndarray,
    markers_px: Mapping[int, np.ndarray],
    hub: HubSeen | None,
    tile_mm: float,
    camera: CameraPart | None = None,
    span_mm: tuple[float, float] | None = None,
) -> tuple[TablePart, float | None]:
    """The table part of a profile from one photo: by the markers found (``markers_px``, the photo's pixels)
    where there are any, else by the hub; and the markers' fit error in pixels (None by the hub).
    ``camera``: undistort every point first (the homography then takes undistorted pixels)."""
    size = (image_bgr.shape[1], image_bgr.shape[0])

    def straight(points: np.ndarray) -> np.ndarray:
        points = np.asarray(points, np.float64).reshape(-1, 2)
        if camera is None or len(points) == 0:
            return points
        return undistort(points, camera.camera_matrix, camera.distortion)

    matrix = assumed_camera(size) if camera is None else camera.camera_matrix
    fit_px: float | None = None
    hub_px: tuple[float, float] | None = None
    hub_mm: tuple[float, float] | None = None
    if markers_px:
        method = "markers"
        to_table, fit_px = plane_from_markers({n: straight(q) for n, q in markers_px.items()}, size, span_mm=span_mm)
        if hub is not None:  # the rim's centre, or else the detector's box's
            rim = hub_ellipse(rim_points(image_bgr, hub.centre, hub.radius), hub.radius)
            hub_px = hub.centre if rim is None else rim.centre
            x, y = through(to_table, straight(np.array([hub_px])))[0]
            hub_mm = (float(x), float(y))
        # a tile's size where the play is: at the hub, or else amid the markers
        at = hub_mm or tuple(through(to_table, straight(np.concatenate(list(markers_px.values())))).mean(axis=0))
    else:
        method = "hub"
        if hub is None:
            raise TableError(
                "no table markers and no hub found (expected the four markers of hubcam calibrate markers at the "
                "table's corners, or the hub with the engine on it in view)"
            )
        if hub.engine is None:
            raise TableError("the hub was found but not the engine on it: its length gives the scale (put it on)")
        rim = hub_ellipse([straight(points) for points in rim_points(image_bgr, hub.centre, hub.radius)], hub.radius)
        if rim is None:
            raise TableError(f"the hub's rim was not found round ({hub.centre[0]:.0f}, {hub.centre[1]:.0f})")
        tiles = [straight(hub.engine), *(straight(corners) for corners in hub.tiles)]
        to_table = plane_from_hub(rim, tiles, matrix, tile_mm)
        hub_mm = at = (0.0, 0.0)
        centre = through(np.linalg.inv(to_table), np.zeros((1, 2)))
        if camera is not None:
            centre = distort(centre, camera.camera_matrix, camera.distortion)
        hub_px = (float(centre[0, 0]), float(centre[0, 1]))
    part = TablePart(
        to_table,
        size,
        camera is not None,
        method,
        tile_mm,
        tile_mm * px_per_mm(to_table, at),
        tilt_deg(to_table, matrix),
        None if hub_px is None else (float(hub_px[0]), float(hub_px[1])),
        hub_mm,
    )
    return part, None if fit_px is None else round(fit_px, 3)


# -- the markers ------------------------------------------------------------------------------------


def plane_from_markers(
    corners_px: Mapping[int, np.ndarray],
    image_size: tuple[int, int],
    marker_mm: float = MARKER_MM,
    span_mm: tuple[float, float] | None = None,
) -> tuple[np.ndarray, float]:
    """``(3, 3)`` pixels to the table frame in mm, and the fit's RMS corner error in pixels, from the four
    markers' ``(4, 2)`` corners by number (undistorted already, where the camera is known).

    The markers' centres lie at a rectangle's corners, 0 to 1 across and 1 to 2 down. ``span_mm``: those
    two sides measured with a tape; without them the sides are fitted too, and the scale rests on the
    markers' printed size alone: a corner a third of a pixel off on a marker 50 pixels wide scales the
    table 0.7 % (6 mm a metre); with them the markers only tell the slant."""
    missing = [number for number in MARKER_IDS if number not in corners_px]
    if missing:
        listed = ", ".join(map(str, sorted(corners_px))) or "none"
        raise MarkerError(
            f"table markers found: {listed}; missing {', '.join(map(str, missing))} (expected all four, 0 to 3, "
            "in view at the table's corners)"
        )
    width, height = image_size
    spread = max(width, height) / 2
    normalise = np.array([[1 / spread, 0, -width / 2 / spread], [0, 1 / spread, -height / 2 / spread], [0, 0, 1]])
    seen = np.concatenate([through(normalise, corners_px[number]) for number in MARKER_IDS])
    unit = np.array(
        [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]
    )  # a marker's corners round its centre, in sides
    middles = np.array([seen[4 * i : 4 * i + 4].mean(axis=0) for i in range(4)])

    def rectangle(sides: np.ndarray) -> np.ndarray:
        across, down = sides
        return np.array([[0.0, 0.0], [across, 0.0], [across, down], [0.0, down]])

    def residuals(numbers: np.ndarray, sides: np.ndarray | None = None) -> np.ndarray:
        """The markers' corners placed by ``numbers`` (homography, four turns, and the sides unless given)
        less where they were seen."""
        matrix = np.append(numbers[:8], 1.0).reshape(3, 3)
        poses = zip(rectangle(numbers[12:14] if sides is None else sides), numbers[8:12], strict=True)
        quads = [_posed(unit, np.array([*centre, turn])) for centre, turn in poses]
        gaps: np.ndarray = (through(matrix, np.concatenate(quads)) - seen).reshape(-1)
        return gaps

    def fitted(sides: np.ndarray) -> np.ndarray:
        """The homography and turns that fit best with the sides held at ``sides``."""
        to_image = cv2.findHomography(rectangle(sides), middles)[0]
        turns = [_pose_of(through(np.linalg.inv(to_image), seen[4 * i : 4 * i + 4]))[2] for i in range(4)]
        start = np.concatenate([(to_image / to_image[2, 2]).reshape(-1)[:8], turns])
        return _least_squares(lambda numbers: residuals(numbers, sides), start)

    if span_mm is not None:
        numbers = np.concatenate([fitted(np.array(span_mm) / marker_mm), np.array(span_mm) / marker_mm])
    else:
        # the sides as marker 0 alone sees them (a short lever: tens of per cent off on a small marker),
        # scaled to whichever of a range fits best, then fitted with the rest
        first = cv2.getPerspectiveTransform(unit.astype(np.float32), seen[:4].astype(np.float32)).astype(np.float64)
        guess = [_pose_of(through(np.linalg.inv(first), seen[4 * i : 4 * i + 4]))[:2] for i in range(3)]
        sides = np.array([np.linalg.norm(guess[1] - guess[0]), np.linalg.norm(guess[2] - guess[1])])
        tries = [(sides * scale, fitted(sides * scale)) for scale in np.geomspace(0.6, 1.6, 9)]
        best, numbers = min(tries, key=lambda pair: float(np.sum(residuals(pair[1], pair[0]) ** 2)))
        numbers = _least_squares(residuals, np.concatenate([numbers, best]))
    error_px = float(np.sqrt(np.mean(residuals(numbers).reshape(-1, 2) ** 2 * 2)) * spread)
    if not error_px <= WORST_FIT_PX:
        raise MarkerError(
            f"the markers' corners fit no one plane ({error_px:.1f} px off): is a marker not flat, half hidden, "
            "or a span mis-measured?"
        )
    to_image = np.append(numbers[:8], 1.0).reshape(3, 3)
    found = rectangle(numbers[12:14])
    x_axis = found[1] - found[0]
    x_axis /= np.linalg.norm(x_axis)
    y_axis = np.array([-x_axis[1], x_axis[0]])  # a right angle on from x, as y is from x in an image
    frame = np.eye(3)
    frame[:2, :2] = marker_mm * np.stack([x_axis, y_axis])
    frame[:2, 2] = -frame[:2, :2] @ found[0]
    image_to_table: np.ndarray = frame @ np.linalg.inv(to_image) @ normalise
    return np.asarray(image_to_table / image_to_table[2, 2], np.float64), error_px


def _pose_of(quad: np.ndarray) -> np.ndarray:
    """A unit square's centre and turn nearest ``quad``'s ``(4, 2)`` corners."""
    along = (quad[1] - quad[0]) + (quad[2] - quad[3])
    centre = quad.mean(axis=0)
    return np.array([centre[0], centre[1], math.atan2(along[1], along[0])])


def _posed(points: np.ndarray, pose: np.ndarray) -> np.ndarray:
    x, y, turn = pose
    rotation = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    placed: np.ndarray = points @ rotation.T + [x, y]
    return placed


def _least_squares(residuals: Callable[[np.ndarray], np.ndarray], start: np.ndarray) -> np.ndarray:
    """Levenberg-Marquardt from ``start``, the Jacobian by finite differences."""
    numbers, damping, settled = start.astype(np.float64), 1e-3, False
    error = residuals(numbers)
    for _ in range(STEPS):
        jacobian = np.stack(
            [(residuals(numbers + _NUDGE * np.eye(len(numbers))[i]) - error) / _NUDGE for i in range(len(numbers))],
            axis=1,
        )
        normal = jacobian.T @ jacobian
        while damping < 1e12:
            step = -np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-12), jacobian.T @ error)
            trial = residuals(numbers + step)
            if trial @ trial < error @ error:
                settled = error @ error - trial @ trial < 1e-10 * (error @ error + 1e-15)
                numbers, error, damping = numbers + step, trial, damping / 3
                break
            damping *= 5
        else:
            break
        if settled:
            break
    return numbers


# -- the hub ----------------------------------------------------------------------------------------


def rim_points(image_bgr: np.ndarray, centre: tuple[float, float], radius: float) -> list[np.ndarray]:
    """For each of ``RIM_RAYS`` rays from the hub's centre, ``(k, 2)``: the strong edges along it within
    ``RIM_BAND`` (the rim among them, or a tile's edges where a train hides it: ``hub_ellipse`` chooses)."""
    step = 0.5
    distances = np.arange(RIM_BAND[0] * radius, RIM_BAND[1] * radius, step)
    angles = np.linspace(0, 2 * math.pi, RIM_RAYS, endpoint=False)
    directions = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    xs = (centre[0] + directions[:, :1] * distances[None]).astype(np.float32)
    ys = (centre[1] + directions[:, 1:] * distances[None]).astype(np.float32)
    samples = cv2.remap(image_bgr.astype(np.float32), xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # the change along each ray in colour, not only brightness: a hub may be as light as the table
    change = np.linalg.norm(np.diff(cv2.GaussianBlur(samples, (0, 0), sigmaX=1.5, sigmaY=0.01), axis=1), axis=2)
    rays = []
    for ray, strength in enumerate(change):
        inner, outer = strength[1:-1], strength
        peaks = np.flatnonzero((inner >= outer[:-2]) & (inner > outer[2:]) & (inner >= RIM_EDGE_SHARE * strength.max()))
        edges = distances[peaks + 1] + step / 2
        rays.append(np.asarray(centre) + np.outer(edges, directions[ray]))
    return rays


def hub_ellipse(rays: Sequence[np.ndarray], radius: float, seed: int = 0) -> Ellipse | None:
    """The ellipse the most rays meet an edge on (RANSAC over five-point fits, five rays apart), then fitted
    to the edge nearest it on each of those rays; among near ties the larger (the rim, not a band inside it)."""
    usable = [points for points in rays if len(points)]
    if len(usable) < RIM_RAYS // 4:
        return None
    every = np.concatenate(usable)
    owner = np.concatenate([np.full(len(points), index) for index, points in enumerate(usable)])
    rng = np.random.default_rng(seed)
    reach = max(1.5, RIM_INLIER_SHARE * radius)
    best, best_score = None, -1.0
    for _ in range(RIM_TRIES):
        chosen = [
            usable[index][rng.integers(len(usable[index]))] for index in rng.choice(len(usable), 5, replace=False)
        ]
        try:
            trial = Ellipse.fitted(np.array(chosen))
        except cv2.error:
            continue
        if not (0.3 * radius < trial.axes[1] <= trial.axes[0] < 3 * radius):
            continue
        near = trial.radial_distance(every) <= reach
        score = len(np.unique(owner[near])) + 0.02 * trial.axes[0] / radius
        if score > best_score:
            best, best_score = trial, score
    if best is None or best_score < max(12, len(usable) // 3):
        return None
    ellipse = best
    for _ in range(3):  # settle: on each ray that meets it, the edge nearest it
        distance = ellipse.radial_distance(every)
        chosen = []
        for index in range(len(usable)):
            mine = np.flatnonzero(owner == index)
            nearest = mine[np.argmin(distance[mine])]
            if distance[nearest] <= reach:
                chosen.append(every[nearest])
        if len(chosen) < 12:
            return None
        ellipse = Ellipse.fitted(np.array(chosen))
    return ellipse


def plane_from_hub(
    rim: Ellipse, tiles_corners: Sequence[np.ndarray], camera_matrix: np.ndarray, tile_mm: float
) -> np.ndarray:
    """``(3, 3)`` pixels to the table frame in mm (origin the hub's centre) from the rim's ellipse and the
    ``(4, 2)`` corners of the engine and any other tiles found (corners[1] to corners[2] a long side), each
    ``tile_mm`` long: the scale is their median length, seen square-on (one box a few pixels off would
    scale the whole table)."""
    inverse = np.linalg.inv(camera_matrix)
    ray = inverse @ [*rim.centre, 1.0]
    ray /= np.linalg.norm(ray)
    # a rotation of the camera that looks straight at the hub: there its rim is an ellipse centred, whose
    # shape is the tilt alone (at the photo's edge the view's own slant would add to it)
    axis = np.cross(ray, [0.0, 0.0, 1.0])
    angle = math.asin(min(1.0, float(np.linalg.norm(axis))))
    facing = cv2.Rodrigues(axis / max(float(np.linalg.norm(axis)), 1e-12) * angle)[0] if angle > 1e-9 else np.eye(3)
    to_facing = camera_matrix @ facing @ inverse
    seen = Ellipse.fitted(through(to_facing, rim.points()))
    tilt = math.acos(min(1.0, seen.axes[1] / seen.axes[0]))
    turn = math.radians(seen.major_deg)
    near = np.array([-math.sin(turn), math.cos(turn)])  # the minor axis, pointing down the view: the near side
    if near[1] < 0:
        near = -near
    across = np.array([near[1], -near[0]])  # x, y, as image axes are to each other
    w = np.array([*(math.cos(tilt) * near), -math.sin(tilt)])
    u = np.array([*across, 0.0])
    square_on = np.stack([u, w, np.cross(u, w)])
    to_square_on = camera_matrix @ square_on @ inverse @ to_facing
    circle = Ellipse.fitted(through(to_square_on, rim.points()))
    lengths = []
    for corners in tiles_corners:
        tile = through(to_square_on, corners)
        lengths.append((np.linalg.norm(tile[1] - tile[2]) + np.linalg.norm(tile[3] - tile[0])) / 2)
    length = float(np.median(lengths)) if lengths else 0.0
    if not length > 0:
        raise TableError("no tile's length to take the scale from (expected the engine on the hub, at least)")
    scale = tile_mm / length
    frame = np.array([[scale, 0, -scale * circle.centre[0]], [0, scale, -scale * circle.centre[1]], [0, 0, 1]])
    image_to_table: np.ndarray = frame @ to_square_on
    normalised: np.ndarray = image_to_table / image_to_table[2, 2]
    return normalised


# -- what the plane tells ---------------------------------------------------------------------------


def tilt_deg(image_to_table: np.ndarray, camera_matrix: np.ndarray) -> float:
    """The angle between the camera's axis and the table's normal, degrees (0: looking straight down)."""
    columns = np.linalg.inv(camera_matrix) @ np.linalg.inv(image_to_table)
    first, second = columns[:, 0] / np.linalg.norm(columns[:, 0]), columns[:, 1] / np.linalg.norm(columns[:, 1])
    normal = np.cross(first, second)
    normal /= np.linalg.norm(normal)
    return math.degrees(math.acos(min(1.0, abs(float(normal[2])))))


def px_per_mm(image_to_table: np.ndarray, at_mm: Sequence[float]) -> float:
    """Pixels per millimetre on the table round ``at_mm`` (the square root of the local area's ratio)."""
    to_image = np.linalg.inv(image_to_table)
    x, y = at_mm
    square = np.array([[x - 0.5, y - 0.5], [x + 0.5, y - 0.5], [x + 0.5, y + 0.5], [x - 0.5, y + 0.5]])
    seen = through(to_image, square)
    area = 0.5 * abs(float(np.dot(seen[:, 0], np.roll(seen[:, 1], -1)) - np.dot(np.roll(seen[:, 0], -1), seen[:, 1])))
    return math.sqrt(area)
