"""The ``hubcam`` command: one verb per job. A thin shell: the work happens in engine/ and vision/.

Exit codes: 0 done; 1 some input could not be processed (the others were); 2 the
command or its input could not be read at all (the reason goes to stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import PRESETS, LogError, Rules, RulesError, referee
from engine.game import play_rounds, round_score
from engine.referee import moves_to_log
from engine.rules import HAND_SIZES, VARIANT_HELP, VARIANTS
from engine.scoresheet import Scoresheet


class UsageError(Exception):
    """Input the command cannot work with; printed on stderr, exit 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except (UsageError, LogError, RulesError) as error:
        print(f"hubcam {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `hubcam referee log.json | head`
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hubcam", description="A computer-vision assistant for Mexican Train.")
    verbs = parser.add_subparsers(dest="command", metavar="COMMAND")

    ref = verbs.add_parser("referee", help="judge every event of a round's log (RULES.md 7)")
    ref.add_argument("log", help="the log, a JSON file ('-' reads stdin)")
    ref.add_argument("--compact", action="store_true", help="print the report on one line")
    ref.set_defaults(run=run_referee)

    rules = verbs.add_parser("rules", help="list the rule variants and presets")
    rules.add_argument("--json", action="store_true", help="print as JSON")
    rules.set_defaults(run=run_rules)

    sim = verbs.add_parser("simulate", help="play a whole game of automatic players and print the scoresheet")
    sim.add_argument("--players", type=int, default=4, help="seats at the table (2-12; default 4)")
    sim.add_argument("--set", type=int, help="the set's highest double: 6, 9, 12, 15, 18 (default: the preset's, 12)")
    sim.add_argument("--seed", type=int, default=0, help="random seed (default 0): same seed, same game")
    sim.add_argument("--preset", default="standard", help=f"a rules preset: {', '.join(PRESETS)}")
    sim.add_argument(
        "--rule", action="append", default=[], metavar="KEY=VALUE", help="set one rule, e.g. first_turn=chain"
    )
    sim.add_argument(
        "--strategy",
        default="random",
        help="'random' or 'greedy', or one per seat joined by commas (e.g. greedy,random)",
    )
    sim.add_argument("--json", type=Path, metavar="FILE", help="also write the scoresheet as JSON")
    sim.add_argument("--csv", type=Path, metavar="FILE", help="also write the scoresheet as CSV")
    sim.add_argument("--logs", type=Path, metavar="DIR", help="write each round's referee log to DIR")
    sim.set_defaults(run=run_simulate)
    return parser


def run_referee(args: argparse.Namespace) -> int:
    log = _read_json(args.log)
    report = referee(log)
    print(json.dumps(report, indent=None if args.compact else 2))
    return 0


def run_rules(args: argparse.Namespace) -> int:
    listing = {
        "variants": {name: {"values": list(values), "help": VARIANT_HELP[name]} for name, values in VARIANTS.items()},
        "hand_size": {
            "help": VARIANT_HELP["hand_size"],
            "table": {f"double-{size}": [list(row) for row in rows] for size, rows in HAND_SIZES.items()},
        },
        "presets": {name: {"rules": preset.values, "source": preset.source} for name, preset in PRESETS.items()},
    }
    if args.json:
        print(json.dumps(listing, indent=2))
        return 0
    print("variants (default first):")
    for name, values in VARIANTS.items():
        shown = ", ".join(json.dumps(value) for value in values)
        print(f"  {name:<26} {shown:<28} {VARIANT_HELP[name]}")
    print(f"  {'hand_size':<26} {'by table':<28} {VARIANT_HELP['hand_size']}")
    print("\nhand sizes (players: tiles each):")
    for size, rows in HAND_SIZES.items():
        cells = ", ".join(f"{low}-{high}: {tiles}" if low != high else f"{low}: {tiles}" for low, high, tiles in rows)
        print(f"  double-{size:<3} {cells or 'no standard size; give hand_size'}")
    print("\npresets:")
    for name, preset in PRESETS.items():
        values = ", ".join(f"{key}={json.dumps(value)}" for key, value in preset.values.items()) or "(defaults)"
        print(f"  {name:<24} {values:<56} {preset.source}")
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    overrides = dict(_parse_rule(text) for text in args.rule)
    if args.set is not None:
        overrides.setdefault("set", args.set)
    rules = Rules.preset(args.preset, args.players, **overrides)
    strategies = args.strategy.split(",")
    unknown = [name for name in strategies if name not in ("random", "greedy")]
    if unknown:
        raise UsageError(f"unknown strategy: {unknown[0]!r} (expected random or greedy)")
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    scores = []
    for played in play_rounds(rules, args.seed, strategies):
        scores.append(round_score(played))
        if args.logs:
            log = moves_to_log(played.start, played.moves)
            (args.logs / f"round-{played.number:02d}.json").write_text(json.dumps(log, indent=1) + "\n")
    sheet = Scoresheet.from_rounds(rules, scores)
    print(sheet.to_text())
    if args.json:
        args.json.write_text(json.dumps(sheet.to_json(), indent=2) + "\n")
    if args.csv:
        args.csv.write_text(sheet.to_csv())
    return 0


def _parse_rule(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep:
        raise UsageError(f"invalid --rule: {text!r} (expected KEY=VALUE, e.g. first_turn=chain)")
    try:
        return key, json.loads(raw)
    except json.JSONDecodeError:
        return key, raw  # a bare word such as chain or anywhere


def _read_json(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{path} is not valid JSON: {error}") from None
    except RecursionError:
        raise UsageError(f"{path} is nested too deeply to read") from None


if __name__ == "__main__":
    sys.exit(main())
