"""The referee protocol of RULES.md 7: log reading, verdicts, the state report, the CLI."""

from __future__ import annotations

import json

import pytest

from api.cli import main
from engine import LogError, referee

RULES = {"players": 2, "set": 6, "hand_size": 3}
HANDS = [["6-1", "1-2", "3-4"], ["6-2", "2-5", "0-0"]]


def log(events=(), **fields):
    return {"rules": RULES, **fields, "events": list(events)}


def reasons(report):
    return [verdict["reason"] for verdict in report["verdicts"]]


def test_the_report_has_one_verdict_per_event_and_the_final_state():
    report = referee(
        log(
            [
                {"player": 0, "action": "play", "tile": "6-1", "train": 0},
                {"player": 0, "action": "play", "tile": "2-5", "train": 1},
                {"player": 1, "action": "play", "tile": "4-3", "train": 0},
                {"player": 1, "action": "play", "tile": "6-2", "train": "mexican"},
            ],
            hands=HANDS,
        )
    )
    assert report["verdicts"][0] == {"event": 0, "legal": True, "reason": None, "message": ""}
    assert report["verdicts"][1]["reason"] == "not_your_turn"
    assert report["verdicts"][2] == {
        "event": 2,
        "legal": False,
        "reason": "tile_not_in_hand",
        "message": "seat 1 does not hold 4-3",
    }
    assert report["state"] == {
        "turn": 0,
        "engine": [6, 6],
        "trains": [
            {"owner": 0, "tiles": [[6, 1]], "open_end": 1, "marker": False},
            {"owner": 1, "tiles": [], "open_end": 6, "marker": False},
            {"owner": "mexican", "tiles": [[6, 2]], "open_end": 2, "marker": True},
        ],
        "open_doubles": [],
        "boneyard": 21,
        "hands": [2, 2],
        "round_over": False,
        "scores": None,
    }


def test_defaults_engine_is_the_highest_double_and_seat_0_starts():
    report = referee(log([{"player": 0, "action": "play", "tile": "6-3", "train": 0}]))
    assert report["state"]["engine"] == [6, 6]
    assert reasons(report) == [None]
    assert report["state"]["hands"] is None and report["state"]["boneyard"] is None


def test_engine_and_starter_from_the_log():
    report = referee(log([{"player": 1, "action": "play", "tile": "4-3", "train": 1}], engine=4, starter=1))
    assert reasons(report) == [None]
    assert report["state"]["trains"][1]["tiles"] == [[4, 3]]


def test_hands_count_as_known_only_when_all_are_given():
    report = referee(log([{"player": 0, "action": "pass"}], hands=[["6-1"], None]))
    assert report["state"]["hands"] is None
    assert reasons(report) == [None]  # must_play and must_draw are skipped


def test_illegal_events_are_not_applied_and_the_replay_goes_on():
    events = [
        {"player": 0, "action": "play", "tile": "3-4", "train": 0},
        {"player": 0, "action": "play", "tile": "6-1", "train": 0},
        {"player": 1, "action": "play", "tile": "6-2", "train": 1},
        {"player": 0, "action": "play", "tile": "1-2", "train": 0},
    ]
    report = referee(log(events, hands=HANDS))
    assert reasons(report) == ["no_match", None, None, None]
    assert report["state"]["trains"][0]["tiles"] == [[6, 1], [1, 2]]


def test_a_round_that_ends_reports_scores():
    hands = [["6-1", "1-2", "6-4"], ["6-2", "2-5", "0-0"]]
    events = [
        {"player": 0, "action": "play", "tile": "6-1", "train": 0},
        {"player": 1, "action": "play", "tile": "6-2", "train": 1},
        {"player": 0, "action": "play", "tile": "1-2", "train": 0},
        {"player": 1, "action": "play", "tile": "2-5", "train": 1},
        {"player": 0, "action": "play", "tile": "6-4", "train": "mexican"},
        {"player": 1, "action": "pass"},
    ]
    report = referee({"rules": {**RULES, "double_blank_points": 25}, "hands": hands, "events": events})
    assert reasons(report) == [None, None, None, None, None, "round_over"]
    assert report["state"]["round_over"] is True
    assert report["state"]["turn"] == 0  # the seat whose event ended the round
    assert report["state"]["scores"] == [0, 25]


@pytest.mark.parametrize(
    ("train", "expected"),
    [(0, None), ("mexican", "no_match"), ("Mexican", "unknown_train"), ("0", "unknown_train"),
     (2, "unknown_train"), (-1, "unknown_train"), (True, "unknown_train"), (1.5, "unknown_train"),
     ([0], "unknown_train")],
)  # fmt: skip
def test_train_is_a_seat_number_or_exactly_mexican(train, expected):
    report = referee(log([{"player": 0, "action": "play", "tile": "1-6", "train": train}]))
    assert reasons(report) == [expected if train != "mexican" else None]


