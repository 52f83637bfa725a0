"""The referee service's routes and errors (TestClient, SQLite; storage on PostgreSQL too in
test_storage.py). Every bad request gets a 4xx with a message, and no stored game changes."""

from __future__ import annotations

import functools
import json
import logging
import os
import socket
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from datasets.synth.scene import make_scene, render
from models import COUNTER, DETECTOR, TABLE_COUNTER, TABLE_DETECTOR
from tests.postgres import free_port

RULES = {"players": 2, "set": 6, "hand_size": 7}
have_models = pytest.mark.skipif(
    not all(path.exists() for path in (DETECTOR, COUNTER, TABLE_DETECTOR, TABLE_COUNTER)), reason="no bundled models"
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("service")
    app = create_app(Settings(db_url=f"sqlite:///{folder / 'hubcam.sqlite3'}", max_upload_bytes=3_000_000))
    with TestClient(app) as client:
        yield client


@pytest.fixture
def game(client: TestClient) -> tuple[str, dict[str, str]]:
    """A new 2-player double-6 game in unknown-hands mode: its code and write headers."""
    answer = client.post("/games", json={"rules": RULES, "names": ["Ann", "Bo"]})
    assert answer.status_code == 201, answer.text
    return answer.json()["game"]["id"], {"Authorization": f"Bearer {answer.json()['token']}"}


def jpeg(image: Any) -> bytes:
    return cv2.imencode(".jpg", image)[1].tobytes()


def play(tile: str, train: int | str, player: int) -> dict[str, Any]:
    return {"player": player, "action": "play", "tile": tile, "train": train}


def test_the_rule_variants_are_listed_for_the_page(client: TestClient) -> None:
    variants = client.get("/rules").json()["variants"]
    assert variants["double_follow_up"]["values"] == ["cover", "anywhere"]
    assert "0-0" in variants["double_blank_points"]["help"]


def test_health_and_the_openapi_page(client: TestClient) -> None:
    assert client.get("/health").json() == {"status": "ok", "database": "sqlite"}
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/score", "/analyze", "/games", "/games/{game_id}/events", "/games/{game_id}/undo"} <= set(paths)
    assert "hubcam" in client.get("/docs").text


def test_a_new_game_has_a_short_code_a_token_and_its_first_round(client: TestClient) -> None:
    answer = client.post("/games", json={"rules": RULES, "names": ["Ann", "Bo"], "starter": 1})
    body = answer.json()
    assert answer.status_code == 201
    assert len(body["game"]["id"]) == 6 and len(body["token"]) >= 24
    (round_,) = body["game"]["rounds"]
    assert round_["state"]["turn"] == 1 and round_["state"]["engine"] == [6, 6]
    assert client.get(f"/games/{body['game']['id'].lower()}").json()["names"] == ["Ann", "Bo"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"rules": {"players": 2, "set": 6, "hand_size": 7, "doubel_follow_up": "cover"}}, "did you mean"),
        ({"rules": {"set": 12}}, "players"),
        ({"rules": RULES, "names": ["Ann"]}, "names: expected a list of 2"),
        ({"rules": RULES, "engine": 9}, "engine"),
        ({"rules": RULES, "hands": [["6-6"], ["6-5"]]}, "hands"),
        ({"rules": RULES, "colour": "red"}, "colour"),
    ],
)
def test_a_bad_game_is_refused_naming_what_is_wrong(client: TestClient, body: dict[str, Any], says: str) -> None:
    answer = client.post("/games", json=body)
    assert answer.status_code == 422
    assert says in answer.json()["detail"]


def test_a_legal_event_is_stored_and_an_illegal_one_refused_with_its_reason(client: TestClient, game: Any) -> None:
    code, token = game
    first = client.post(f"/games/{code}/events", json=play("6-1", "mexican", 0), headers=token)
    assert first.status_code == 200
    assert first.json()["verdict"] == {"event": 0, "legal": True, "reason": None, "message": ""}
    before = client.get(f"/games/{code}").json()
    refused = client.post(f"/games/{code}/events", json=play("5-2", 1, 1), headers=token)
    assert refused.status_code == 409
    assert refused.json()["verdict"]["reason"] == "no_match"
    assert "does not match open end 6" in refused.json()["detail"]
    assert client.get(f"/games/{code}").json() == before


