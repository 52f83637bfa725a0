"""The seat map: which hub slot's train belongs to which seat, and which is the Mexican train's.

    {"slots": {"<angle>": seat, ...}, "mexican": <angle>, "colours": {"<seat>": "#rrggbb", ...}}

Angles are degrees counter-clockwise from the photo's right as seen, round the hub's centre (as
``hubcam analyze`` measures a train's slot); seats are numbered from 0. It is what ``hubcam analyze
--seats`` reads, and the profile's seats part (``calibration.profile``). From a photo of the hub with
each player's marker by their slot (``seats_from_markers``) the seats are numbered counter-clockwise
from the marker nearest a given angle (by default the photo's bottom: the camera's side), and the
Mexican train takes the next slot on from the last seat (a step the seats' median step), unless given;
each seat's marker colour is kept as the photo shows it (``colours``, optional: a map given by hand has
none).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np

FIRST_SEAT_DEG = 270.0
"""Where seat 0 is looked for by default: straight down the photo from the hub."""
MARKER_GAP_DEG = 12.0
"""Marker boxes round the hub closer in angle than this are one marker (the detector boxes one several
times, each a little off): on 12 rendered hubs of 3 or 4 players, seat maps right 4 -> 7 (wrong 2 -> 1)
against boxes closer than a third of the hub's radius taken as one, with the table detector before it
was taught busy tables (``python -m benchmarks.seats_bench --n 6``; benchmarks/HISTORY.md)."""


class SeatsError(ValueError):
    """A seat map that cannot be used, or markers that cannot make one; the message says why."""


def checked_seats(data: object) -> dict[str, Any]:
    """``data`` as a seat map (angles and seats as numbers, no seat twice), or a SeatsError saying what is wrong."""
    if not isinstance(data, Mapping) or not isinstance(data.get("slots"), Mapping):
        raise SeatsError(f'expected {{"slots": {{"<angle>": seat, ...}}, "mexican": <angle>}}, got {data!r:.80}')
    try:
        slots = {f"{float(angle) % 360:g}": int(seat) for angle, seat in data["slots"].items()}
        mexican = None if data.get("mexican") is None else float(data["mexican"]) % 360
    except (TypeError, ValueError):
        raise SeatsError(f"invalid seat map: {data!r:.80} (angles and seats must be numbers)") from None
    seats = list(slots.values())
    if len(set(seats)) != len(seats) or any(seat < 0 for seat in seats):
        raise SeatsError(f"seats {sorted(seats)}: each seat (0, 1, ...) may own one slot only")
    checked: dict[str, Any] = {"slots": slots, "mexican": mexican}
    if data.get("colours") is not None:
        checked["colours"] = _checked_colours(data["colours"], set(seats))
    return checked


def _checked_colours(colours: object, seats: set[int]) -> dict[str, str]:
    """``{"<seat>": "#rrggbb"}`` for seats of the map, or a SeatsError naming what is wrong."""
    if not isinstance(colours, Mapping):
        raise SeatsError(f'colours: expected {{"<seat>": "#rrggbb", ...}}, got {colours!r:.60}')
    checked = {}
    for seat, colour in colours.items():
        if not (str(seat).isdigit() and int(seat) in seats):
            raise SeatsError(f"colours: seat {seat!r} owns no slot of the map")
        if not (isinstance(colour, str) and len(colour) == 7 and colour[0] == "#" and _is_hex(colour[1:])):
            raise SeatsError(f"colours: seat {seat}'s colour {colour!r} is not #rrggbb")
        checked[str(int(seat))] = colour.lower()
    return checked


def _is_hex(text: str) -> bool:
    return all(char in "0123456789abcdefABCDEF" for char in text)


def markers_round_hub(
    centre: tuple[float, float], radius: float, markers: Sequence[tuple[Sequence[float], float]], players: int
) -> list[tuple[float, int]]:
    """The ``players`` markers most surely seen round a hub (``centre``, ``radius``, pixels) among marker
    boxes (``markers``: each box's centre and the detector's confidence), in angle order: each as its
    angle and the index of its surest box. Boxes on the hub are its marks, boxes apart by less than
    MARKER_GAP_DEG are one marker (at their confidence-weighted angle, the confidences summed), and
    where more markers than players are left the surest are kept."""
    seen = sorted(
        (angle_round(centre, point), confidence, index)
        for index, (point, confidence) in enumerate(markers)
        if math.dist(point, centre) > radius
    )
    groups: list[list[tuple[float, float, int]]] = []
    for angle, confidence, index in seen:
        if groups and angle - groups[-1][-1][0] < MARKER_GAP_DEG:
            groups[-1].append((angle, confidence, index))
        else:
            groups.append([(angle, confidence, index)])
    if len(groups) > 1 and groups[0][0][0] + 360.0 - groups[-1][-1][0] < MARKER_GAP_DEG:  # across 0 degrees
        groups[0] = [(angle - 360.0, confidence, index) for angle, confidence, index in groups.pop()] + groups[0]
    weighed = []
    for group in groups:
        total = sum(confidence for _, confidence, _ in group)
        if total > 0:
            angle = sum(angle * confidence for angle, confidence, _ in group) / total
            weighed.append((total, angle % 360.0, max(group, key=lambda box: box[1])[2]))
    surest = sorted(weighed, reverse=True)[:players]
    return sorted((angle, index) for _, angle, index in surest)


def seats_from_photo(
    image_bgr: np.ndarray,
    hub: tuple[tuple[float, float], float] | None,
    markers: Sequence[tuple[np.ndarray, float]],
    players: int,
    first_deg: float = FIRST_SEAT_DEG,
    mexican_deg: float | None = None,
) -> dict[str, Any]:
    """The seat map from a photo of the hub (``hub``: its centre and radius, pixels, as a detector found
    it; None: none found) with each player's marker by their slot (``markers``: the boxes a detector
    found, ``(4, 2)`` corners and confidence), each seat's marker colour with it (``seats_from_markers``;
    a SeatsError where they make no map)."""
    if hub is None:
        raise SeatsError("no hub found (expected a photo of the hub with each player's marker by their slot)")
    centres = [(np.asarray(corners, np.float64).mean(axis=0), confidence) for corners, confidence in markers]
    found = markers_round_hub(hub[0], hub[1], centres, players)
    colours = [marker_colour(image_bgr, markers[index][0]) for _, index in found]
    return seats_from_markers([angle for angle, _ in found], players, first_deg, mexican_deg, colours)


def marker_colour(image_bgr: np.ndarray, corners: np.ndarray) -> str:
    """A marker's colour, "#rrggbb": the median of the middle half of its box (the table round it left out)."""
    corners = np.asarray(corners, np.float64)
    middle = corners.mean(axis=0) + (corners - corners.mean(axis=0)) / 2
    mask = np.zeros(image_bgr.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(middle).astype(np.int32), 255)
    pixels = image_bgr[mask > 0]
    if len(pixels) == 0:  # a box smaller than a pixel: its middle
        x, y = np.clip(np.round(corners.mean(axis=0)).astype(int), 0, [image_bgr.shape[1] - 1, image_bgr.shape[0] - 1])
        pixels = image_bgr[y : y + 1, x : x + 1].reshape(-1, 3)
    blue, green, red = (int(value) for value in np.median(pixels, axis=0))
    return f"#{red:02x}{green:02x}{blue:02x}"


