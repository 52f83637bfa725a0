"""The verbs of playing and refereeing: ``referee``, ``rules``, ``simulate`` and ``serve``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from api.cli.common import UsageError
from api.parsing import output_file, output_folder
from engine import PRESETS, Rules, referee
from engine.game import play_rounds, round_score
from engine.referee import moves_to_log
from engine.rules import HAND_SIZES, VARIANT_HELP, VARIANTS
from engine.scoresheet import Scoresheet

if TYPE_CHECKING:
    from api.cli.common import AddVerb, Verbs


def add_referee(verbs: Verbs) -> None:
    ref = verbs.add_parser("referee", help="judge every event of a round's log (RULES.md 7)")
    ref.add_argument("log", help="the log, a JSON file ('-' reads stdin)")
    ref.add_argument("--compact", action="store_true", help="print the report on one line")
    ref.set_defaults(run=run_referee)


def add_rules(verbs: Verbs) -> None:
    rules = verbs.add_parser("rules", help="list the rule variants and presets")
    rules.add_argument("--json", action="store_true", help="print as JSON")
    rules.set_defaults(run=run_rules)


def add_simulate(verbs: Verbs) -> None:
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
    sim.add_argument("--json", type=output_file, metavar="FILE", help="also write the scoresheet as JSON")
    sim.add_argument("--csv", type=output_file, metavar="FILE", help="also write the scoresheet as CSV")
    sim.add_argument("--logs", type=output_folder, metavar="DIR", help="write each round's referee log to DIR")
    sim.set_defaults(run=run_simulate)


def add_serve(verbs: Verbs) -> None:
    serve = verbs.add_parser("serve", help="run the referee service and its page (FastAPI)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="default 8000")
    serve.add_argument(
        "--db", default=None, metavar="URL",
        help="sqlite:///FILE or postgresql://USER@HOST/DB (default: an SQLite file in the user's data folder, "
        "$XDG_DATA_HOME/hubcam or ~/.local/share/hubcam; hubcam serve says which on start)",
    )  # fmt: skip
    serve.add_argument(
        "--workers", type=int, default=1, help="worker processes (default 1; a room of tables: PostgreSQL and several)"
    )
    serve.add_argument("--public-url", default=None, metavar="URL", help="the address phones open (for the QR code)")
    serve.add_argument(
        "--profile", type=Path, default=None, metavar="FILE",
        help="a calibration profile of the camera the page uses (hubcam calibrate ... --out FILE): a slanted "
        "table read again square-on by its table part, its seats for tables and games that send none",
    )  # fmt: skip
    serve.set_defaults(run=run_serve)


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
    rules = _rules_for_table(args.preset, args.players, overrides)
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


def _rules_for_table(preset: str, players: int, overrides: dict[str, Any]) -> Rules:
    """The preset's rules for ``players`` seats; where its set has no standard hand size for them
    (RULES.md 1) and neither the set nor the hand size was given, the smallest set that has one."""
    from engine.rules import HandSizeRequired, standard_hand_size

    try:
        return Rules.preset(preset, players, **overrides)
    except HandSizeRequired as error:
        sets = [size for size in sorted(HAND_SIZES) if standard_hand_size(size, players) is not None]
        if "set" in overrides or "hand_size" in overrides or not sets:
            choices = " or ".join(f"--set {size}" for size in sets)
            raise UsageError(f"{error}: give {choices + ', or ' if sets else ''}--rule hand_size=N") from None
    print(f"note: {players} players need a larger set than the preset's; playing double-{sets[0]}", file=sys.stderr)
    return Rules.preset(preset, players, **overrides, set=sets[0])


def run_serve(args: argparse.Namespace) -> int:
    from api.db import DatabaseURLError, sqlite_url
    from api.serve import ServeError, serve
    from api.settings import data_folder

    if not 0 < args.port < 65536:
        raise UsageError(f"--port: expected 1 to 65535, got {args.port}")
    if args.workers < 1:
        raise UsageError(f"--workers: expected at least 1, got {args.workers}")
    if args.public_url is not None and not args.public_url.startswith(("http://", "https://")):
        raise UsageError(f"--public-url: expected an address like http://192.168.1.20:8000, got {args.public_url!r}")
    db_url = args.db or sqlite_url(data_folder())
    if args.profile is not None:
        from api.cli.read import Profiled

        Profiled.of(args.profile)  # refused here, with the reason, rather than in each worker
    try:
        serve(args.host, args.port, db_url, args.workers, args.public_url, args.profile)
    except DatabaseURLError as error:
        raise UsageError(f"--db: {error}") from None
    except ServeError as error:
        raise UsageError(str(error)) from None
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


VERBS: dict[str, AddVerb] = {
    "referee": add_referee,
    "rules": add_rules,
    "simulate": add_simulate,
    "serve": add_serve,
}
"""This room's verbs, each by the function that adds it to the parser."""
