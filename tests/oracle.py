"""A second referee, written again from RULES.md for differential testing.

Deliberately unlike engine/: mutable, plain tuples and dicts, no imports from the
engine, and brute force where the engine is clever (``must_play`` tries every tile
on every train through the same play judgement). It assumes a log the engine can
read; the fuzzer only gives it such logs.
"""

from __future__ import annotations

import re
from typing import Any

DEFAULTS = {
    "set": 12,
    "hand_size": None,
    "double_follow_up": "cover",
    "first_turn": "single",
    "marker_removal": "own_train",
    "double_blank_points": 0,
    "mexican_from_second_turn": False,
}
MX = "mexican"


def canon(text: Any) -> tuple[int, int] | None:
    match = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", text) if isinstance(text, str) else None
    if not match:
        return None
    a, b = int(match[1]), int(match[2])
    return (max(a, b), min(a, b))


class OracleReferee:
    def __init__(self, log: dict[str, Any]) -> None:
        self.r = {**DEFAULTS, **log["rules"]}
        self.n, self.p = self.r["set"], self.r["players"]
        self.engine = log.get("engine", self.n)
        self.turn = log.get("starter", 0)
        hands = log.get("hands")
        self.known = isinstance(hands, list) and len(hands) == self.p and all(h is not None for h in hands)
        self.table = {(self.engine, self.engine)}
        if self.known:
            self.hands = [{canon(t) for t in hand} for hand in hands]
            if log.get("boneyard") is not None:
                self.bone = {canon(t) for t in log["boneyard"]}
            else:
                every = {(a, b) for a in range(self.n + 1) for b in range(a + 1)}
                self.bone = every - self.table - set().union(*self.hands)
        self.keys = list(range(self.p)) + [MX]
        self.tiles: dict[Any, list[list[int]]] = {k: [] for k in self.keys}
        self.ends = {k: self.engine for k in self.keys}
        self.marked = {k: k == MX for k in self.keys}
        self.open: list[tuple[int, Any, int]] = []  # (number, train key, turn serial)
        self.serial = 0
        self.done: set[int] = set()
        self.drew = False
        self.played = 0
        self.block = 0
        self.over = False

    # --- judging -------------------------------------------------------------------------

    def chain_turn(self) -> bool:
        return self.r["first_turn"] == "chain" and self.turn not in self.done

    def binding(self) -> tuple[int, Any, int] | None:
        own_binds = self.r["double_follow_up"] == "cover" or self.chain_turn()
        for entry in self.open:
            if entry[2] != self.serial or own_binds:
                return entry
        return None

    def train_key(self, train: Any) -> Any:
        if train == MX and isinstance(train, str):
            return MX
        if type(train) is int and 0 <= train < self.p:
            return train
        return None

    def judge_play(self, t: tuple[int, int] | None, train: Any, check_hand: bool = True) -> str | None:
        if t is None or t[0] > self.n or t in self.table:
            return "unknown_tile"
        if check_hand and self.known and t not in self.hands[self.turn]:
            return "tile_not_in_hand"
        key = self.train_key(train)
        if key is None:
            return "unknown_train"
        if key not in {entry[1] for entry in self.open}:
            first = self.turn not in self.done
            if self.chain_turn() and key != self.turn:
                return "train_not_eligible"
            if key == MX and first and self.r["mexican_from_second_turn"]:
                return "train_not_eligible"
            if key not in (self.turn, MX) and not self.marked[key]:
                return "train_not_eligible"
        bind = self.binding()
        if bind is not None and bind[1] != key:
            return "must_satisfy_double"
        if self.ends[key] not in t:
            return "no_match"
        return None

    def can_play(self) -> bool:
        return any(self.judge_play(t, k) is None for t in self.hands[self.turn] for k in self.keys)

    def judge(self, ev: dict[str, Any]) -> str | None:
        if self.over:
            return "round_over"
        if ev["player"] != self.turn:
            return "not_your_turn"
        act = ev["action"]
        if act == "play":
            return self.judge_play(canon(ev["tile"]), ev["train"])
        if act == "draw":
            if ev.get("tile") is not None:
                t = canon(ev["tile"])
                if t is None or t[0] > self.n or t in self.table:
                    return "unknown_tile"
                if self.known and any(t in hand for hand in self.hands):
                    return "unknown_tile"
            if self.known and self.can_play():
                return "must_play"
            if self.drew:
                return "already_drew"
            if self.known and not self.bone:
                return "boneyard_empty"
            return None
        if act == "pass":
            if self.known and self.can_play():
                return "must_play"
            if self.known and self.bone and not self.drew:
                return "must_draw"
            return None
        # end_turn
        own_binds = self.r["double_follow_up"] == "cover" or self.chain_turn()
        if own_binds and any(entry[2] == self.serial for entry in self.open):
            return "must_satisfy_double"
        if not self.chain_turn() or self.played == 0:
            return "turn_not_over"
        return None

    # --- applying ----------------------------------------------------------------------

    def step(self, ev: dict[str, Any]) -> str | None:
        why = self.judge(ev)
        if why is None:
            getattr(self, "do_" + ev["action"])(ev)
        return why

    def do_play(self, ev: dict[str, Any]) -> None:
        t = canon(ev["tile"])
        assert t is not None
        key = self.train_key(ev["train"])
        end = self.ends[key]
        other = t[1] if t[0] == end else t[0]
        self.tiles[key].append([end, other])
        self.ends[key] = other
        self.table.add(t)
        if self.known:
            self.hands[self.turn].discard(t)
        if key == self.turn or self.r["marker_removal"] == "any_play":
            self.marked[self.turn] = False
        self.open = [entry for entry in self.open if entry[1] != key]
        if t[0] == t[1]:
            self.open.append((t[0], key, self.serial))
        self.open = [entry for entry in self.open if not self.no_cover_left(entry[0])]
        self.played += 1
        self.block = 0
        if self.known and not self.hands[self.turn]:
            self.over = True
            return
        still_open = any(entry[0] == t[0] and entry[1] == key for entry in self.open) and t[0] == t[1]
        if not self.chain_turn() and not still_open:
            self.next_turn()

    def no_cover_left(self, number: int) -> bool:
        return all((max(number, x), min(number, x)) in self.table for x in range(self.n + 1))

    def do_draw(self, ev: dict[str, Any]) -> None:
        self.drew = True
        if self.known:
            t = canon(ev["tile"])
            self.bone.discard(t)
            self.hands[self.turn].add(t)

    def do_pass(self, ev: dict[str, Any]) -> None:
        self.marked[self.turn] = True
        if self.known and not self.bone:
            self.block += 1
            if self.block >= self.p:
                self.over = True
                return
        self.next_turn()

    def do_end_turn(self, ev: dict[str, Any]) -> None:
        self.next_turn()

    def next_turn(self) -> None:
        self.done.add(self.turn)
        self.turn = (self.turn + 1) % self.p
        self.drew = False
        self.played = 0
        self.serial += 1

    # --- report --------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        scores = None
        if self.over and self.known:
            blank = self.r["double_blank_points"]
            scores = [sum(blank if t == (0, 0) else t[0] + t[1] for t in hand) for hand in self.hands]
        return {
            "turn": self.turn,
            "engine": [self.engine, self.engine],
            "trains": [
                {"owner": k, "tiles": self.tiles[k], "open_end": self.ends[k], "marker": self.marked[k]}
                for k in self.keys
            ],
            "open_doubles": [[entry[0], entry[0]] for entry in self.open],
            "boneyard": len(self.bone) if self.known else None,
            "hands": [len(hand) for hand in self.hands] if self.known else None,
            "round_over": self.over,
            "scores": scores,
        }


def oracle_referee(log: dict[str, Any]) -> dict[str, Any]:
    """The same report as engine.referee, computed independently."""
    oracle = OracleReferee(log)
    verdicts = [oracle.step(event) for event in log.get("events", [])]
    return {"reasons": verdicts, "state": oracle.state()}
