"""The referee page in a real browser: Debian's chromium, headless, driven by playwright, its camera a
fake one that shows a rendered table with an illegal join. Checks the table, finds the overlay and
the alert; plays events (one refused); scores a leftover hand from a photo; every failed action says
so on the page; a rejoin with a wrong token is told so. Screenshots go to out/page-test/ for a person
to look at.

Without chromium these tests fail saying what to install, unless HUBCAM_SKIP_BROWSER_TESTS=1."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import httpx2
import numpy as np
import pytest

from datasets.synth.scene import make_scene, render
from models import COUNTER, DETECTOR, TABLE_COUNTER, TABLE_DETECTOR
from tests.postgres import free_port
from tests.server import start_server
from tests.system import SKIP_BROWSER, missing

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).parent.parent / "out" / "page-test"
TABLE_SEED = 7
"""A rendered table (1280x720) with one illegal join, which the bundled models read and flag."""
HAND_SEED = 424244
"""A rendered hand of a double-12 set, the page's default."""

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not all(p.exists() for p in (DETECTOR, COUNTER, TABLE_DETECTOR, TABLE_COUNTER)), reason="no bundled models"
)


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
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not CHROMIUM.exists():
        missing("chromium (for the page tests)", "chromium", SKIP_BROWSER)
    folder = tmp_path_factory.mktemp("camera")
    table, _ = render(make_scene("table", TABLE_SEED), (1280, 720))
    write_y4m(folder / "table.y4m", table)
    args = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-video-capture={folder / 'table.y4m'}", "--no-sandbox"]  # fmt: skip
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(browser: Any) -> Iterator[Any]:
    """A page of its own (its own local storage); no uncaught error may happen on it."""
    context = browser.new_context(viewport={"width": 1000, "height": 1400})
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.dismiss())
    uncaught: list[str] = []
    page.on("pageerror", lambda error: uncaught.append(str(error)))
    yield page
    context.close()
    assert not uncaught, f"uncaught errors on the page: {uncaught}"


def new_game(page: Any, served: str, names: str = "Ann, Bo", players_set: str = "12") -> str:
    page.goto(served)
    page.fill("#new-game input[name=names]", names)
    page.select_option("#new-game select[name=set]", players_set)
    page.click("#new-game button")
    page.wait_for_selector("#game-code:not(:empty)")
    return str(page.text_content("#game-code"))


def wait_for_text(page: Any, selector: str, text: str) -> str:
    """Wait until ``selector`` shows ``text``; what it shows."""
    page.wait_for_function("([selector, text]) => document.querySelector(selector)?.textContent.includes(text)",
                           arg=[selector, text], timeout=30_000)  # fmt: skip
    return str(page.text_content(selector))


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
    # the state, not the message: the trains are redrawn once the service has taken the play back
    page.wait_for_function("!document.querySelector('#trains').textContent.includes('5-5')")
    assert "taken back" in wait_for_text(page, "#verdict", "taken back")
    assert "12-5" in page.text_content("#trains")

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
    wait_for_text(page, "#verdict", "engine is 11-11")

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


