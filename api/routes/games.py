"""Games: create one, read it, send it events (judged by the referee), undo, rounds, leftover hands
scored from photos and corrected, the scoresheet. Every write needs the game's token, checked before
its body is read (``TokenFirst``), and is committed before it is answered."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, File, Request, Response, UploadFile, status
from fastapi.concurrency import run_in_threadpool

from api import games
from api.deps import DbSession, ReadersDep, Token, TokenFirst, bearer
from api.routes.photos import photo_name
from api.schemas import EventIn, GameIn, HandIn, RoundIn

router = APIRouter(prefix="/games", tags=["games"])
writes = APIRouter(prefix="/games", tags=["games"], route_class=TokenFirst, dependencies=[Depends(bearer)])
"""The routes that change a game: each needs its token (``Authorization: Bearer TOKEN``)."""


@router.post("", status_code=status.HTTP_201_CREATED, summary="Start a game; answers its code and write token")
def create(body: GameIn, session: DbSession) -> dict[str, Any]:
    created = games.create_game(session, body.model_dump(exclude_none=True))
    return {"game": created.game, "token": created.token}


@router.get("/{game_id}", summary="A game: rules, names, each round's events and state, the scoresheet")
def read(game_id: str, session: DbSession) -> dict[str, Any]:
    return games.game_json(session, games.load(session, game_id))


@router.get("/{game_id}/access", summary="Whether the token sent (Authorization: Bearer TOKEN) may change the game")
def access(game_id: str, session: DbSession, token: Token) -> dict[str, Any]:
    game = games.load(session, game_id)
    return {"game": game.id, "can_write": games.can_write(game, token)}


@writes.post("/{game_id}/events", summary="Judge an event (RULES.md 7); stored if legal, refused (409) if not")
def add_event(game_id: str, body: EventIn, session: DbSession) -> dict[str, Any]:
    game = games.load(session, game_id, for_update=True)
    return games.add_event(session, game, body.model_dump(exclude_none=True))


@writes.post("/{game_id}/undo", summary="Take back the current round's last event")
def undo(game_id: str, session: DbSession) -> dict[str, Any]:
    return games.undo(session, games.load(session, game_id, for_update=True))


@writes.post("/{game_id}/rounds", status_code=status.HTTP_201_CREATED, summary="Deal the next round")
def new_round(game_id: str, session: DbSession, body: Annotated[RoundIn | None, Body()] = None) -> dict[str, Any]:
    game = games.load(session, game_id, for_update=True)
    return games.new_round(session, game, (body or RoundIn()).model_dump(exclude_none=True))  # no body: {}


@writes.post("/{game_id}/rounds/{number}/hands/{seat}", summary="Score a seat's leftover hand from a photo")
async def score_hand(
    game_id: str, number: int, seat: int, photo: Annotated[UploadFile, File()], readers: ReadersDep, session: DbSession
) -> dict[str, Any]:
    game = games.load(session, game_id)
    data = await photo.read()
    reading = await run_in_threadpool(readers.score, data, photo_name(photo), game.rules["set"])
    game = games.load(session, game_id, for_update=True)
    return games.score_hand(session, game, number, seat, reading)


@writes.put("/{game_id}/rounds/{number}/hands/{seat}", summary="Correct a leftover hand (kept in the audit trail)")
def correct_hand(game_id: str, number: int, seat: int, body: HandIn, session: DbSession) -> dict[str, Any]:
    game = games.load(session, game_id, for_update=True)
    return games.correct_hand(session, game, number, seat, body.tiles)


@router.get("/{game_id}/audit", summary="Every correction and undo, oldest first")
def audit(game_id: str, session: DbSession) -> list[dict[str, Any]]:
    return games.audit_json(session, games.load(session, game_id))


@router.get("/{game_id}/scoresheet.json", summary="The scoresheet: each scored round, totals, places, winners")
def scoresheet_json(game_id: str, session: DbSession) -> dict[str, Any]:
    game = games.load(session, game_id)
    return games.scoresheet(session, game).to_json() | {"names": game.names}


@router.get("/{game_id}/scoresheet.csv", summary="The scoresheet as CSV: a row per round, a column per seat")
def scoresheet_csv(game_id: str, session: DbSession) -> Response:
    game = games.load(session, game_id)
    csv = games.scoresheet(session, game).to_csv(game.names)
    headers = {"Content-Disposition": f'attachment; filename="hubcam-{game.id}.csv"'}
    return Response(csv, media_type="text/csv", headers=headers)


@router.get("/{game_id}/qr.svg", summary="A QR code of the game's scoreboard address, for phones")
def board_qr(game_id: str, request: Request, session: DbSession) -> Response:
    import io

    import segno

    svg = io.BytesIO()
    segno.make(board_url(request, games.load(session, game_id).id)).save(svg, kind="svg", scale=4)
    return Response(svg.getvalue(), media_type="image/svg+xml")


@router.get("/{game_id}/board-url", summary="The QR code's address, and whether only this computer can open it")
def board_address(game_id: str, request: Request, session: DbSession) -> dict[str, Any]:
    url = board_url(request, games.load(session, game_id).id)
    return {"url": url, "loopback": is_loopback(url)}


def board_url(request: Request, code: str) -> str:
    """The scoreboard's address: under ``--public-url`` when one was given, else the address the page was opened at."""
    base = request.app.state.settings.public_url or str(request.base_url)
    return f"{base.rstrip('/')}/games/{code}/board"


def is_loopback(url: str) -> bool:
    """Whether ``url`` names this computer only (localhost, 127.x.x.x, ::1): no phone can open it."""
    import ipaddress
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
