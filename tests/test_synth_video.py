"""Rendered videos of play (issue 66): the files, the frames and the ground truth agree with each other
and with the engine, and the bundled models can read the table the video ends on."""

from __future__ import annotations

import json
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from api.cli import main
from datasets.synth.round_play import play_video_round
from datasets.synth.video import VideoOptions, _played_round, write_videos
from engine import Tile
from vision.table_analysis import Seats

SIZE = (640, 360)
OPTIONS = VideoOptions(players=3, plays=6)


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("videos")
    assert write_videos(1, 7, out, SIZE, workers=1, options=OPTIONS) == ["00000"]
    return out


def frames_of(path: Path) -> list[np.ndarray]:
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            return frames
        frames.append(frame)


def truth_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "00000.truth.jsonl").read_text().splitlines()]


def test_a_video_has_the_frames_its_manifest_says(video: Path) -> None:
    manifest = json.loads((video / "00000.json").read_text())
    frames = frames_of(video / "00000.mp4")
    assert len(frames) == manifest["frames"] > 0
    assert frames[0].shape[:2] == (SIZE[1], SIZE[0])
    assert manifest["fps"] == 15 and manifest["set"] == 12 and manifest["players"] == 3
    assert manifest["size"] == list(SIZE)
    lines = truth_of(video)
    assert all(0 < line["frame"] < manifest["frames"] for line in lines)
    assert all(line["t_s"] == round(line["frame"] / 15, 2) for line in lines)
    assert [line["frame"] for line in lines] == sorted(line["frame"] for line in lines)


def test_the_truth_plays_are_the_engines(video: Path) -> None:
    manifest = json.loads((video / "00000.json").read_text())
    played = _played_round(manifest["seed"], 3, 6, None)
    plays = [line for line in truth_of(video) if line["event"] == "play"]
    steps = [step for step in played.steps if step.kind == "play"]
    assert len(plays) == manifest["plays"] == len(steps) > 0
    for line, step in zip(plays, steps, strict=True):
        assert line["tile"] == f"{step.inner}-{step.outer}"
        assert (line["player"], line["train"], line["legal"], line["reason"]) == (
            step.player,
            step.train,
            step.legal,
            step.reason,
        )
        assert set(line) == {"frame", "t_s", "event", "player", "tile", "train", "legal", "reason", "message"}
    assert manifest["engine"] == played.engine and manifest["starter"] == played.starter
    # every legal play is in the engine's log, in order
    logged = [(move.player, move.tile, move.train) for move in played.moves if move.action == "play"]
    legal = [(line["player"], Tile.parse(line["tile"]), line["train"]) for line in plays if line["legal"]]
    assert legal == logged


def test_a_legal_tile_matches_its_train_and_an_illegal_one_has_a_reason() -> None:
    seen = 0
    for seed in range(12):
        played = play_video_round(random.Random(seed), 4, max_plays=25)
        ends: dict[object, int] = {}
        for step in played.steps:
            if step.kind != "play":
                continue
            if step.legal:
                assert step.reason is None and step.inner == ends.get(step.train, played.engine)
                ends[step.train] = step.outer
            else:
                seen += 1
                assert step.reason in ("no_match", "train_not_eligible", "must_satisfy_double", "not_your_turn")
                assert step.message
    assert seen > 0, "no illegal play injected in 12 rounds"


def test_the_seat_file_reads_as_a_seat_map(video: Path) -> None:
    data = json.loads((video / "00000_seats.json").read_text())
    seats = Seats.from_json(data)
    assert sorted(str(owner) for owner in seats.slots.values()) == ["0", "1", "2", "mexican"]


def test_the_same_seed_gives_the_same_truth(video: Path, tmp_path: Path) -> None:
    write_videos(1, 7, tmp_path, SIZE, workers=1, options=OPTIONS)
    assert (tmp_path / "00000.truth.jsonl").read_text() == (video / "00000.truth.jsonl").read_text()
    assert (tmp_path / "00000_seats.json").read_text() == (video / "00000_seats.json").read_text()


def test_the_video_opens_on_the_empty_table_and_ends_on_the_tiles_laid(video: Path) -> None:
    from vision.table_reader import TableReader

    frames = frames_of(video / "00000.mp4")
    reader = TableReader(highest=12)
    first, last = reader(frames[0]), reader(frames[-1])
    laid = json.loads((video / "00000.json").read_text())["plays"]
    assert len(first.tiles) <= 1, "the first frame shows the engine alone"
    assert len(last.tiles) - 1 >= laid / 2, f"{len(last.tiles)} tiles read at the end, {laid} laid"


def test_hubcam_synth_writes_videos(tmp_path: Path) -> None:
    args = ["synth", "--kind", "video", "--n", "1", "--out", str(tmp_path), "--size", "320x192"]
    assert main([*args, "--players", "2", "--plays", "2", "--workers", "1"]) == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "00000.json",
        "00000.mp4",
        "00000.truth.jsonl",
        "00000_seats.json",
    ]
    assert main([*args, "--players", "9"]) == 2
    assert main(["synth", "--kind", "table", "--n", "1", "--out", str(tmp_path / "t"), "--players", "3"]) == 2
