"""The seat map: which hub slot's train belongs to which seat, and which is the Mexican train's.

    {"slots": {"<angle>": seat, ...}, "mexican": <angle>}

Angles are degrees counter-clockwise from the photo's right as seen, round the hub's centre (as
``hubcam analyze`` measures a train's slot); seats are numbered from 0. It is what ``hubcam analyze
--seats`` reads, and the profile's seats part (``calibration.profile``). From a photo of the hub with
each player's marker by their slot (``seats_from_markers``) the seats are numbered counter-clockwise
from the marker nearest a given angle (by default the photo's bottom: the camera's side), and the
Mexican train takes the next slot on from the last seat (a step the seats' median step), unless given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

FIRST_SEAT_DEG = 270.0
"""Where seat 0 is looked for by default: straight down the photo from the hub."""
MARKER_GAP_DEG = 12.0
"""Marker boxes round the hub closer in angle than this are one marker (the detector boxes one several
times, each a little off): on 12 rendered hubs of 3 or 4 players, seat maps right 4 -> 7 (wrong 2 -> 1)
against boxes closer than a third of the hub's radius taken as one (``python -m benchmarks.seats_bench``)."""


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
    return {"slots": slots, "mexican": mexican}


def marker_angles(
    centre: tuple[float, float], radius: float, markers: Sequence[tuple[Sequence[float], float]], players: int
) -> list[float]:
    """The angles round a hub (``centre``, ``radius``, pixels) of the ``players`` markers most surely seen
    among marker boxes (``markers``: each box's centre and the detector's confidence): boxes on the hub
    are its marks, boxes apart by less than MARKER_GAP_DEG are one marker (at their confidence-weighted
    angle, the confidences summed), and where more markers than players are left the surest are kept."""
    seen = sorted(
        (angle_round(centre, point), confidence) for point, confidence in markers if math.dist(point, centre) > radius
    )
    groups: list[list[tuple[float, float]]] = []
    for angle, confidence in seen:
        if groups and angle - groups[-1][-1][0] < MARKER_GAP_DEG:
            groups[-1].append((angle, confidence))
        else:
            groups.append([(angle, confidence)])
    if len(groups) > 1 and groups[0][0][0] + 360.0 - groups[-1][-1][0] < MARKER_GAP_DEG:  # across 0 degrees
        groups[0] = [(angle - 360.0, confidence) for angle, confidence in groups.pop()] + groups[0]
    weighed = [
        (sum(confidence for _, confidence in group), sum(angle * confidence for angle, confidence in group))
        for group in groups
    ]
    surest = sorted(weighed, reverse=True)[:players]
    return sorted((total_angle / total) % 360.0 for total, total_angle in surest if total > 0)


def angle_round(centre: tuple[float, float], point: Sequence[float]) -> float:
    """Degrees counter-clockwise from the photo's right (image y points down), in [0, 360)."""
    return math.degrees(math.atan2(-(point[1] - centre[1]), point[0] - centre[0])) % 360.0


def seats_from_markers(
    angles: Sequence[float], players: int, first_deg: float = FIRST_SEAT_DEG, mexican_deg: float | None = None
) -> dict[str, Any]:
    """The seat map from the players' markers' angles round the hub: seat 0 the marker nearest ``first_deg``,
    then counter-clockwise; the Mexican train at ``mexican_deg``, or the next slot on from the last seat."""
    if len(angles) != players:
        raise SeatsError(
            f"{len(angles)} markers found by the hub for {players} players (expected one marker by each "
            "player's slot; or give the slots by hand with --slot ANGLE=SEAT)"
        )
    ordered = sorted(angle % 360 for angle in angles)
    start = min(range(players), key=lambda index: _apart(ordered[index], first_deg))
    turned = ordered[start:] + ordered[:start]
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
    return checked_seats({"slots": slots, "mexican": mexican_deg})


def _apart(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)
