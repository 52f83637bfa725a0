"""The live watcher (issue 66 part 6): ``/games/{id}/watch``, a WebSocket the referee page streams its
camera's frames into and gets the watcher's events back from (docs/service.md, "The live watcher").

The page first sends ``{"token": "...", "seats": {...} or null}`` (the token in a message, not the
address, so it never reaches an access log), then frames as binary JPEG (or PNG) messages. Each game
watched has a ``Watcher`` of its own, built from the game's rules and its round's starter, fed in a
worker thread so the event loop keeps serving; the models behind it are shared (``Readers``). The
service answers every frame with ``{"type": "frame"}`` once it is done with it (so the page keeps one
frame in flight and never builds a queue), after its ``{"type": "event"}`` messages and, when the table
was read again, a ``{"type": "seen"}`` with the reading (``/analyze``'s JSON) for the live overlay.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect, status
from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session

from api import games
from api.readers import Readers
from vision.photo import PhotoError, decode_photo
from vision.table_analysis import Seats
from vision.watch.watcher import Watcher

router = APIRouter(tags=["watch"])

MAX_FRAME_BYTES = 4_000_000
"""A camera frame of at most 1280 pixels across is well under 1 MB as a JPEG."""
MAX_FRAME_WIDTH = 1920
"""Wider frames cost more than the live watcher can afford: the page sends 1280 pixels across at most."""
HELLO_SECONDS = 10.0
"""How long the service waits for the first message (the token) before closing."""


@dataclass(frozen=True)
class WatchedGame:
    """What the watcher of a game is built from: the game's code, rules and its current round."""

    code: str
    round: int
    players: int
    highest: int
    starter: int


class Refused(Exception):
    """The socket is closed with ``reason`` (a sentence for the page) and ``code``."""

    def __init__(self, reason: str, code: int = status.WS_1008_POLICY_VIOLATION) -> None:
        super().__init__(reason)
        self.reason = reason[:120]  # a WebSocket close reason holds 123 bytes at most
        self.code = code


@router.websocket("/games/{game_id}/watch")
async def watch(websocket: WebSocket, game_id: str) -> None:
    await websocket.accept()  # accepted first: a refusal's reason reaches the page only on an open socket
    watched: set[str] = websocket.app.state.watched_games
    code: str | None = None
    try:
        hello = await _hello(websocket)
        game = await run_in_threadpool(_game, websocket, game_id, hello.get("token"))
        if game.code in watched:
            raise Refused(f"game {game.code} is being watched from another page: stop it there first",
                          status.WS_1013_TRY_AGAIN_LATER)  # fmt: skip
        code = game.code
        watched.add(code)
        readers: Readers = websocket.app.state.readers
        seats = _seats(hello.get("seats")) or readers.seats
        watcher = Watcher(readers.watch_reader(game.highest), players=game.players, highest=game.highest,
                          seats=seats, starter=game.starter)  # fmt: skip
        ready = {"game": game.code, "round": game.round, "players": game.players, "set": game.highest,
                 "starter": game.starter, "seats": seats is not None}  # fmt: skip
        await websocket.send_json({"type": "ready", **ready})
        await _stream(websocket, watcher)
    except Refused as refused:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # unless the page has gone already
            await websocket.close(refused.code, refused.reason)
    except WebSocketDisconnect:
        pass  # the page went away: its watcher goes with it
    finally:
        if code is not None:
            watched.discard(code)


async def _stream(websocket: WebSocket, watcher: Watcher) -> None:
    """Frames in, events out, until the page closes the socket."""
    start = time.monotonic()
    index, advised = 0, False
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("bytes")
        if data is None:
            await websocket.send_json({"type": "error", "message": "expected a camera frame (a binary JPEG message)"})
            continue
        received = time.monotonic()
        try:
            events, seen = await run_in_threadpool(_feed, watcher, data, index, received - start)
        except PhotoError as error:
            await websocket.send_json({"type": "error", "frame": index, "message": f"frame {index}: {error}"})
        else:
            for event in events:
                await websocket.send_json({"type": "event", "event": event})
            if watcher.advice is not None and not advised:  # tiles too small to read surely: once
                await websocket.send_json({"type": "advice", "message": watcher.advice})
                advised = True
            if seen is not None:
                await websocket.send_json({"type": "seen", "frame": index, "analysis": seen})
            ms = round((time.monotonic() - received) * 1000, 1)
            await websocket.send_json({"type": "frame", "frame": index, "ms": ms})
        index += 1


def _feed(watcher: Watcher, data: bytes, index: int, t_s: float) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """One frame through the watcher: its events, and the table's reading if it was read again."""
    if len(data) > MAX_FRAME_BYTES:
        raise PhotoError(f"a frame of {len(data)} bytes is too large (at most {MAX_FRAME_BYTES})")
    image = decode_photo(data, "the frame")
    if image.shape[1] > MAX_FRAME_WIDTH:
        raise PhotoError(f"{image.shape[1]} pixels across is too wide (at most {MAX_FRAME_WIDTH}: send it smaller)")
    before = watcher.analysis
    events = watcher.feed(image, index, t_s)
    after = watcher.analysis
    return events, (after.to_json() if after is not None and after is not before else None)


async def _hello(websocket: WebSocket) -> dict[str, Any]:
    """The first message: ``{"token": ..., "seats": ...}``."""
    import anyio

    with anyio.move_on_after(HELLO_SECONDS):
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", status.WS_1000_NORMAL_CLOSURE))
        try:
            hello = json.loads(message.get("text") or "")
        except json.JSONDecodeError:
            hello = None
        if not isinstance(hello, dict):
            raise Refused('the first message must be {"token": "...", "seats": null}: the game\'s token')
        return hello
    raise Refused(f"no token sent within {HELLO_SECONDS:.0f} s: send the game's token first")


def _game(websocket: WebSocket, game_id: str, token: Any) -> WatchedGame:
    """The game, if ``token`` may change it (watching proposes plays for its log)."""
    with Session(websocket.app.state.engine) as session:
        try:
            game = games.load(session, game_id)
            if not isinstance(token, str) or not token:
                raise Refused('send the game\'s token first: {"token": "..."} (shown when the game was started)')
            games.check_token(game, token)
        except games.GameError as error:
            raise Refused(str(error)) from None
        round_ = game.rounds[-1]
        return WatchedGame(game.id, round_.number, game.rules["players"], game.rules["set"],
                           round_.deal.get("starter", 0))  # fmt: skip


def _seats(data: Any) -> Seats | None:
    """The page's seat map, if it sent one (the service cannot know which slot is whose)."""
    if data is None:
        return None
    try:
        return Seats.from_json(data)
    except ValueError as error:
        raise Refused(f"seats: {error}"[:120], status.WS_1003_UNSUPPORTED_DATA) from None
