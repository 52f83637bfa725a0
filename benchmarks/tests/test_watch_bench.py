"""benchmarks/watch_bench.py's scoring on hand-made truth and reported events (no video rendered)."""

from __future__ import annotations

from typing import Any

from benchmarks.watch_bench import score_video, summary


def play(frame: int, tile: str, train: int | str, player: int = 0, legal: bool = True, reason: str | None = None):
    return {"frame": frame, "event": "play", "player": player, "tile": tile, "train": train, "legal": legal,
            "reason": reason, "message": ""}  # fmt: skip


def flag(frame: int, tile: str) -> dict[str, Any]:
    return {"frame": frame, "event": "flag", "kind": "unsatisfied_double", "player": 1, "tile": tile, "train": 1}


TRUTH = [
    play(30, "9-4", 0),
    play(60, "4-7", 0, player=1, legal=False, reason="not_your_turn"),
    play(90, "6-6", 1, player=1),
    {"frame": 100, "event": "pass_over", "frame_start": 100, "frame_end": 130},
    flag(150, "6-6"),
    {"frame": 150, "event": "marker", "player": 1, "train": 1},
]


def test_a_right_play_a_wrong_tile_a_false_event_and_the_latencies_are_told_apart():
    reported = [
        play(33, "4-9", 0),  # right domino and train, laid the other way round, 3 frames late
        play(61, "4-8", 0, player=1, legal=False, reason="not_your_turn"),  # the wrong tile
        play(93, "6-6", 1, player=0),  # found, but the wrong player
        {"frame": 120, "event": "takeback", "tile": "6-6", "train": 1, "message": ""},  # while a hand passes over
        flag(165, "6-6"),  # 15 frames (1 s) late: still on time
        {"frame": 200, "event": "state"},  # not a judged event
    ]
    score = score_video("v", TRUTH, reported, fps=15.0)
    figures = summary([score])

    assert (figures["plays"]["right"], figures["plays"]["of"]) == (2, 3)
    assert figures["plays_oriented"]["right"] == 1  # the 9-4 read as 4-9
    assert figures["plays_right_player"]["right"] == 1
    assert (figures["illegal_flagged"]["right"], figures["illegal_flagged"]["of"]) == (0, 1)  # its tile was wrong
    assert (figures["doubles_flagged"]["right"], figures["doubles_flagged"]["of"]) == (1, 1)
    assert figures["false_events"] == 2  # the 4-8 and the take-back
    assert figures["false_events_by_kind"] == {"play": 1, "takeback": 1}
    assert figures["false_events_in_pass_overs"] == 1
    assert (figures["pass_overs_quiet"]["right"], figures["pass_overs_quiet"]["of"]) == (0, 1)
    assert score.latencies_s() == [0.2, 0.2, 1.0]
    assert figures["latency_s"]["max"] == 1.0
    assert (figures["on_time"]["right"], figures["on_time"]["of"]) == (3, 3)


def test_a_late_event_and_a_clean_pass_over():
    score = score_video("v", TRUTH, [play(30 + 16, "9-4", 0), play(131 + 8, "4-7", 0, 1, False, "not_your_turn")], 15.0)
    figures = summary([score])

    assert (figures["on_time"]["right"], figures["on_time"]["of"]) == (0, 2)  # the 9-4 came 16 frames (1.07 s) late
    assert figures["illegal_flagged"]["right"] == 1
    assert figures["pass_overs_quiet"]["right"] == 1  # 9 frames after the pass ended: past its settling time
    assert figures["false_events"] == 0
    assert figures["latency_s"]["median"] > 1.0
