"""Games: create one, read it, send it events (judged by the referee), undo, rounds, leftover hands
scored from photos and corrected, the scoresheet. Every write needs the game's token and is
committed before it is answered."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Request, Response, UploadFile, status
from fastapi.concurrency import run_in_threadpool

from api import games
from api.deps import DbSession, ReadersDep, Token
from api.routes.photos import photo_name
from api.schemas import EventIn, GameIn, HandIn, RoundIn

router = APIRouter(prefix="/games", tags=["games"])


@router.post("", status_code=status.HTTP_201_CREATED, summary="Start a game; answers its code and write token")
def create(body: GameIn, session: DbSession) -> dict[str, Any]:
    created = games.create_game(session, body.model_dump(exclude_none=True))
    return {"game": created.game, "token": created.token}


@router.get("/{game_id}", summary="A game: rules, names, each round's events and state, the scoresheet")
def read(game_id: str, session: DbSession) -> dict[str, Any]:
    return games.game_json(session, games.load(session, game_id))


@router.post("/{game_id}/events", summary="Judge an event (RULES.md 7); stored if legal, refused (409) if not")
def add_event(game_id: str, body: EventIn, session: DbSession, token: Token) -> dict[str, Any]:
    game = games.load(session, game_id, for_update=True)
    games.check_token(game, token)
    return games.add_event(session, game, body.model_dump(exclude_none=True))


@router.post("/{game_id}/undo", summary="Take back the current round's last event")
def undo(game_id: str, session: DbSession, token: Token) -> dict[str, Any]:
    game = games.load(session, game_id, for_update=True)
    games.check_token(game, token)
    return games.undo(session, game)


@router.post("/{game_id}/rounds", status_code=status.HTTP_201_CREATED, summary="Deal the next round")
def new_round(game_id: str, body: RoundIn, session: DbSession, token: Token) -> dict[str, Any]:
    game = games.load(session, game_id, for_update=True)
    games.check_token(game, token)
    return games.new_round(session, game, body.model_dump(exclude_none=True))


@router.post("/{game_id}/rounds/{number}/hands/{seat}", summary="Score a seat's leftover hand from a photo")
async def score_hand(
    game_id: str, number: int, seat: int, photo: Annotated[UploadFile, File()],
    readers: ReadersDep, session: DbSession, token: Token,
) -> dict[str, Any]:  # fmt: skip
    game = games.load(session, game_id)
    games.check_token(game, token)
    data = await photo.read()
    reading = await run_in_threadpool(readers.score, data, photo_name(photo), game.rules["set"])
    game = games.load(session, game_id, for_update=True)
    return games.score_hand(session, game, number, seat, reading)


@router.put("/{game_id}/rounds/{number}/hands/{seat}", summary="Correct a leftover hand (kept in the audit trail)")
def correct_hand(
    game_id: str, number: int, seat: int, body: HandIn, session: DbSession, token: Token
) -> dict[str, Any]:
    game = games.load(session, game_id, for_update=True)
    games.check_token(game, token)
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
    csv = games.scoresheet(session, game).to_csv()
    headers = {"Content-Disposition": f'attachment; filename="hubcam-{game.id}.csv"'}
    return Response(csv, media_type="text/csv", headers=headers)


@router.get("/{game_id}/qr.svg", summary="A QR code of the game's scoreboard address, for phones")
def board_qr(game_id: str, request: Request, session: DbSession) -> Response:
    import io

    import segno

    game = games.load(session, game_id)
    base = request.app.state.settings.public_url or str(request.base_url)
    svg = io.BytesIO()
    segno.make(f"{base.rstrip('/')}/games/{game.id}/board").save(svg, kind="svg", scale=4)
    return Response(svg.getvalue(), media_type="image/svg+xml")
