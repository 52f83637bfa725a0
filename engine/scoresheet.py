"""The scoresheet: each round's score by seat, totals, places and the winner (RULES.md 5).

>>> sheet = Scoresheet.from_rounds(Rules(players=2, set=6, hand_size=7),
...     [RoundScore(0, 6, 0, (0, 12), "out", 30), RoundScore(1, 5, 1, (9, 0), "out", 28)])
>>> sheet.totals, sheet.winners, sheet.places
((9, 12), (0,), (1, 2))
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.rules import Rules


@dataclass(frozen=True)
class RoundScore:
    number: int
    engine: int
    starter: int
    scores: tuple[int, ...]
    """Pips left in each seat's hand at the end of the round."""
    ended: str
    """'out' when a player went out, 'blocked' when every seat passed in a row."""
    events: int


@dataclass(frozen=True)
class Scoresheet:
    rules: Rules
    rounds: tuple[RoundScore, ...]

    @classmethod
    def from_rounds(cls, rules: Rules, rounds: Sequence[RoundScore]) -> Scoresheet:
        for round_ in rounds:
            if len(round_.scores) != rules.players:
                raise ValueError(f"round {round_.number} has {len(round_.scores)} scores for {rules.players} players")
        return cls(rules, tuple(rounds))

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(round_.scores[seat] for round_ in self.rounds) for seat in range(self.rules.players))

    @property
    def places(self) -> tuple[int, ...]:
        """Each seat's place, 1 = lowest total; tied seats share a place (1, 1, 3)."""
        totals = self.totals
        return tuple(1 + sum(other < total for other in totals) for total in totals)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats with the lowest total: more than one when they tie."""
        return tuple(seat for seat, place in enumerate(self.places) if place == 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "rounds": [
                {
                    "round": round_.number,
                    "engine": round_.engine,
                    "starter": round_.starter,
                    "scores": list(round_.scores),
                    "ended": round_.ended,
                    "events": round_.events,
                }
                for round_ in self.rounds
            ],
            "totals": list(self.totals),
            "places": list(self.places),
            "winners": list(self.winners),
        }

    def to_csv(self, names: Sequence[str] | None = None) -> str:
        """One row per round, then totals and places; a column per seat, headed by its player's name
        when ``names`` gives them ("seat 0", "seat 1", ... otherwise)."""
        if names is not None and len(names) != self.rules.players:
            raise ValueError(
                f"names: expected {self.rules.players}, one per seat; got {len(names)}: {list(names)!r:.60}"
            )
        seats = list(names) if names is not None else [f"seat {seat}" for seat in range(self.rules.players)]
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["round", "engine", "starter", "ended", *seats])
        for round_ in self.rounds:
            engine = f"{round_.engine}-{round_.engine}"
            writer.writerow([round_.number, engine, round_.starter, round_.ended, *round_.scores])
        writer.writerow(["total", "", "", "", *self.totals])
        writer.writerow(["place", "", "", "", *self.places])
        return out.getvalue()

    def to_text(self) -> str:
        """A table for people, with the winner named."""
        seats = [f"seat {seat}" for seat in range(self.rules.players)]
        header = ["round", "engine", *seats]
        rows = [[str(r.number + 1), f"{r.engine}-{r.engine}", *map(str, r.scores)] for r in self.rounds]
        rows.append(["total", "", *map(str, self.totals)])
        rows.append(["place", "", *map(str, self.places)])
        widths = [max(len(row[col]) for row in [header, *rows]) for col in range(len(header))]

        def line(cells: list[str]) -> str:
            return "  ".join(cell.rjust(width) for cell, width in zip(cells, widths, strict=True))

        rule = "  ".join("-" * width for width in widths)
        winners = ", ".join(f"seat {seat}" for seat in self.winners)
        verdict = f"winner: {winners}" if len(self.winners) == 1 else f"tie for first: {winners}"
        return "\n".join([line(header), rule, *map(line, rows[:-2]), rule, *map(line, rows[-2:]), "", verdict])