def test_every_failed_action_says_so_on_the_page(served: str, browser_page: Any, tmp_path: Path) -> None:
    page = browser_page
    page.goto(served)
    page.fill("#new-game input[name=names]", " , ")
    page.click("#new-game button")
    assert "at least one name" in wait_for_text(page, "#start-status", "name")
    page.fill("#rejoin input[name=code]", "NOSUCH")
    page.click("#rejoin button")
    assert "no game 'NOSUCH'" in wait_for_text(page, "#start-status", "NOSUCH")

    new_game(page, served, players_set="9")
    # "Check the table" with neither photo nor camera
    page.click("#check")
    assert "Nothing to check" in wait_for_text(page, "#alerts", "Nothing to check")
    # a text file named .jpg as the table's photo: the browser cannot show it; the service says why
    (tmp_path / "table.jpg").write_text("not a photo")
    page.set_input_files("#table-photo", str(tmp_path / "table.jpg"))
    assert "not a JPEG or PNG" in wait_for_text(page, "#alerts", "not checked")
    # nothing to undo; a leftover hand's photo that is no photo; a hand listing a tile twice
    page.click("#undo")
    assert "nothing to undo" in wait_for_text(page, "#verdict.illegal", "nothing to undo")
    rows = page.locator("#hands .hand")
    rows.nth(0).locator("input[type=file]").set_input_files(str(tmp_path / "table.jpg"))
    assert "not a JPEG or PNG" in wait_for_text(page, "#hands .hand:nth-child(1) .note", "not read")
    rows.nth(1).locator(".tiles").fill("6-6, 6-6")
    rows.nth(1).locator("button").click()
    assert "twice" in wait_for_text(page, "#hands .hand:nth-child(2) .note", "Not saved")
    assert page.input_value("#hands .hand:nth-child(2) .tiles") == "6-6, 6-6"  # kept, to be corrected
    # a double-9 game has 10 rounds: an eleventh is refused, next to the button
    for number in range(2, 11):
        page.click("#next-round")
        page.wait_for_function(f"document.querySelector('#round-number').textContent == '{number}'")
    page.click("#next-round")
    assert "all its 10 rounds" in wait_for_text(page, "#round-status.illegal", "rounds")
    page.screenshot(path=str(SCREENSHOTS / "6-errors-said.png"), full_page=True)


def test_the_seats_are_read_from_a_photo_of_the_markers(served: str, browser_page: Any, tmp_path: Path) -> None:
    from datasets.synth.table_markers import seats_photo
    from vision.table_analysis import Seats

    page = browser_page
    new_game(page, served, names="Ann, Bo, Cy, Di")
    page.click("#seat-map summary")
    page.click("#seats-from-photo")
    assert "No photo of the hub" in wait_for_text(page, "#watch-status", "No photo")
    photo = seats_photo(25, 4)  # the page numbers seats from the camera's side: the map is checked by angles
    cv2.imwrite(str(tmp_path / "hub.png"), photo.image_bgr)
    page.set_input_files("#table-photo", str(tmp_path / "hub.png"))
    wait_for_text(page, "#check-status", " ms")  # shown and checked
    page.click("#seats-from-photo")
    page.wait_for_function("document.querySelector('#watch-status').textContent.includes('eat map')", timeout=60_000)
    said = str(page.text_content("#watch-status"))
    assert "Seat map from the markers" in said, said
    assert "Ann at" in said and "Di at" in said
    seats = Seats.from_json(json.loads(page.input_value("#seats")))
    turned = sorted(photo.slot_angles[seat] for seat in range(4))
    assert sorted(seats.owner(angle) for angle in turned) == [0, 1, 2, 3], "each seat owns one marked slot"


def test_the_table_plane_is_measured_from_a_photo_of_the_markers(
    served: str, browser_page: Any, tmp_path: Path
) -> None:
    from datasets.synth.table_markers import table_photo

    page = browser_page
    new_game(page, served)
    page.click("#table-plane-step summary")
    page.click("#table-from-photo")
    assert "No photo of the table" in wait_for_text(page, "#watch-status", "No photo")
    cv2.imwrite(str(tmp_path / "table.png"), table_photo(1).image_bgr)  # four markers, a camera 45 degrees off
    page.set_input_files("#table-photo", str(tmp_path / "table.png"))
    wait_for_text(page, "#check-status", " ms")
    page.click("#table-from-photo")
    said = wait_for_text(page, "#watch-status", "Table plane by")
    assert "the four markers" in said and "tilted" in said, said
    assert json.loads(page.input_value("#table-plane"))["method"] == "markers"
    page.set_input_files("#table-photo", str(tmp_path / "table.png"))  # checked again, through the plane
    wait_for_text(page, "#check-status", " ms")
    page.fill("#table-plane", "{")
    page.click("#check")
    assert "table: not JSON" in wait_for_text(page, "#alerts", "not checked")


