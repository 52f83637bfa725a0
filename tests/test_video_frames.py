"""Video frames for the table detector (``hubcam synth --kind frames``): the images are the video's
tables as the watcher shows them, and their labels stay on the tiles through the crop."""

from __future__ import annotations

import json
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.cli import main
from datasets.real import load_folder
from datasets.synth.photograph import photograph
from datasets.synth.video import VideoOptions, film_round
from datasets.synth.video_frames import crop_label, play_region

SIZE = (640, 360)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit:  # argparse's own exits
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("frames")
    assert main(["synth", "--kind", "frames", "--n", "1", "--seed", "5", "--out", str(out), "--size", "640x360",
                 "--per-round", "2", "--workers", "1"]) == 0  # fmt: skip
    return out


def test_a_round_renders_a_set_the_exporter_reads(frames: Path) -> None:
    manifest = json.loads((frames / "manifest.json").read_text())
    assert manifest["kind"] == "table" and manifest["source"] == "video frames"
    assert manifest["per_round"] == 2 and manifest["rounds"] == 1 and manifest["seed"] == 5
    labels = load_folder(frames)
    plays = [label for label in labels if label.path.name.endswith("_play.jpg")]
    assert len(plays) == 2 and len(labels) >= 2
    assert (frames / "preview" / "contact_sheet.jpg").exists()
    for label in labels:
        image = cv2.imread(str(label.path))
        assert image.shape[:2] == (label.height, label.width)
        assert label.tiles and "hub" in label.extra
        for tile in label.tiles:  # the tiles all lie inside: the crop's margin is three tile lengths
            assert not tile.cut
            assert (tile.corners >= 0).all() and (tile.corners <= [label.width, label.height]).all()


def test_a_play_region_is_a_square_smaller_than_the_frame(frames: Path) -> None:
    for label in load_folder(frames):
        crop = label.extra.get("crop")
        if label.path.name.endswith("_frame.jpg") or crop == [0, 0, *SIZE]:
            assert (label.width, label.height) == SIZE
        else:
            # a square, cut to the frame where taller than it
            assert label.width <= SIZE[0] * 0.7 and abs(label.height - min(label.width, SIZE[1])) <= 1


def test_the_crop_holds_the_hub_and_every_tile_the_frame_holds_whole() -> None:
    # a frame the size of the videos' (at 640x360 nearly every table fills most of the frame)
    filmed = film_round(12, (1280, 720), VideoOptions(players=3, plays=8), random.Random("video-12"))
    _, label = photograph(filmed.states[2], filmed.shot)
    box = play_region(label)
    assert box is not None
    x0, y0, x1, y1 = box
    assert abs((x1 - x0) - (y1 - y0)) <= 1 and y1 - y0 < 720  # a square, give or take the rounding
    cropped = crop_label(label, box)
    whole = [tile for tile in label["tiles"] if not tile["cut"]]
    assert len(cropped["tiles"]) == len(whole) > 0 and not any(tile["cut"] for tile in cropped["tiles"])
    for before, after in zip(whole, cropped["tiles"], strict=True):
        assert after["pips"] == before["pips"]
        assert np.allclose(np.array(after["corners"]) + [x0, y0], before["corners"], atol=0.06)
    centre = np.array(cropped["hub"]["centre"])
    assert (centre >= 0).all() and (centre < [x1 - x0, y1 - y0]).all()
    assert np.allclose(centre + [x0, y0], label["hub"]["centre"], atol=0.06)


def test_a_crop_drops_tiles_outside_and_marks_those_its_edge_cuts() -> None:
    def tile(x: float, pips: tuple[int, int]) -> dict[str, object]:
        corners = [[x, 40], [x, 50], [x + 20, 50], [x + 20, 40]]
        return {"pips": list(pips), "corners": corners, "unreadable": False, "hidden": [False, False],
                "pose": "face_up", "cut": False, "half_centres": [[x + 5, 45], [x + 15, 45]]}  # fmt: skip

    label = {
        "width": 200, "height": 100, "kind": "table", "set": 12, "notes": "",
        "tiles": [tile(10, (1, 2)), tile(90, (3, 4)), tile(140, (5, 6))],  # outside, cut, inside
        "chains": [[0, 1, 2]], "flags": [{"kind": "unsatisfied_double", "tiles": [0]}],
        "trains": [{"owner": 0, "slot": 1, "tiles": [0, 1, 2], "marker": False}],
        "markers": [],
        "hub": {"centre": [150, 60], "radius": 5, "corners": [[145, 55], [155, 55], [155, 65], [145, 65]]},
    }  # fmt: skip
    cropped = crop_label(label, (100, 0, 200, 100))
    assert [t["pips"] for t in cropped["tiles"]] == [[3, 4], [5, 6]]
    assert [t["cut"] for t in cropped["tiles"]] == [True, False]
    assert cropped["tiles"][0]["unreadable"] and cropped["total_pips"] == 11
    assert cropped["tiles"][1]["corners"][0] == [40, 40] and cropped["tiles"][1]["half_centres"][0] == [45, 45]
    assert cropped["chains"] == [[0, 1]] and cropped["trains"][0]["tiles"] == [0, 1] and cropped["flags"] == []
    assert cropped["hub"]["centre"] == [50, 60] and (cropped["width"], cropped["height"]) == (100, 100)
    assert "hub" not in crop_label(label, (0, 0, 100, 100))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--kind", "frame"], "invalid choice: 'frame'"),
        (["--kind", "frames", "--per-round", "0"], "invalid --per-round: 0 (expected 1 to 20)"),
        (["--kind", "table", "--per-round", "2"], "--per-round is for --kind frames"),
    ],
)
def test_bad_options_get_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    code, said = run(capsys, "synth", *argv, "--n", "1", "--out", str(tmp_path / "set"))
    assert code == 2 and message in said
    assert not (tmp_path / "set" / "manifest.json").exists()
