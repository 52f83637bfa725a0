"""Bad input gets a clear error, never a traceback: random JSON in every field of a log."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from api.cli import main
from engine import LogError, referee

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.floats(allow_nan=True) | st.text(max_size=8)
    | st.sampled_from(["6-1", "12-5", "mexican", "play", "draw", "pass", "end_turn", "13-2", "0-0"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)  # fmt: skip

BASE = {
    "rules": {"players": 2, "set": 6, "hand_size": 3},
    "hands": [["6-1", "1-2", "3-4"], ["6-2", "2-5", "0-0"]],
    "events": [
        {"player": 0, "action": "play", "tile": "6-1", "train": 0},
        {"player": 1, "action": "draw", "tile": "4-4"},
    ],
}
FIELDS = [
    ("rules",), ("rules", "players"), ("rules", "set"), ("rules", "hand_size"), ("rules", "first_turn"),
    ("engine",), ("starter",), ("hands",), ("hands", 0), ("hands", 1, 0), ("boneyard",), ("events",),
    ("events", 0), ("events", 0, "player"), ("events", 0, "action"), ("events", 0, "tile"),
    ("events", 0, "train"), ("events", 1, "tile"), ("events", 1, "train"),
]  # fmt: skip


def replaced(document, path, value):
    document = json.loads(json.dumps(document))
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(FIELDS), json_values)
def test_any_value_in_any_field_gives_a_report_or_a_log_error(path, value):
    document = replaced(BASE, path, value)
    try:
        report = referee(document)
    except LogError as error:
        assert str(error)
    else:
        assert len(report["verdicts"]) == len(document.get("events", []))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64) | json_values.map(lambda value: json.dumps(value).encode()))
def test_the_cli_never_shows_a_traceback(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("logs") / "log.json"
    path.write_bytes(content)
    assert main(["referee", str(path)]) in (0, 2)


def test_deeply_nested_json_is_refused_clearly(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["referee", str(path)]) == 2
    assert "nested too deeply" in capsys.readouterr().err
