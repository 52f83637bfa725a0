"""The pages: the referee's view (``/``) and a read-only scoreboard for phones (``/games/{id}/board``)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(__file__).parent.parent / "static"
router = APIRouter(tags=["pages"])


@router.get("/", include_in_schema=False)
def referee_page() -> FileResponse:
    return FileResponse(STATIC / "referee.html")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """Browsers ask for /favicon.ico whatever the page links; the same small SVG answers."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/games/{game_id}/board", include_in_schema=False)
def board_page(game_id: str) -> FileResponse:
    return FileResponse(STATIC / "board.html")
