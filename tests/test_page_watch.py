"""The referee page watching live, in headless chromium: its fake camera plays a rendered round (two
tiles laid, a hand passing over first); "Watch live" streams it to the service, which proposes each
play; the page shows those and nothing else, "Confirm" stores each in the game's log, which still holds
them after the server restarts; the page says so when the socket closes.

Without chromium this fails saying what to install, unless HUBCAM_SKIP_BROWSER_TESTS=1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import httpx2
import numpy as np
import pytest

from models import COUNTER, DETECTOR, TABLE_COUNTER, TABLE_DETECTOR
from tests.postgres import free_port
from tests.server import start_server
from tests.system import SKIP_BROWSER, missing
from tests.watch_video import RenderedRound, rendered_round

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).parent.parent / "out" / "page-test"
FPS = 5
"""The fake camera's frame rate: the rendered round's frames as the tests' watch_video keeps them."""
LEAD_S, TAIL_S = 3, 12
"""The empty table shown before the round (the page starts watching a moment after the camera), and
the last state after it (the fake camera plays its file in a loop: the round must not start again
while the test looks)."""

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not all(p.exists() for p in (DETECTOR, COUNTER, TABLE_DETECTOR, TABLE_COUNTER)), reason="no bundled models"
)


def write_y4m(path: Path, frames: list[np.ndarray], fps: int) -> None:
    """A video in the Y4M format chromium's fake camera plays (4:2:0)."""
    height, width = frames[0].shape[:2]
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in frames:
            out.write(b"FRAME\n" + cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())


@pytest.fixture(scope="module")
def video() -> RenderedRound:
    return rendered_round()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory, video: RenderedRound) -> Iterator[Any]:
    if not CHROMIUM.exists():
        missing("chromium (for the page tests)", "chromium", SKIP_BROWSER)
    folder = tmp_path_factory.mktemp("camera")
    images = video.images()
    write_y4m(folder / "round.y4m", [images[0]] * (LEAD_S * FPS) + images + [images[-1]] * (TAIL_S * FPS), FPS)
    args = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-video-capture={folder / 'round.y4m'}", "--no-sandbox"]  # fmt: skip
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
        yield browser
        browser.close()


def test_the_page_proposes_each_play_seen_and_stores_those_confirmed(
    browser: Any, video: RenderedRound, tmp_path: Path
) -> None:
    database, log = f"sqlite:///{tmp_path / 'hubcam.sqlite3'}", tmp_path / "server.log"
    port = free_port()
    served = f"http://127.0.0.1:{port}"
    server = start_server(database, port, log)
    context = browser.new_context(viewport={"width": 1000, "height": 1400})
    try:
        created = httpx2.post(f"{served}/games", json=video.game()).json()
        code, token = created["game"]["id"], created["token"]
        page = context.new_page()
        uncaught: list[str] = []
        page.on("pageerror", lambda error: uncaught.append(str(error)))
        page.goto(served)
        page.fill("#rejoin input[name=code]", code)
        page.fill("#rejoin input[name=token]", token)
        page.click("#rejoin button")
        page.wait_for_selector("#play:not([hidden])")
        page.click("#seat-map summary")
        page.fill("#seats", json.dumps(video.seats))
        page.click("#watch")

        # each play proposed once its hand has left, in order; nothing else (a hand passed over first)
        plays = video.plays
        page.wait_for_function(f"document.querySelectorAll('#proposals li').length >= {len(plays)}", timeout=45_000)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "7-watching-live.png"), full_page=True)
        proposed = page.locator("#proposals li")
        assert proposed.evaluate_all("(items) => items.map((item) => item.dataset.tile)") == [p["tile"] for p in plays]
        assert page.locator("#alerts li").count() == 0, page.locator("#alerts li").all_text_contents()
        assert "Bo played 11-6 on Bo's train" in proposed.nth(0).text_content()
        assert page.evaluate("page.analysis.trains.length") == 2  # the live overlay's latest reading

        # one tap each: judged by the service and stored
        for number in range(len(plays)):
            proposed.nth(number).locator("button.confirm").click()
            page.wait_for_selector(f"#proposals li:nth-child({number + 1}).confirmed")
        page.wait_for_function("document.querySelector('#trains').textContent.includes('11-9')")
        assert page.locator("#proposals li").count() == len(plays) and page.locator("#alerts li").count() == 0

        # the server goes away: the page says the watch stopped; back up, the log still holds the plays
        server.kill()
        server.wait()
        page.wait_for_selector("#watch-status.illegal")
        assert "The live watch stopped" in page.text_content("#watch-status")
        assert page.text_content("#watch") == "Watch live"
        server = start_server(database, port, log)
        events = httpx2.get(f"{served}/games/{code}").json()["rounds"][0]["events"]
        assert [(e["player"], e["tile"], e["train"]) for e in events] == [
            (p["player"], p["tile"], p["train"]) for p in plays
        ]
        assert not uncaught, uncaught
    finally:
        context.close()
        server.kill()
        server.wait()