@pytest.mark.parametrize("tile", ["7-1", "x", "12", "", "1-2-3"])
def test_a_tile_string_naming_no_tile_of_the_set_is_unknown_tile(tile):
    report = referee(log([{"player": 0, "action": "play", "tile": tile, "train": 0}]))
    assert reasons(report) == ["unknown_tile"]


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ([], "log: expected a JSON object"),
        ({"events": []}, "rules: missing"),
        ({"rules": {"players": 4, "sett": 12}}, "did you mean 'set'"),
        ({"rules": {"players": 13}}, "rules: invalid players"),
        ({"rules": {"players": 2, "set": 6}}, "hand_size is required"),
        ({"rules": RULES, "engine": 7}, "engine: expected a whole number from 0 to 6, got 7"),
        ({"rules": RULES, "engine": "6"}, "engine"),
        ({"rules": RULES, "starter": 2}, "starter"),
        ({"rules": RULES, "hands": [["6-1"]]}, "hands: expected a list of 2 hands"),
        ({"rules": RULES, "hands": [["6-1"], ["9-9"]]}, "hands[1][0]: invalid tile: '9-9'"),
        ({"rules": RULES, "hands": [["6-1"], ["6-1"]]}, "6-1 is in seat 1's hand and also in seat 0's hand"),
        ({"rules": RULES, "hands": [["6-6"], ["6-1"]]}, "6-6 is in seat 0's hand and also in the engine"),
        ({"rules": RULES, "hands": HANDS, "boneyard": ["0-1"]}, "tiles missing"),
        ({"rules": RULES, "events": {}}, "events: expected a list"),
        ({"rules": RULES, "events": [1]}, "events[0]: expected an object"),
        ({"rules": RULES, "events": [{"player": 0}]}, "events[0].action"),
        ({"rules": RULES, "events": [{"player": 0, "action": "jump"}]}, 'events[0].action: expected one of'),
        ({"rules": RULES, "events": [{"action": "pass"}]}, "events[0].player"),
        ({"rules": RULES, "events": [{"player": "0", "action": "pass"}]}, "events[0].player"),
        ({"rules": RULES, "events": [{"player": 1.0, "action": "pass"}]}, "events[0].player"),
        ({"rules": RULES, "events": [{"player": True, "action": "pass"}]}, "events[0].player"),
        ({"rules": RULES, "events": [{"player": 0, "action": "play", "tile": "6-1"}]}, "needs both 'tile' and 'train'"),
        ({"rules": RULES, "events": [{"player": 0, "action": "play", "train": 0}]}, "needs both 'tile' and 'train'"),
        ({"rules": RULES, "events": [{"player": 0, "action": "play", "tile": 61, "train": 0}]}, "events[0].tile"),
        ({"rules": RULES, "events": [{"player": 0, "action": "pass", "tile": "6-1"}]}, "pass takes no tile"),
        ({"rules": RULES, "events": [{"player": 0, "action": "pass", "playr": 0}]}, "did you mean 'player'"),
    ],
)  # fmt: skip
def test_a_log_that_cannot_be_read_names_the_field(document, field):
    with pytest.raises(LogError) as error:
        referee(document)
    assert field in str(error.value)


def test_a_legal_draw_must_name_its_tile_when_hands_are_known():
    hands = [["3-4", "0-1", "2-3"], ["6-2", "2-5", "0-0"]]
    with pytest.raises(LogError, match=r"events\[0\].tile"):
        referee(log([{"player": 0, "action": "draw"}], hands=hands))
    # An illegal draw without its tile is simply judged.
    report = referee(log([{"player": 1, "action": "draw"}], hands=hands))
    assert reasons(report) == ["not_your_turn"]


def test_unrelated_extra_keys_are_left_alone():
    report = referee({**log([{"player": 0, "action": "pass", "note": "no play"}]), "comment": "from the camera"})
    assert reasons(report) == [None]


# --- the CLI --------------------------------------------------------------------------------


def test_cli_referee_prints_json_and_exits_0(tmp_path, capsys):
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log([{"player": 1, "action": "pass"}])))
    assert main(["referee", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert reasons(report) == ["not_your_turn"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{not json", "is not valid JSON"),
        (b"\xff\xfe\x00", "cannot read"),
        ('{"rules": {"players": 4, "double_follow_up": "sometimes"}}', "invalid double_follow_up: 'sometimes'"),
        ('{"rules": {"players": 4}, "events": [{"player": 0, "action": "play", "tile": "12-5"}]}', "events[0]"),
    ],
)
def test_cli_referee_exits_2_with_a_message_and_no_traceback(tmp_path, capsys, content, message):
    path = tmp_path / "log.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert main(["referee", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hubcam referee: error: ") and message in err
    assert "Traceback" not in err


def test_cli_rules_lists_variants_and_presets(capsys):
    assert main(["rules", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["variants"]["double_follow_up"]["values"] == ["cover", "anywhere"]
    assert "double18" in listing["presets"]
    assert main(["rules"]) == 0
    assert "mexican_from_second_turn" in capsys.readouterr().out