def test_undo_takes_back_the_last_event_and_keeps_it_in_the_audit_trail(client: TestClient, game: Any) -> None:
    code, token = game
    client.post(f"/games/{code}/events", json=play("6-1", "mexican", 0), headers=token)
    undone = client.post(f"/games/{code}/undo", headers=token)
    assert undone.status_code == 200 and undone.json()["events"] == []
    assert client.post(f"/games/{code}/undo", headers=token).status_code == 409
    (entry,) = client.get(f"/games/{code}/audit").json()
    assert entry["action"] == "undo" and entry["event"]["tile"] == "6-1"
    again = client.post(f"/games/{code}/events", json=play("6-1", "mexican", 0), headers=token)
    assert again.status_code == 200 and again.json()["event"] == 0


def test_every_write_needs_the_games_token(client: TestClient, game: Any) -> None:
    code, _ = game
    before = client.get(f"/games/{code}").json()
    writes = [
        ("post", f"/games/{code}/events", {"json": play("6-1", "mexican", 0)}),
        ("post", f"/games/{code}/undo", {}),
        ("post", f"/games/{code}/rounds", {"json": {}}),
        ("put", f"/games/{code}/rounds/0/hands/0", {"json": {"tiles": []}}),
        ("post", f"/games/{code}/rounds/0/hands/0", {"files": {"photo": ("h.jpg", b"", "image/jpeg")}}),
    ]
    for method, path, body in writes:
        assert client.request(method, path, **body).status_code == 401, path
        wrong = client.request(method, path, headers={"Authorization": "Bearer nope"}, **body)
        assert wrong.status_code == 403 and "wrong token" in wrong.json()["detail"], path
    assert client.get(f"/games/{code}").json() == before


@pytest.mark.parametrize(
    "body",
    [
        {"content": b"{not json", "headers": {"content-type": "application/json"}},
        {"json": {"colour": "red"}},
        {"json": []},
        {"content": b"player=0", "headers": {"content-type": "application/x-www-form-urlencoded"}},
        {"files": {"picture": ("h.jpg", b"x", "image/jpeg")}},
    ],
)
def test_the_token_is_checked_before_the_body(client: TestClient, game: Any, body: dict[str, Any]) -> None:
    """Without the token, or with a wrong one, a bad body is answered 401/403, never 422 or 400."""
    code, _ = game
    paths = [
        ("post", f"/games/{code}/events"),
        ("post", f"/games/{code}/rounds"),
        ("put", f"/games/{code}/rounds/0/hands/0"),
        ("post", f"/games/{code}/rounds/0/hands/0"),
    ]
    for method, path in paths:
        headers = body.get("headers", {})
        assert client.request(method, path, **body).status_code == 401, path
        wrong = client.request(method, path, **(body | {"headers": headers | {"Authorization": "Bearer nope"}}))
        assert wrong.status_code == 403, (path, wrong.text)
    assert client.post("/games/NOSUCH/rounds", json=[]).status_code == 404


def test_access_says_whether_a_token_may_change_the_game(client: TestClient, game: Any) -> None:
    code, token = game
    assert client.get(f"/games/{code.lower()}/access", headers=token).json() == {"game": code, "can_write": True}
    assert client.get(f"/games/{code}/access", headers={"Authorization": "Bearer nope"}).json()["can_write"] is False
    assert client.get(f"/games/{code}/access").json()["can_write"] is False
    assert client.get(f"/games/{code}/access", headers={"Authorization": "Basic abc"}).json()["can_write"] is False
    assert client.get("/games/NOSUCH/access", headers=token).status_code == 404


