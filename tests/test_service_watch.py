"""The live watcher's WebSocket (``/games/{id}/watch``, TestClient): the token first, a frame of the table
answered with what was seen, a rendered round's frames with its plays as events, each within a second of
the frame that shows it; one watcher per game."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from api.app import create_app
from api.settings import Settings
from models import COUNTER, DETECTOR, TABLE_COUNTER, TABLE_DETECTOR
from tests.watch_video import RenderedRound, rendered_round

pytestmark = pytest.mark.skipif(
    not all(p.exists() for p in (DETECTOR, COUNTER, TABLE_DETECTOR, TABLE_COUNTER)), reason="no bundled models"
)
LATENCY_S = 1.0
"""Events reach the page within a second of the frame that makes them known (issue 66)."""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("watch")
    with TestClient(create_app(Settings(db_url=f"sqlite:///{folder / 'hubcam.sqlite3'}"))) as client:
        yield client


@pytest.fixture(scope="module")
def video() -> RenderedRound:
    return rendered_round()


def new_game(client: TestClient, video: RenderedRound) -> tuple[str, str]:
    answer = client.post("/games", json=video.game())
    assert answer.status_code == 201, answer.text
    return answer.json()["game"]["id"], answer.json()["token"]


def until_done(socket: Any) -> list[tuple[float, dict[str, Any]]]:
    """The messages answering one frame, each with when it came, up to its ``frame`` message."""
    messages = []
    while True:
        message = socket.receive_json()
        messages.append((time.perf_counter(), message))
        if message["type"] in ("frame", "error"):
            return messages


@pytest.mark.parametrize(
    ("hello", "reason"),
    [({"token": "not-the-token"}, "wrong token"), ({}, "token first"), ("hello", "first message must be")],
)
def test_a_wrong_token_closes_the_socket_saying_why(client: TestClient, video: RenderedRound, hello: Any,
                                                     reason: str) -> None:  # fmt: skip
    code, _ = new_game(client, video)
    with client.websocket_connect(f"/games/{code}/watch") as socket:
        socket.send_json(hello) if isinstance(hello, dict) else socket.send_text(hello)
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == 1008 and reason in closed.value.reason, closed.value.reason


def test_no_such_game_closes_the_socket_saying_so(client: TestClient) -> None:
    with client.websocket_connect("/games/NOSUCH/watch") as socket:
        socket.send_json({"token": "whatever"})
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert "no game 'NOSUCH'" in closed.value.reason


def test_frames_of_the_table_are_answered_with_what_was_seen(client: TestClient, video: RenderedRound) -> None:
    code, token = new_game(client, video)
    with client.websocket_connect(f"/games/{code}/watch") as socket:
        socket.send_json({"token": token, "seats": video.seats})
        ready = socket.receive_json()
        assert ready == {"type": "ready", "game": code, "round": 0, "players": 2, "set": 12,
                         "starter": video.manifest["starter"], "seats": True}  # fmt: skip
        socket.send_text("not a frame")
        assert "expected a camera frame" in socket.receive_json()["message"]
        socket.send_bytes(b"\xff\xd8 not a jpeg")
        assert socket.receive_json()["type"] == "error"
        seen = []
        for frame in [video.frames[0]] * 6:  # the empty table, still
            socket.send_bytes(frame)
            seen += [message for _, message in until_done(socket) if message["type"] == "seen"]
    assert seen, "a still table was never read"
    analysis = seen[0]["analysis"]
    assert analysis["hub"] is not None and analysis["engine"] == [video.manifest["engine"]] * 2
    assert analysis["trains"] == [] and analysis["flags"] == []  # no tile laid yet


def test_a_rendered_round_gives_its_plays_each_within_a_second(video: RenderedRound, client: TestClient) -> None:
    code, token = new_game(client, video)
    events, delays = [], []
    with client.websocket_connect(f"/games/{code}/watch") as socket:
        socket.send_json({"token": token, "seats": video.seats})
        assert socket.receive_json()["type"] == "ready"
        for frame in video.frames:
            socket.send_bytes(frame)
            sent = time.perf_counter()
            for at, message in until_done(socket):
                if message["type"] == "event":
                    events.append(message["event"])
                    delays.append(at - sent)
    plays = [(e["event"], e["player"], e["tile"], e["train"], e["legal"]) for e in events]
    assert plays == [("play", p["player"], p["tile"], p["train"], p["legal"]) for p in video.plays]
    print(f"events came {', '.join(f'{delay:.2f}' for delay in delays)} s after the frame that showed them")
    assert max(delays) < LATENCY_S, delays


def test_each_game_has_its_own_watcher_and_one_only(client: TestClient, video: RenderedRound) -> None:
    (first, first_token), (second, second_token) = new_game(client, video), new_game(client, video)
    with (
        client.websocket_connect(f"/games/{first}/watch") as one,
        client.websocket_connect(f"/games/{second}/watch") as other,
    ):
        one.send_json({"token": first_token})
        other.send_json({"token": second_token, "seats": None})
        assert one.receive_json()["game"] == first and other.receive_json()["game"] == second
        with client.websocket_connect(f"/games/{first}/watch") as again:
            again.send_json({"token": first_token})
            with pytest.raises(WebSocketDisconnect) as closed:
                again.receive_json()
        assert closed.value.code == 1013 and "another page" in closed.value.reason
        one.send_bytes(video.frames[0])
        assert until_done(one)[-1][1] == {"type": "frame", "frame": 0, "ms": pytest.approx(0, abs=5000)}
    assert watch_again(client, first, first_token)["type"] == "ready"  # its page gone, it may be watched again


def watch_again(client: TestClient, code: str, token: str) -> dict[str, Any]:
    """The first answer to a new socket for ``code``, once the service has seen the last one close (it
    learns so a moment after the page)."""
    deadline = time.monotonic() + 10
    while True:
        with client.websocket_connect(f"/games/{code}/watch") as socket:
            socket.send_json({"token": token})
            try:
                answer: dict[str, Any] = socket.receive_json()
                return answer
            except WebSocketDisconnect as closed:
                if closed.code != 1013 or time.monotonic() > deadline:
                    raise
        time.sleep(0.05)
