"""Whole games (RULES.md 1 and 5), the scoresheet and ``hubcam simulate``."""

from __future__ import annotations

import csv
import io
import json

import pytest

from api.cli import main
from engine import RoundScore, Rules, Scoresheet, play_game, play_rounds, referee
from engine.referee import moves_to_log
from engine.state import hand_points

RULES = Rules(players=3, set=6, hand_size=6)


def test_a_game_has_n_plus_1_rounds_with_descending_engines_and_a_rotating_starter():
    rounds = list(play_rounds(RULES, seed=3, first_starter=1))
    assert [played.start.engine for played in rounds] == [6, 5, 4, 3, 2, 1, 0]
    assert [played.start.turn for played in rounds] == [1, 2, 0, 1, 2, 0, 1]
    assert all(played.end.round_over for played in rounds)


def test_round_scores_are_the_pips_left_in_each_hand():
    rules = Rules(players=3, set=6, hand_size=6, double_blank_points=50)
    for played in play_rounds(rules, seed=5):
        assert played.end.hands is not None
        assert played.end.scores() == [hand_points(hand, 50) for hand in played.end.hands]


def test_double_blank_points_count_when_the_double_blank_is_left():
    # Find a round that ends with 0-0 in a hand, then check it counts 25 there.
    rules = Rules(players=4, set=6, hand_size=6, double_blank_points=25)
    for seed in range(50):
        for played in play_rounds(rules, seed=seed):
            for seat, hand in enumerate(played.end.hands or ()):
                if any(tile.pips == 0 for tile in hand):
                    rest = sum(tile.pips for tile in hand)
                    assert played.end.scores()[seat] == rest + 25
                    return
    pytest.fail("no round ended with the double-blank in a hand")


def test_the_same_seed_plays_the_same_game():
    assert play_game(RULES, seed=11) == play_game(RULES, seed=11)
    assert play_game(RULES, seed=11) != play_game(RULES, seed=12)


def test_totals_places_and_winner():
    sheet = play_game(Rules(players=4), seed=2, strategies=("greedy", "random"))
    assert len(sheet.rounds) == 13
    assert sheet.totals == tuple(sum(r.scores[seat] for r in sheet.rounds) for seat in range(4))
    assert sheet.winners == tuple(seat for seat, total in enumerate(sheet.totals) if total == min(sheet.totals))
    assert sorted(sheet.places)[0] == 1


def test_tied_seats_share_a_place():
    rounds = [RoundScore(0, 6, 0, (10, 10, 30, 5), "out", 20), RoundScore(1, 5, 1, (0, 0, 0, 5), "out", 20)]
    sheet = Scoresheet.from_rounds(Rules(players=4, set=6, hand_size=5), rounds)
    assert sheet.totals == (10, 10, 30, 10)
    assert sheet.places == (1, 1, 4, 1)
    assert sheet.winners == (0, 1, 3)
    assert "tie for first: seat 0, seat 1, seat 3" in sheet.to_text()


def test_scoresheet_exports_csv_and_json():
    sheet = play_game(RULES, seed=1)
    rows = list(csv.reader(io.StringIO(sheet.to_csv())))
    assert rows[0] == ["round", "engine", "starter", "ended", "seat 0", "seat 1", "seat 2"]
    assert len(rows) == 1 + 7 + 2
    assert [int(cell) for cell in rows[-2][4:]] == list(sheet.totals)
    document = json.loads(json.dumps(sheet.to_json()))
    assert document["totals"] == list(sheet.totals)
    assert [r["engine"] for r in document["rounds"]] == [6, 5, 4, 3, 2, 1, 0]
    assert document["rules"]["hand_size"] == 6


def test_a_simulated_round_referees_as_legal():
    for played in play_rounds(Rules.preset("double18", players=6), seed=4):
        report = referee(moves_to_log(played.start, played.moves))
        assert all(verdict["legal"] for verdict in report["verdicts"])
        assert report["state"]["scores"] == played.end.scores()
        break


def test_cli_simulate_prints_the_scoresheet_and_writes_files(tmp_path, capsys):
    args = ["simulate", "--players", "4", "--set", "12", "--seed", "1"]
    files = ["--json", str(tmp_path / "s.json"), "--csv", str(tmp_path / "s.csv"), "--logs", str(tmp_path / "logs")]
    assert main(args + files) == 0
    out = capsys.readouterr().out
    assert "12-12" in out and "0-0" in out and ("winner: seat" in out or "tie for first" in out)
    sheet = json.loads((tmp_path / "s.json").read_text())
    assert len(sheet["rounds"]) == 13
    logs = sorted((tmp_path / "logs").glob("round-*.json"))
    assert len(logs) == 13
    report = referee(json.loads(logs[0].read_text()))
    assert all(verdict["legal"] for verdict in report["verdicts"])
    assert report["state"]["scores"] == sheet["rounds"][0]["scores"]
    main(args)
    assert capsys.readouterr().out == out  # a seed replays the same game


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "13"], "invalid players: 13"),
        (["--set", "10"], "invalid set: 10"),
        (["--set", "6"], "hand_size is required"),
        (["--preset", "anywere"], "did you mean 'anywhere'"),
        (["--rule", "first_turn=chian"], "invalid first_turn: 'chian'"),
        (["--rule", "frist_turn=chain"], "did you mean 'first_turn'"),
        (["--rule", "chain"], "expected KEY=VALUE"),
        (["--strategy", "clever"], "unknown strategy: 'clever'"),
    ],
)
def test_cli_simulate_refuses_bad_options_clearly(capsys, args, message):
    assert main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_simulate_with_presets_and_rules(capsys):
    chained = ["--preset", "anywhere", "--rule", "first_turn=chain"]
    assert main(["simulate", "--players", "3", *chained, "--seed", "2"]) == 0
    assert main(["simulate", "--players", "2", "--set", "6", "--rule", "hand_size=7", "--strategy", "greedy"]) == 0
    assert "6-6" in capsys.readouterr().out