def test_the_token_never_reaches_the_logs(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        answer = client.post("/games", json={"rules": RULES})
        token = answer.json()["token"]
        client.post(f"/games/{answer.json()['game']['id']}/undo", headers={"Authorization": f"Bearer {token}"})
    assert token not in caplog.text


@pytest.mark.parametrize(
    ("content", "headers", "status", "says"),
    [
        (b"{not json", {"content-type": "application/json"}, 400, "malformed JSON"),
        (b"", {"content-type": "application/json"}, 422, ""),
        (b"player=0", {"content-type": "application/x-www-form-urlencoded"}, 422, ""),
        (json.dumps({"player": 0, "action": "jump"}).encode(), {"content-type": "application/json"}, 422, "action"),
        (json.dumps({"player": 0, "action": "play", "tile": "6-1"}).encode(), {"content-type": "application/json"},
         422, "needs both"),
        (json.dumps({"player": 0, "action": "play", "tile": "6-1", "train": 0, "x": 1}).encode(),
         {"content-type": "application/json"}, 422, "x"),
    ],
)  # fmt: skip
def test_a_malformed_event_gets_a_4xx_and_changes_nothing(
    client: TestClient, game: Any, content: bytes, headers: dict[str, str], status: int, says: str
) -> None:
    code, token = game
    before = client.get(f"/games/{code}").json()
    answer = client.post(f"/games/{code}/events", content=content, headers=token | headers)
    assert answer.status_code == status and says in answer.json()["detail"]
    assert client.get(f"/games/{code}").json() == before


def test_unknown_games_rounds_and_seats_are_404(client: TestClient, game: Any) -> None:
    code, token = game
    assert client.get("/games/NOSUCH").status_code == 404
    assert "no game" in client.post("/games/NOSUCH/events", json=play("6-1", 0, 0)).json()["detail"]
    assert client.put(f"/games/{code}/rounds/3/hands/0", json={"tiles": []}, headers=token).status_code == 404
    assert client.put(f"/games/{code}/rounds/0/hands/2", json={"tiles": []}, headers=token).status_code == 404
    assert client.get("/games/NOSUCH/scoresheet.csv").status_code == 404


def test_corrected_hands_fill_the_scoresheet_and_the_audit_trail(client: TestClient, game: Any) -> None:
    code, token = game
    assert client.get(f"/games/{code}/scoresheet.json").json()["rounds"] == []
    bad = client.put(f"/games/{code}/rounds/0/hands/0", json={"tiles": ["6-6", "6-6"]}, headers=token)
    assert bad.status_code == 422 and "twice" in bad.json()["detail"]
    assert client.put(f"/games/{code}/rounds/0/hands/0", json={"tiles": ["7-1"]}, headers=token).status_code == 422
    hand = client.put(f"/games/{code}/rounds/0/hands/0", json={"tiles": ["6-5", "2-0"]}, headers=token).json()
    assert hand["total"] == 13 and hand["reviewed"]
    client.put(f"/games/{code}/rounds/0/hands/1", json={"tiles": []}, headers=token)
    sheet = client.get(f"/games/{code}/scoresheet.json").json()
    assert sheet["totals"] == [13, 0] and sheet["winners"] == [1] and sheet["rounds"][0]["ended"] == "out"
    csv = client.get(f"/games/{code}/scoresheet.csv")
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines()[:2] == ["round,engine,starter,ended,Ann,Bo", "0,6-6,0,out,13,0"]
    client.put(f"/games/{code}/rounds/0/hands/0", json={"tiles": ["6-5"]}, headers=token)
    trail = [entry for entry in client.get(f"/games/{code}/audit").json() if entry["seat"] == 0]
    assert trail[-1]["before"] == ["6-5", "2-0"] and trail[-1]["after"] == ["6-5"]


@pytest.mark.parametrize("body", [{"json": {}}, {}, {"content": b"", "headers": {"content-type": "application/json"}}])
def test_the_next_round_takes_the_next_engine_and_starter(client: TestClient, game: Any, body: Any) -> None:
    """With an empty JSON object, or no body at all (every field is optional)."""
    code, token = game
    answer = client.post(f"/games/{code}/rounds", **(body | {"headers": token | body.get("headers", {})}))
    assert answer.status_code == 201, answer.text
    assert answer.json()["deal"] == {"engine": 5, "starter": 1}
    assert client.post(f"/games/{code}/events", json=play("5-1", 1, 1), headers=token).status_code == 200
    assert len(client.get(f"/games/{code}").json()["rounds"][0]["events"]) == 0


def test_the_scoreboard_page_and_its_qr_code(client: TestClient, game: Any) -> None:
    code, _ = game
    assert "<html" in client.get(f"/games/{code}/board").text
    qr = client.get(f"/games/{code}/qr.svg")
    assert qr.headers["content-type"].startswith("image/svg+xml") and "<svg" in qr.text
    assert qr.text == qr_svg(f"http://testserver/games/{code}/board")
    assert client.get(f"/games/{code}/board-url").json() == {
        "url": f"http://testserver/games/{code}/board",
        "loopback": False,
    }
    assert "<html" in client.get("/").text
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml") and "<svg" in icon.text
    for page in ("/", f"/games/{code}/board"):
        assert '<link rel="icon" href="/static/favicon.svg"' in client.get(page).text


def qr_svg(url: str) -> str:
    import io

    import segno

    svg = io.BytesIO()
    segno.make(url).save(svg, kind="svg", scale=4)
    return svg.getvalue().decode()


def test_the_qr_code_leads_to_the_public_url_when_one_is_given(tmp_path: Path) -> None:
    public = Settings(db_url=f"sqlite:///{tmp_path / 'a.sqlite3'}", public_url="http://192.168.1.20:8000/")
    with TestClient(create_app(public), base_url="http://localhost:8000") as client:
        code = client.post("/games", json={"rules": RULES}).json()["game"]["id"]
        url = f"http://192.168.1.20:8000/games/{code}/board"
        assert client.get(f"/games/{code}/qr.svg").text == qr_svg(url)
        assert client.get(f"/games/{code}/board-url").json() == {"url": url, "loopback": False}
    local = Settings(db_url=f"sqlite:///{tmp_path / 'b.sqlite3'}")
    for base in ("http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"):
        with TestClient(create_app(local), base_url=base) as client:
            code = client.post("/games", json={"rules": RULES}).json()["game"]["id"]
            assert client.get(f"/games/{code}/board-url").json() == {
                "url": f"{base}/games/{code}/board",
                "loopback": True,
            }
            assert client.get(f"/games/{code}/qr.svg").text == qr_svg(f"{base}/games/{code}/board")


@functools.cache
def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares ``width`` x ``height`` grey pixels, its rows all zero (a decompression bomb:
    a small file that would decode to width*height bytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" * (width + 1)
    packer = zlib.compressobj(9)
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


@pytest.mark.parametrize("route", ["/score", "/analyze"])
def test_bad_photos_get_a_clear_4xx(client: TestClient, route: str, tmp_path: Path) -> None:
    image, _ = render(make_scene("hand", 5), (320, 240))
    whole = jpeg(image)
    bomb = png_header_only(20000, 20000)
    assert len(bomb) < 3_000_000
    cases = [
        ({"photo": ("empty.jpg", b"", "image/jpeg")}, 422, "empty"),
        ({"photo": ("cut.jpg", whole[: len(whole) // 2], "image/jpeg")}, 422, "truncated"),
        ({"photo": ("notes.txt", b"hello", "text/plain")}, 422, "not a JPEG or PNG"),
        ({"photo": ("bomb.png", bomb, "image/png")}, 422, "20000x20000"),
        ({"photo": ("huge.jpg", whole + b"\x00" * 3_000_000, "image/jpeg")}, 413, "too large"),
        ({"picture": ("hand.jpg", whole, "image/jpeg")}, 422, "multipart form field 'photo'"),
    ]
    for files, status, says in cases:
        answer = client.post(route, files=files)
        assert answer.status_code == status, (files.keys(), answer.text)
        assert says in answer.json()["detail"]
    answer = client.post(route, json={"photo": "hand.jpg"})
    assert answer.status_code == 422 and "photo" in answer.json()["detail"]
    assert client.get("/health").status_code == 200


@have_models
def test_score_and_a_hand_scored_into_the_round(client: TestClient, game: Any) -> None:
    code, token = game
    image, label = render(make_scene("hand", 424243))  # a double-6 set, as the game's
    photo = {"photo": ("../../etc/hand.jpg", jpeg(image), "image/jpeg")}
    reading = client.post("/score", files=photo).json()
    assert reading["image"] == "hand.jpg" and reading["tiles"] and reading["total"] > 0
    hand = client.post(f"/games/{code}/rounds/0/hands/1", files=photo, headers=token).json()
    counted = [tile for tile in hand["reading"]["tiles"] if tile["pips"] and "reason" not in tile]
    assert len(hand["tiles"]) == len(counted) > 0 and hand["total"] == hand["reading"]["total"]
    assert not hand["reviewed"]
    assert client.get(f"/games/{code}/audit").json()[-1]["action"] == "hand_scored"


def test_a_bad_hand_photo_changes_no_game(client: TestClient, game: Any) -> None:
    code, token = game
    before = client.get(f"/games/{code}").json()
    for photo in (b"", b"\xff\xd8\xff\xe0 cut short", png_header_only(20000, 20000)):
        answer = client.post(f"/games/{code}/rounds/0/hands/0", files={"photo": ("h.jpg", photo)}, headers=token)
        assert answer.status_code == 422
    assert client.get(f"/games/{code}").json() == before
    assert client.get(f"/games/{code}/audit").json() == []


@have_models
def test_analyze_reads_a_table(client: TestClient) -> None:
    image, _ = render(make_scene("table", 5), (1280, 960))
    seats = json.dumps({"slots": {"90": 0}, "mexican": 270})
    answer = client.post("/analyze", files={"photo": ("table.jpg", jpeg(image), "image/jpeg")}, data={"seats": seats})
    body = answer.json()
    assert answer.status_code == 200 and body["hub"] is not None and body["trains"]
    assert client.post("/analyze", files={"photo": ("t.jpg", jpeg(image), "image/jpeg")},
                       data={"seats": "{"}).status_code == 422  # fmt: skip


def test_the_upload_limit_answers_413_before_reading_everything(client: TestClient) -> None:
    answer = client.post("/score", content=b"x" * 4_000_000,
                         headers={"content-type": "multipart/form-data; boundary=x"})  # fmt: skip
    assert answer.status_code == 413 and "too large" in answer.json()["detail"]


# ---- starting the service: one line for each thing that stops it, the address only once it answers


def hubcam_serve(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "api.cli", "serve", *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            env=os.environ | {"PYTHONUNBUFFERED": "1"} | (env or {}))  # fmt: skip


def test_an_unreachable_database_is_one_line_naming_it(tmp_path: Path) -> None:
    nobody = free_port()  # nothing listens there
    url = f"postgresql://ann:secret@127.0.0.1:{nobody}/hubcam"
    server = hubcam_serve("--port", str(free_port()), "--db", url)
    out, err = server.communicate(timeout=60)
    assert server.returncode == 2, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err, err
    assert f"postgresql://ann:***@127.0.0.1:{nobody}/hubcam" in err and "secret" not in err
    assert "referee page is at" not in out


def test_a_bad_profile_is_one_line_naming_it(tmp_path: Path) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"version": 7}))
    server = hubcam_serve("--port", str(free_port()), "--db", f"sqlite:///{tmp_path / 'h.sqlite3'}", "--profile",
                          str(profile))  # fmt: skip
    out, err = server.communicate(timeout=60)
    assert server.returncode == 2, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err, err
    assert "profile.json" in err and "version 7" in err and "referee page is at" not in out


def test_a_port_in_use_is_one_line_naming_it(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = hubcam_serve("--port", str(port), "--db", f"sqlite:///{tmp_path / 'hubcam.sqlite3'}")
        out, err = server.communicate(timeout=60)
    assert server.returncode == 2, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err, err
    assert f"port {port}" in err and "in use" in err
    assert "referee page is at" not in out


def test_the_address_is_printed_once_it_answers_and_games_live_in_the_users_data_folder(tmp_path: Path) -> None:
    """Without --db the SQLite file goes to $XDG_DATA_HOME/hubcam, not to data/ wherever it runs."""
    port, elsewhere, data_home = free_port(), tmp_path / "elsewhere", tmp_path / "xdg"
    elsewhere.mkdir()
    server = hubcam_serve("--port", str(port), cwd=elsewhere, env={"XDG_DATA_HOME": str(data_home)})
    try:
        assert server.stdout is not None
        kept = server.stdout.readline()
        assert f"sqlite:///{data_home / 'hubcam' / 'hubcam.sqlite3'}" in kept, kept
        assert f"http://localhost:{port}/" in server.stdout.readline()
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # listening already
    finally:
        server.kill()
        server.communicate()
    assert (data_home / "hubcam" / "hubcam.sqlite3").exists() and not (elsewhere / "data").exists()
    usage = subprocess.run([sys.executable, "-m", "api.cli", "serve", "--help"], capture_output=True, text=True,
                           env=os.environ | {"COLUMNS": "200"})  # fmt: skip
    assert "~/.local/share/hubcam" in usage.stdout and "XDG_DATA_HOME" in usage.stdout


def test_a_profile_reads_every_table_through_it(tmp_path: Path) -> None:
    image, _ = render(make_scene("table", 5), (1280, 960))
    height, width = image.shape[:2]
    table = {"image_to_table": [[0.5, 0, -300], [0, 0.5, -200], [0, 0, 1]], "image_size": [width, height],
             "undistorted": False, "method": "hub", "tile_mm": 50.0, "tile_px": 60.0, "tilt_deg": 10.0}  # fmt: skip
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"version": 1, "table": table, "seats": {"slots": {"90": 0}, "mexican": 270}}))
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'p.sqlite3'}", profile=profile)
    with TestClient(create_app(settings)) as client:
        answer = client.post("/analyze", files={"photo": ("table.jpg", jpeg(image), "image/jpeg")})
        body = answer.json()
        assert answer.status_code == 200 and body["trains"]
        assert any(train["owner"] is not None for train in body["trains"]), "the profile's seats stand for none sent"
        square = np.zeros((width, width, 3), np.uint8)
        answer = client.post("/analyze", files={"photo": ("square.jpg", jpeg(square), "image/jpeg")})
        assert answer.status_code == 422 and f"{width}x{height} photos, this one is {width}x{width}" in answer.text


