"""Storage on SQLite and on a real PostgreSQL server: games survive a restart of the service, the
schema migrates once, two writers racing for one place store one event, and a killed server loses
no acknowledged event."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api import games
from api.app import create_app
from api.db import open_database
from api.settings import Settings
from api.tables import Event
from engine.game import play_rounds
from engine.rules import Rules
from tests.postgres import free_port
from tests.server import start_server

RULES = {"players": 3, "set": 9}


def a_played_round(seed: int = 3) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A round the automatic players played: its deal (hands known) and its legal events."""
    played = next(play_rounds(Rules.from_dict(RULES), seed=seed))
    start = played.start
    assert start.hands is not None and start.boneyard is not None
    deal = {
        "engine": start.engine,
        "starter": start.turn,
        "hands": [[str(tile) for tile in hand] for hand in start.hands],
        "boneyard": [str(tile) for tile in start.boneyard],
    }
    return deal, [move.to_event() for move in played.moves]


def test_a_game_outlives_the_service(db_url: str) -> None:
    deal, events = a_played_round()
    with TestClient(create_app(Settings(db_url=db_url))) as client:
        created = client.post("/games", json={"rules": RULES, **deal}).json()
        code, headers = created["game"]["id"], {"Authorization": f"Bearer {created['token']}"}
        for event in events[:12]:
            assert client.post(f"/games/{code}/events", json=event, headers=headers).status_code == 200
        client.post(f"/games/{code}/undo", headers=headers)
        before = client.get(f"/games/{code}").json()
    with TestClient(create_app(Settings(db_url=db_url))) as client:  # migrations find nothing to do
        after = client.get(f"/games/{code}").json()
        assert after == before and len(after["rounds"][0]["events"]) == 11
        assert client.post(f"/games/{code}/events", json=events[11], headers=headers).status_code == 200


def test_a_whole_round_ends_with_its_scores(db_url: str) -> None:
    deal, events = a_played_round(seed=5)
    with TestClient(create_app(Settings(db_url=db_url))) as client:
        created = client.post("/games", json={"rules": RULES, **deal}).json()
        code, headers = created["game"]["id"], {"Authorization": f"Bearer {created['token']}"}
        for event in events:
            answer = client.post(f"/games/{code}/events", json=event, headers=headers)
            assert answer.status_code == 200, answer.text
        assert answer.json()["state"]["round_over"]
        sheet = client.get(f"/games/{code}/scoresheet.json").json()
        assert sheet["totals"] == answer.json()["state"]["scores"]
        late = client.post(f"/games/{code}/events", json={"player": 0, "action": "pass"}, headers=headers)
        assert late.status_code == 409 and late.json()["verdict"]["reason"] == "round_over"


def test_two_writers_racing_for_one_place_store_one_event(db_url: str) -> None:
    engine = open_database(db_url)
    with Session(engine, expire_on_commit=False) as session:
        code = games.create_game(session, {"rules": RULES}).game["id"]
        round_id = games.load(session, code).rounds[0].id
    # two workers that judged the same state both store their event as its next one: the second fails
    # as a conflict (the client reloads), and only one event is kept
    for tile in ("9-1", "9-2"):
        with Session(engine) as session:
            session.add(
                Event(round_id=round_id, seq=0, event={"player": 0, "action": "play", "tile": tile, "train": 0})
            )
            if tile == "9-1":
                games._commit(session)
            else:
                with pytest.raises(games.Conflict):
                    games._commit(session)
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(Event)) == 1
    engine.dispose()


def test_killing_the_server_loses_no_acknowledged_event(db_url: str, tmp_path: Path) -> None:
    deal, events = a_played_round(seed=11)
    port, log = free_port(), tmp_path / "server.log"
    server = start_server(db_url, port, log)
    base = f"http://127.0.0.1:{port}"
    try:
        created = httpx2.post(f"{base}/games", json={"rules": RULES, **deal}).json()
        code, headers = created["game"]["id"], {"Authorization": f"Bearer {created['token']}"}
        stored: list[dict[str, Any]] = []
        for pause_s in (0.0, 0.013, 0.031):  # three kills, each at another moment of a request
            acknowledged = stream_until_killed(
                server, f"{base}/games/{code}/events", headers, events, len(stored), pause_s
            )
            server = start_server(db_url, port, log)
            stored = httpx2.get(f"{base}/games/{code}").json()["rounds"][0]["events"]
            assert len(stored) >= acknowledged  # the one in flight may or may not have been stored
            assert stored == events[: len(stored)]
        assert len(stored) < len(events), "the round ended before the last kill: choose a longer one"
    finally:
        server.kill()
        server.wait()
    assert created["token"] not in log.read_text()


def stream_until_killed(
    server: subprocess.Popen[bytes], url: str, headers: dict[str, str], events: list[Any], first: int, pause_s: float
) -> int:
    """Send ``events`` from ``first`` on, one by one, and SIGKILL the server a little after five more have
    been acknowledged; how many events (from the round's start) were acknowledged."""
    acknowledged = first

    def stream() -> None:
        nonlocal acknowledged
        with httpx2.Client(headers=headers, timeout=5) as client:
            for index in range(first, len(events)):
                try:
                    answer = client.post(url, json=events[index])
                except httpx2.TransportError:
                    return
                assert answer.status_code == 200, answer.text
                acknowledged = index + 1

    sender = threading.Thread(target=stream)
    sender.start()
    while acknowledged < first + 5 and sender.is_alive():
        time.sleep(0.002)
    time.sleep(pause_s)
    server.send_signal(signal.SIGKILL)
    server.wait()
    sender.join()
    return acknowledged