def angle_round(centre: tuple[float, float], point: Sequence[float]) -> float:
    """Degrees counter-clockwise from the photo's right (image y points down), in [0, 360)."""
    return math.degrees(math.atan2(-(point[1] - centre[1]), point[0] - centre[0])) % 360.0


def seats_from_markers(
    angles: Sequence[float],
    players: int,
    first_deg: float = FIRST_SEAT_DEG,
    mexican_deg: float | None = None,
    colours: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The seat map from the players' markers' angles round the hub: seat 0 the marker nearest ``first_deg``,
    then counter-clockwise; the Mexican train at ``mexican_deg``, or the next slot on from the last seat.
    ``colours``: each marker's, "#rrggbb", in ``angles``' order (kept as each seat's)."""
    if len(angles) != players:
        raise SeatsError(
            f"{len(angles)} markers found by the hub for {players} players (expected one marker by each "
            "player's slot; or give the slots by hand with --slot ANGLE=SEAT)"
        )
    ordered = sorted(range(players), key=lambda index: angles[index] % 360)
    start = min(range(players), key=lambda place: _apart(angles[ordered[place]] % 360, first_deg))
    markers = ordered[start:] + ordered[:start]
    turned = [angles[index] % 360 for index in markers]
    slots = {f"{round(angle, 1):g}": seat for seat, angle in enumerate(turned)}
    if mexican_deg is None:
        steps = [(turned[index + 1] - turned[index]) % 360 for index in range(players - 1)]
        step = float(sorted(steps)[(len(steps) - 1) // 2])
        mexican_deg = round((turned[-1] + step) % 360, 1)
        if any(_apart(mexican_deg, angle) < min(steps) / 2 for angle in turned):
            raise SeatsError(
                f"the next slot on from the last seat ({mexican_deg:g} degrees) is a seat's: the markers go all "
                "round the hub (give the Mexican train's slot with --mexican ANGLE)"
            )
    seats: dict[str, Any] = {"slots": slots, "mexican": mexican_deg}
    if colours is not None:
        seats["colours"] = {str(seat): colours[index] for seat, index in enumerate(markers)}
    return checked_seats(seats)


def _apart(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)
