"""The hubcam command as people use it: mistakes get a "did you mean" and the subcommand's usage,
unusable output paths a clear error before any work, and no traceback anywhere."""

from __future__ import annotations

import json

import cv2
import pytest

from api.cli import main
from datasets.synth.scene import make_scene, render


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit:  # argparse's own exits (errors, --version)
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_mistyped_command_gets_the_nearest_one(capsys):
    code, _, err = run(capsys, "scroe", "hand.jpg")
    assert code == 2 and "did you mean 'score'?" in err


def test_a_mistyped_option_gets_the_subcommands_usage_and_the_nearest_option(capsys):
    code, _, err = run(capsys, "score", "hand.jpg", "--jsn")
    assert code == 2
    assert err.startswith("usage: hubcam score") and "unrecognized arguments: --jsn (did you mean '--json'?)" in err
    code, _, err = run(capsys, "simulate", "--plyers", "3")
    assert code == 2 and err.startswith("usage: hubcam simulate") and "'--players'" in err


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("hubcam ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--json", "/nonexistent/x.json"], "its folder '/nonexistent' does not exist"),
        (["simulate", "--csv", "{folder}"], "it is a folder"),
        (["simulate", "--logs", "{file}"], "it is a file, expected a folder"),
        (["score", "--overlay", "{file}", "{file}"], "it is a file, expected a folder"),
        (["synth", "--kind", "hand", "--n", "1", "--out", "{file}/sets"], "is a file, expected a folder"),
        (["eval", "--real", "--out", "{file}"], "it is a file, expected a folder"),
    ],
)
def test_an_unusable_output_path_is_refused_before_any_work(tmp_path, capsys, argv, message):
    file = tmp_path / "taken.txt"
    file.write_text("kept\n")
    argv = [part.format(file=file, folder=tmp_path) for part in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err and out == ""
    assert file.read_text() == "kept\n"  # nothing already saved is lost


def test_output_folders_are_made_where_missing(tmp_path, capsys):
    code, _, _ = run(capsys, "simulate", "--players", "2", "--logs", str(tmp_path / "a" / "logs"))
    assert code == 0 and (tmp_path / "a" / "logs" / "round-00.json").is_file()


def test_nine_players_play_the_smallest_set_that_deals_them(tmp_path, capsys):
    code, out, err = run(capsys, "simulate", "--players", "9", "--json", str(tmp_path / "sheet.json"))
    assert code == 0 and "double-15" in err
    assert json.loads((tmp_path / "sheet.json").read_text())["rules"]["set"] == 15


def test_a_set_given_that_deals_no_hand_says_what_would(capsys):
    code, _, err = run(capsys, "simulate", "--players", "9", "--set", "12")
    assert code == 2 and "give --set 15 or --set 18, or --rule hand_size=N" in err
    code, _, err = run(capsys, "simulate", "--players", "9", "--set", "12", "--rule", "hand_size=8")
    assert code == 0


def test_a_set_smaller_than_the_photo_shows_is_warned_of(tmp_path, capsys):
    image, label = render(make_scene("hand", 424242))
    highest = max(max(tile["pips"]) for tile in label["tiles"] if tile.get("pips"))
    assert highest > 6  # the hand has tiles a double-6 set does not
    cv2.imwrite(str(tmp_path / "hand.jpg"), image)
    code, _, err = run(capsys, "score", str(tmp_path / "hand.jpg"), "--set", "6")
    assert code == 0 and "more pips than double-6 holds: is the set larger?" in err
    code, _, err = run(capsys, "score", str(tmp_path / "hand.jpg"))
    assert code == 0 and "warning" not in err
