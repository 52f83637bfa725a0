"""Photos in, readings out: ``POST /score`` (a leftover hand), ``POST /analyze`` (a table), ``POST
/calibrate/camera`` (the lens, from photos of the printed board), ``POST /calibrate/table`` (the
table's plane) and ``POST /calibrate/seats`` (whose slot is whose, from the players' markers by the hub)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import PurePath
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, File, Form, HTTPException, UploadFile
from fastapi.concurrency import run_in_threadpool

from api.deps import ReadersDep
from calibration.profile import CameraPart, TablePart
from vision.table_analysis import Seats

router = APIRouter(tags=["photos"])

MAX_NAME = 100
Part = TypeVar("Part")


@router.post("/score", summary="Read a leftover hand's tiles and total its pips (the hubcam score JSON)")
async def score(photo: Annotated[UploadFile, File()], readers: ReadersDep) -> dict[str, Any]:
    data = await photo.read()
    return await run_in_threadpool(readers.score, data, photo_name(photo))


@router.post("/analyze", summary="Read a table: hub, engine, trains, markers and flags (the hubcam analyze JSON)")
async def analyze(
    photo: Annotated[UploadFile, File()],
    readers: ReadersDep,
    seats: Annotated[str | None, Form(description='{"slots": {"<angle>": seat}, "mexican": <angle>}')] = None,
    table: Annotated[
        str | None,
        Form(
            description="the table's plane, as POST /calibrate/table answers it: a slanted photo is read "
            "again square-on (in place of the service's profile's)"
        ),
    ] = None,
) -> dict[str, Any]:
    seat_map = None
    if seats:
        try:
            seat_map = Seats.from_json(json.loads(seats))
        except ValueError as error:
            raise HTTPException(422, f"seats: {error}") from None
    plane = profile_part(table, "table", TablePart.from_json)
    data = await photo.read()
    analysis = await run_in_threadpool(readers.analyze, data, photo_name(photo), seat_map, plane)
    return analysis.to_json()


@router.post(
    "/calibrate/table",
    summary="The table's plane from one photo, by the four table markers at its corners or else the hub and "
    "engine (hubcam calibrate table PHOTO --json)",
)
async def calibrate_table(
    photo: Annotated[UploadFile, File()],
    readers: ReadersDep,
    tile_mm: Annotated[float, Form(gt=0, description="a tile's length: the scale without markers")] = 50.0,
    span_across_mm: Annotated[
        float | None, Form(gt=0, description="the markers' centres measured with a tape, 0 to 1")
    ] = None,
    span_down_mm: Annotated[float | None, Form(gt=0, description="... and 1 to 2")] = None,
    camera: Annotated[
        str | None,
        Form(description="the camera's lens, as POST /calibrate/camera answers it (else the service profile's)"),
    ] = None,
) -> dict[str, Any]:
    if (span_across_mm is None) != (span_down_mm is None):
        raise HTTPException(422, "span_across_mm and span_down_mm: give both spans, or neither")
    span = None if span_across_mm is None or span_down_mm is None else (span_across_mm, span_down_mm)
    lens = profile_part(camera, "camera", CameraPart.from_json)
    data = await photo.read()  # a photo with neither markers nor hub: a ValueError saying so, answered 422
    return await run_in_threadpool(readers.table_from, data, photo_name(photo), tile_mm, span, lens)


@router.post(
    "/calibrate/camera",
    summary="The camera's lens from photos of hubcam's printed board (hubcam calibrate camera PHOTO... --json)",
)
async def calibrate_camera(
    photos: Annotated[list[UploadFile], File(description="15 to 20 photos of the board, tilted various ways")],
    readers: ReadersDep,
) -> dict[str, Any]:
    sent = [(photo_name(photo), await photo.read()) for photo in photos]
    return await run_in_threadpool(readers.camera_from, sent)  # too few boards: a ValueError, answered 422


@router.post(
    "/calibrate/seats",
    summary="Whose train leaves each slot of the hub, from a photo of each player's marker by their slot "
    "(hubcam calibrate seats PHOTO --json)",
)
async def calibrate_seats(
    photo: Annotated[UploadFile, File()],
    readers: ReadersDep,
    players: Annotated[int, Form(ge=2, le=12, description="one marker by each player's slot")],
    first: Annotated[float, Form(description="seat 0: the marker nearest this angle (270: the camera's side)")] = 270,
) -> dict[str, Any]:
    from calibration.seats import SeatsError

    data = await photo.read()
    try:
        return await run_in_threadpool(readers.seats_from, data, photo_name(photo), players, first)
    except SeatsError as error:
        raise HTTPException(422, str(error)) from None


def profile_part(text: str | None, name: str, parse: Callable[[object], Part]) -> Part | None:
    """A form field holding a profile's part as JSON (None where empty): not JSON is answered 422 here, a
    field amiss by ``parse``'s ProfileError (a ValueError naming the part and field, answered 422)."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise HTTPException(422, f"{name}: not JSON ({error})") from None
    return parse(data)


def photo_name(photo: UploadFile) -> str:
    """The upload's file name as a label only (its last part, shortened): it never becomes a path."""
    name = PurePath((photo.filename or "photo").replace("\\", "/")).name or "photo"
    return "".join(ch for ch in name if ch.isprintable())[:MAX_NAME]