def test_the_table_plane_is_measured_from_a_photo_and_read_through(client: TestClient) -> None:
    from datasets.synth.table_markers import table_photo

    photo = table_photo(1)  # its four markers in view, the camera 45 degrees off straight down
    files = {"photo": ("table.jpg", jpeg(photo.image_bgr), "image/jpeg")}
    answer = client.post("/calibrate/table", files=files)
    assert answer.status_code == 200, answer.text
    plane = answer.json()
    assert plane["method"] == "markers" and plane["camera"] == "assumed" and plane["image_size"] == [1280, 720]
    assert plane["marker_fit_px"] < 1.0 and 35 < plane["tilt_deg"] < 55
    plain = client.post("/analyze", files=files).json()
    through = client.post("/analyze", files=files, data={"table": json.dumps(plane)}).json()
    assert "square-on" not in plain["timings_ms"] and "square-on" in through["timings_ms"], "read again from above"
    square = {"photo": ("square.jpg", jpeg(np.zeros((720, 720, 3), np.uint8)), "image/jpeg")}
    answer = client.post("/analyze", files=square, data={"table": json.dumps(plane)})
    assert answer.status_code == 422 and "the table's plane sent" in answer.text and "1280x720" in answer.text


def test_the_camera_is_calibrated_from_photos_of_the_board_and_serves_the_table(client: TestClient) -> None:
    from datasets.synth.board_photos import SMALL, photos

    taken = [(f"board-{index:02d}.jpg", jpeg(photo.image_bgr)) for index, photo in enumerate(photos(SMALL, 10, 68))]
    wood = ("wood.jpg", jpeg(np.full((400, 640, 3), (60, 110, 160), np.uint8)))
    sent = [("photos", (name, data, "image/jpeg")) for name, data in [*taken, wood, ("notes.txt", b"no photo")]]
    answer = client.post("/calibrate/camera", files=sent)
    assert answer.status_code == 200, answer.text
    camera = answer.json()
    assert camera["reprojection_error_px"] < 0.5 and camera["image_size"] == [640, 400]
    assert camera["camera_matrix"][0][0] == pytest.approx(SMALL.K[0, 0], rel=0.03)
    skipped = {each["photo"]: each["reason"] for each in camera["photos_skipped"]}
    assert "board was not found" in skipped["wood.jpg"] and "notes.txt" in skipped, skipped
    assert len(camera["photos_used"]) >= 7
    answer = client.post("/calibrate/camera", files=sent[:2])
    assert answer.status_code == 422 and "at least 3 are needed" in answer.text
    table = {"photo": wood}  # the camera's own frame size, but no table in it: the lens is taken, the table not
    answer = client.post("/calibrate/table", files=table, data={"camera": json.dumps(camera)})
    assert answer.status_code == 422 and "no table markers and no hub found" in answer.text
    answer = client.post("/calibrate/table", files={"photo": taken[0]}, data={"camera": "{"})
    assert answer.status_code == 422 and "camera: not JSON" in answer.text
    other = {"photo": ("big.jpg", jpeg(np.zeros((720, 1280, 3), np.uint8)), "image/jpeg")}
    answer = client.post("/calibrate/table", files=other, data={"camera": json.dumps(camera)})
    assert answer.status_code == 422 and "the camera was calibrated on 640x400 photos" in answer.text


