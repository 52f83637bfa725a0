"""Benchmark the referee: judging random 13-round game logs, and generating legal moves.

    python -m benchmarks.referee_bench [--games 8] [--out benchmarks/results/referee.json]

Writes its numbers to ``benchmarks/results/referee.json`` (quoted by the README).
Measured on one core: the engine is pure Python and single-threaded.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path
from typing import Any

from engine import Rules, apply, legal_moves
from engine.game import play_rounds
from engine.random_logs import random_log  # the same injected-event logs the differential fuzzer judges
from engine.referee import moves_to_log, read_log, referee, replay

GOAL_EVENTS_PER_S = 20_000


def game_logs(games: int, seed: int) -> list[dict[str, Any]]:
    """Every round of ``games`` random 4-player double-12 games, as referee logs."""
    logs = []
    for game in range(games):
        for played in play_rounds(Rules(players=4), seed=seed + game):
            logs.append(moves_to_log(played.start, played.moves))
    return logs


def injected_logs(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [random_log(rng, Rules(players=4), injected=0.3) for _ in range(count)]


def events_per_second(logs: list[dict[str, Any]], repeats: int = 3) -> dict[str, float]:
    """Best of ``repeats`` passes: judging only (read + replay), and the full JSON report."""
    events = sum(len(log["events"]) for log in logs)
    judge_s = min(_timed(lambda: [replay(read_log(log)) for log in logs]) for _ in range(repeats))
    report_s = min(_timed(lambda: [referee(log) for log in logs]) for _ in range(repeats))
    return {
        "events": events,
        "judge_events_per_s": round(events / judge_s),
        "report_events_per_s": round(events / report_s),
    }


def legal_move_costs(logs: list[dict[str, Any]], sample: int, seed: int) -> dict[str, float]:
    """Median and 95th percentile time to list every legal move, over positions from real play."""
    rng = random.Random(seed)
    positions = []
    for log in logs:
        state = read_log(log).start
        for move in read_log(log).moves:
            positions.append(state)
            state = apply(state, move)
    chosen = rng.sample(positions, min(sample, len(positions)))
    costs_us = []
    for state in chosen:
        fresh = type(state)(**{name: getattr(state, name) for name in state.__dataclass_fields__})  # no caches
        start = time.perf_counter()
        list(legal_moves(fresh))
        costs_us.append((time.perf_counter() - start) * 1e6)
    costs_us.sort()
    return {
        "positions": len(chosen),
        "median_us": round(statistics.median(costs_us), 1),
        "p95_us": round(costs_us[int(0.95 * (len(costs_us) - 1))], 1),
    }


def _timed(work: Any) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="13-round games to judge (default 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/referee.json"))
    args = parser.parse_args()

    print(f"playing {args.games} random 4-player double-12 games ...", flush=True)
    logs = game_logs(args.games, args.seed)
    print(f"judging {len(logs)} round logs ...", flush=True)
    legal = events_per_second(logs)
    print("judging logs with 30% injected illegal events ...", flush=True)
    mixed = events_per_second(injected_logs(len(logs), args.seed))
    print("timing legal move generation ...", flush=True)
    moves = legal_move_costs(logs, sample=2000, seed=args.seed)
    results = {
        "benchmark": "referee",
        "command": "python -m benchmarks.referee_bench " + f"--games {args.games} --seed {args.seed}",
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"python": platform.python_version(), "processor": _processor(), "cores_used": 1},
        "game_logs": {"games": args.games, "rounds": len(logs), **legal},
        "injected_logs": {"rounds": len(logs), "injected_share": 0.3, **mixed},
        "legal_moves": moves,
        "goal_events_per_s": GOAL_EVENTS_PER_S,
        "goal_met": min(legal["report_events_per_s"], mixed["report_events_per_s"]) >= GOAL_EVENTS_PER_S,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


def _processor() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


if __name__ == "__main__":
    main()