def test_the_camera_is_measured_from_views_of_the_board(served: str, browser_page: Any, tmp_path: Path) -> None:
    from datasets.synth.board_photos import SMALL, photos

    page = browser_page
    new_game(page, served)
    page.click("#table-plane-step summary")
    page.click("#camera-from-views")
    assert "take at least 3" in wait_for_text(page, "#watch-status", "views of the board")
    for index, photo in enumerate(photos(SMALL, 5, 68)):
        cv2.imwrite(str(tmp_path / f"board-{index}.png"), photo.image_bgr)
        page.evaluate("page.frame = null")  # the page's own state: shown once the upload is drawn
        page.set_input_files("#table-photo", str(tmp_path / f"board-{index}.png"))
        page.wait_for_function("page.frame !== null", timeout=30_000)
        page.click("#board-view")
        wait_for_text(page, "#board-views", f"{index + 1} view")
    page.click("#camera-from-views")
    said = wait_for_text(page, "#watch-status", "Camera from")
    assert "of 5 views: reprojection error" in said, said
    camera = json.loads(page.input_value("#camera-part"))
    assert camera["image_size"] == [640, 400] and camera["reprojection_error_px"] < 0.5
    assert page.text_content("#board-views") == "no views"


def test_a_rejoin_with_a_wrong_token_is_told_so(served: str, browser_page: Any) -> None:
    page = browser_page
    created = httpx2.post(f"{served}/games", json={"rules": {"players": 2, "set": 9}, "names": ["Ann", "Bo"]}).json()
    code, token = created["game"]["id"], created["token"]
    page.goto(served)
    page.fill("#rejoin input[name=code]", code.lower())
    page.fill("#rejoin input[name=token]", "not-the-token")
    page.click("#rejoin button")
    assert "Wrong token" in wait_for_text(page, "#verdict.illegal", "Wrong token")
    assert page.is_visible("#read-only")
    assert page.evaluate(f"localStorage.getItem('hubcam:{code}')") is None  # a wrong token is not kept
    page.goto(f"{served}/")  # with the right token the game can be changed, and no warning is shown
    page.fill("#rejoin input[name=code]", code)
    page.fill("#rejoin input[name=token]", token)
    page.click("#rejoin button")
    page.wait_for_selector("#play:not([hidden])")
    assert not page.is_visible("#read-only") and "token" not in page.text_content("#verdict")
    page.click("#event button[value=draw]")
    wait_for_text(page, "#verdict.legal", "draw: legal")


def test_the_qr_code_says_how_to_serve_phones(served: str, browser_page: Any) -> None:
    """The page is served on 127.0.0.1 without --public-url: the QR code's address is this computer's own."""
    page = browser_page
    code = new_game(page, served)
    hint = wait_for_text(page, "#qr-hint", "hubcam serve")
    assert page.is_visible("#qr-hint")
    assert "hubcam serve --host 0.0.0.0 --public-url http://THIS-COMPUTER:" in hint and "no phone" in hint
    assert page.evaluate("fetch('/favicon.ico').then((answer) => answer.status)") == 200
    assert page.get_attribute("link[rel=icon]", "href") == "/static/favicon.svg"
    assert code in page.get_attribute("#qr", "src")


def test_an_unsure_tile_and_hand_are_labelled_as_such(served: str, browser_page: Any) -> None:
    page = browser_page
    page.goto(served)
    labels = page.evaluate(
        "[tileLabel({pips: [6, 6], reason: 'face_down'}), tileLabel({pips: [12, 5]}), tileLabel({pips: null})]"
    )
    assert labels == ["6-6?", "12-5", "?"]
    notes = page.evaluate("[1, 2].map((uncertain) => handNote({reviewed: false, uncertain, tiles: [], total: 0}))")
    assert notes == ["read from the photo; 1 tile unsure: add it", "read from the photo; 2 tiles unsure: add them"]
