"""Photos in, readings out: ``POST /score`` (a leftover hand) and ``POST /analyze`` (a table)."""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, HTTPException, UploadFile
from fastapi.concurrency import run_in_threadpool

from api.deps import ReadersDep
from vision.table_analysis import Seats

router = APIRouter(tags=["photos"])

MAX_NAME = 100


@router.post("/score", summary="Read a leftover hand's tiles and total its pips (the hubcam score JSON)")
async def score(photo: Annotated[UploadFile, File()], readers: ReadersDep) -> dict[str, Any]:
    data = await photo.read()
    return await run_in_threadpool(readers.score, data, photo_name(photo))


@router.post("/analyze", summary="Read a table: hub, engine, trains, markers and flags (the hubcam analyze JSON)")
async def analyze(
    photo: Annotated[UploadFile, File()],
    readers: ReadersDep,
    seats: Annotated[str | None, Form(description='{"slots": {"<angle>": seat}, "mexican": <angle>}')] = None,
) -> dict[str, Any]:
    seat_map = None
    if seats:
        try:
            seat_map = Seats.from_json(json.loads(seats))
        except ValueError as error:
            raise HTTPException(422, f"seats: {error}") from None
    data = await photo.read()
    analysis = await run_in_threadpool(readers.analyze, data, photo_name(photo), seat_map)
    return analysis.to_json()


def photo_name(photo: UploadFile) -> str:
    """The upload's file name as a label only (its last part, shortened): it never becomes a path."""
    name = PurePath((photo.filename or "photo").replace("\\", "/")).name or "photo"
    return "".join(ch for ch in name if ch.isprintable())[:MAX_NAME]