def test_a_table_plane_refused_says_why(client: TestClient) -> None:
    wood = {"photo": ("wood.jpg", jpeg(np.full((480, 640, 3), (60, 110, 160), np.uint8)), "image/jpeg")}
    answer = client.post("/calibrate/table", files=wood)
    assert answer.status_code == 422 and "no table markers and no hub found" in answer.text
    answer = client.post("/calibrate/table", files=wood, data={"span_across_mm": "500"})
    assert answer.status_code == 422 and "give both spans, or neither" in answer.text
    assert client.post("/calibrate/table", files=wood, data={"tile_mm": "0"}).status_code == 422
    for table, said in (("{", "table: not JSON"), ('{"image_size": [4, 3]}', "table: missing image_to_table")):
        answer = client.post("/analyze", files=wood, data={"table": table})
        assert answer.status_code == 422 and said in answer.text, answer.text


def test_the_seats_are_calibrated_from_a_photo_of_the_markers(client: TestClient) -> None:
    from datasets.synth.table_markers import seats_photo
    from vision.table_analysis import Seats

    photo = seats_photo(11, 4)  # one whose four markers the table detector finds (benchmarks/results/seats.md)
    form = {"players": "4", "first": f"{photo.first_marker_deg:.1f}"}
    answer = client.post(
        "/calibrate/seats", files={"photo": ("hub.jpg", jpeg(photo.image_bgr), "image/jpeg")}, data=form
    )
    assert answer.status_code == 200, answer.text
    seats = Seats.from_json(answer.json())
    assert all(seats.owner(angle) == owner for owner, angle in photo.slot_angles.items())
    answer = client.post("/calibrate/seats", files={"photo": ("hub.jpg", jpeg(photo.image_bgr), "image/jpeg")},
                         data={"players": "6"})  # fmt: skip
    assert answer.status_code == 422 and "markers found by the hub for 6 players" in answer.text
