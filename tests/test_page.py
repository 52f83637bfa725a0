"""The referee page in a real browser: Debian's chromium, headless, driven by playwright, its camera a
fake one that shows a rendered table with an illegal join. Checks the table, finds the overlay and
the alert; plays events (one refused); scores a leftover hand from a photo. Screenshots go to
out/page-test/ for a person to look at."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from models import COUNTER, DETECTOR, TABLE_COUNTER, TABLE_DETECTOR
from tests.postgres import free_port
from tests.server import start_server
from vision.synth.scene import make_scene, render

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).parent.parent / "out" / "page-test"
TABLE_SEED = 7
"""A rendered table (1280x720) with one illegal join, which the bundled models read and flag."""
HAND_SEED = 424244
"""A rendered hand of a double-12 set, the page's default."""

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium; .ci/run does)"),
    pytest.mark.skipif(
        not all(p.exists() for p in (DETECTOR, COUNTER, TABLE_DETECTOR, TABLE_COUNTER)), reason="no bundled models"
    ),
]


def write_y4m(path: Path, image_bgr: np.ndarray, frames: int = 3) -> None:
    """A still video in the Y4M format chromium's fake camera plays (4:2:0, the frames repeat)."""
    height, width = image_bgr.shape[:2]
    planes = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2YUV_I420).tobytes()
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F30:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            out.write(b"FRAME\n" + planes)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("page")
    port = free_port()
    server = start_server(f"sqlite:///{folder / 'hubcam.sqlite3'}", port, folder / "server.log")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.kill()
        server.wait()


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("camera")
    table, _ = render(make_scene("table", TABLE_SEED), (1280, 720))
    write_y4m(folder / "table.y4m", table)
    args = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-video-capture={folder / 'table.y4m'}", "--no-sandbox"]  # fmt: skip
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
        page = browser.new_context(viewport={"width": 1000, "height": 1400}).new_page()
        page.on("dialog", lambda dialog: dialog.dismiss())
        yield page
        browser.close()


def test_a_round_refereed_in_the_browser(served: str, browser_page: Any, tmp_path: Path) -> None:
    page = browser_page
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True)
    page.goto(served)
    page.fill("#new-game input[name=names]", "Ann, Bo")
    page.click("#house-rules summary")
    page.select_option("#variants select[name=double_blank_points]", "50")
    page.click("#new-game button")
    page.wait_for_selector("#game-code:not(:empty)")
    code = page.text_content("#game-code")

    # the camera shows the table; checking it draws the overlay and raises the alert
    page.click("#camera-on")
    page.wait_for_function("document.querySelector('#camera').videoWidth > 0")
    page.click("#check")
    page.wait_for_selector("#alerts li", timeout=60_000)
    page.screenshot(path=str(SCREENSHOTS / "1-table-checked.png"), full_page=True)
    alerts = page.locator("#alerts li").all_text_contents()
    assert any(alert.startswith("illegal join") for alert in alerts), alerts
    # the overlay is drawn on the frame checked, at the camera's size (chromium's fake camera crops square)
    size = page.evaluate("[document.querySelector('#overlay').width, document.querySelector('#overlay').height]")
    assert page.is_visible("#overlay") and min(size) >= 720, size

    # events, judged at once; the illegal one refused with its reason
    page.fill("#event input[name=tile]", "12-5")
    page.select_option("#event select[name=train]", "0")
    page.click("#event button[value=play]")
    page.wait_for_selector("#verdict.legal")
    page.wait_for_function("document.querySelector('#turn').textContent.includes('Bo')")
    page.fill("#event input[name=tile]", "7-3")
    page.select_option("#event select[name=train]", "1")
    page.click("#event button[value=play]")
    page.wait_for_selector("#verdict.illegal")
    assert "no_match" in page.text_content("#verdict")
    page.screenshot(path=str(SCREENSHOTS / "2-refused.png"), full_page=True)
    for action in ("draw", "pass"):  # Bo cannot play: draws, passes, and so puts out a marker
        page.click(f"#event button[value={action}]")
        page.wait_for_function(f"document.querySelector('#verdict').textContent == '{action}: legal'")
    page.wait_for_function("document.querySelector('#trains').textContent.includes(\"Bo's train (marker)\")")
    page.fill("#event input[name=tile]", "5-5")
    page.select_option("#event select[name=train]", "0")
    page.click("#event button[value=play]")
    page.wait_for_function("document.querySelector('#trains').textContent.includes('12-5 5-5')")
    page.click("#undo")
    page.wait_for_function("document.querySelector('#verdict').textContent.includes('taken back')")
    assert "5-5" not in page.text_content("#trains")

    # the end of the round: a hand photo read, reviewed, and the scoresheet filled
    hand, _ = render(make_scene("hand", HAND_SEED))
    cv2.imwrite(str(tmp_path / "hand.jpg"), hand)
    rows = page.locator("#hands .hand")
    rows.nth(0).locator("input[type=file]").set_input_files(str(tmp_path / "hand.jpg"))
    page.wait_for_function("document.querySelector('#hands .hand .total').textContent.includes('pips')",
                           timeout=60_000)  # fmt: skip
    assert page.input_value("#hands .hand:nth-child(1) .tiles") != ""
    rows.nth(1).locator("button").click()
    page.wait_for_function("document.querySelectorAll('#scoresheet tr').length == 4")
    totals = page.locator("#scoresheet tr").nth(2).locator("td").all_text_contents()
    assert totals[0] == "total" and int(totals[1]) > 0 and totals[2] == "0"
    page.screenshot(path=str(SCREENSHOTS / "3-scored.png"), full_page=True)
    page.click("#next-round")
    page.wait_for_function("document.querySelector('#round-number').textContent == '2'")
    assert "engine is 11-11" in page.text_content("#verdict")

    # the phones' scoreboard shows the same, on a phone's screen
    phone = page.context.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(f"{served}/games/{code}/board")
    phone.wait_for_function("document.querySelectorAll('#scoresheet tr').length == 4")
    assert "Round 2, engine 11-11" in phone.text_content("#status")
    phone.screenshot(path=str(SCREENSHOTS / "4-board-on-a-phone.png"), full_page=True)
    phone.goto(f"{served}/#{code}")  # the referee's page too: the browser remembers the game's token
    phone.wait_for_selector("#play:not([hidden])")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390, "the page is wider than a phone"
    phone.screenshot(path=str(SCREENSHOTS / "5-referee-on-a-phone.png"), full_page=True)
    rules = page.evaluate(f"fetch('/games/{code}').then((answer) => answer.json()).then((game) => game.rules)")
    assert rules["double_blank_points"] == 50
