"""The ``hubcam`` command: one verb per job. A thin shell: the work happens in engine/ and vision/.

Exit codes: 0 done; 1 some input could not be processed (the others were); 2 the
command or its input could not be read at all (the reason goes to stderr).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from api.parsing import Parser, output_file, output_folder, version
from engine import PRESETS, LogError, Rules, RulesError, referee
from engine.game import play_rounds, round_score
from engine.referee import moves_to_log
from engine.rules import HAND_SIZES, VARIANT_HELP, VARIANTS
from engine.scoresheet import Scoresheet

if TYPE_CHECKING:
    import numpy as np

    from vision.observation import Observation, Sighting
    from vision.table_analysis import TableAnalysis

MOST_TILT = 75.0
"""The steepest camera ``hubcam synth --tilt`` draws (degrees off vertical)."""


class UsageError(Exception):
    """Input the command cannot work with; printed on stderr, exit 2."""


EXTRA_SCENES = (
    ("--high-scenes", "pips: extra scenes dealt from double-15 and 18 sets only"),
    ("--bright-scenes", "pips, verifier, verdict: extra scenes whose sets all have a saturated body "
     "(CounterRecipe.bright_scenes, VerifierRecipe.bright_scenes; verdict: default, and given 0, its recipe's)"),
    ("--back-scenes", "pips: extra scenes with printed backs face down, taught as no count "
     "(CounterRecipe.back_scenes)"),
    ("--table-scenes", "pips: extra table scenes, whose tiles are smaller in the photo than a hand's "
     "(CounterRecipe.table_scenes)"),
    ("--standing-scenes", "verifier: extra scenes with standing tiles seen from lower down "
     "(VerifierRecipe.standing_scenes)"),
)  # fmt: skip
"""``hubcam train``'s counts of extra scenes of one kind or another, and what each is (its help)."""


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
    except OSError as error:  # a write refused after the paths were checked (a full disk, say)
        print(f"hubcam {args.command}: error: {error}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="hubcam", description="A computer-vision assistant for Mexican Train.")
    parser.add_argument("--version", action="version", version=f"hubcam {version()}")
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
    sim.add_argument("--json", type=output_file, metavar="FILE", help="also write the scoresheet as JSON")
    sim.add_argument("--csv", type=output_file, metavar="FILE", help="also write the scoresheet as CSV")
    sim.add_argument("--logs", type=output_folder, metavar="DIR", help="write each round's referee log to DIR")
    sim.set_defaults(run=run_simulate)

    synth = verbs.add_parser("synth", help="render synthetic table photos with exact labels")
    synth.add_argument("--kind", choices=["hand", "table"], required=True, help="hands of tiles, or tables in play")
    synth.add_argument("--n", type=int, required=True, help="how many images")
    synth.add_argument("--seed", type=int, default=0, help="set seed (default 0): same seed, same images")
    synth.add_argument("--out", type=output_folder, required=True, help="folder to write (re-running resumes)")
    synth.add_argument("--size", default="1280x960", help="image size WIDTHxHEIGHT (default 1280x960)")
    synth.add_argument("--workers", type=int, default=2, help="processes rendering in parallel (default 2)")
    synth.add_argument(
        "--bright-sets", type=float, default=None, metavar="SHARE",
        help="share of sets with a saturated body and pips of one colour (default: the generator's, 0.15)",
    )  # fmt: skip
    synth.add_argument(
        "--printed-backs", type=float, default=None, metavar="SHARE",
        help="share of sets with letters printed on their backs (default: the generator's, 0.3)",
    )  # fmt: skip
    synth.add_argument(
        "--makers", choices=["usual", "training", "unseen"], default="usual",
        help="pip layouts and shapes: the usual maker's (generator 13's), every maker's a counter may learn "
        "(datasets.synth.scene.MAKERS), or layouts held out of training (UNSEEN_MAKERS)",
    )  # fmt: skip
    synth.add_argument(
        "--tilt", default=None, metavar="LOW-HIGH",
        help="degrees off vertical every camera is tilted, e.g. 45-65 for a steep set (default: the "
        "generator's, up to 45, one in five nearly straight down)",
    )  # fmt: skip
    synth.set_defaults(run=run_synth)

    export = verbs.add_parser("export", help="export labelled images for training")
    export.add_argument(
        "format", choices=["yolo-obb", "crops"], help="an Ultralytics OBB dataset, or tile and half crops"
    )
    export.add_argument("sources", nargs="+", type=Path, help="folders of labelled images (synthetic sets, real sets)")
    export.add_argument("--out", type=output_folder, required=True, help="folder to write")
    export.add_argument("--val", type=float, default=0.1, help="share of images for validation (yolo-obb)")
    export.set_defaults(run=run_export)

    score = verbs.add_parser("score", help="read the tiles in hand photos and total their pips")
    score.add_argument(
        "photos", nargs="+", type=Path, help="JPEG or PNG photos, or folders of them (each photo directly inside)"
    )
    score.add_argument("--json", action="store_true", help="one JSON line per photo")
    score.add_argument("--overlay", type=output_folder, metavar="DIR", help="write each photo with its tiles drawn on")
    score.add_argument(
        "--set", type=int, choices=[6, 9, 12, 15, 18], default=None,
        help="the set's highest double (default: the smallest set that holds every count read with confidence)",
    )  # fmt: skip
    score.add_argument("--timings", action="store_true", help="add time per stage (ms)")
    score.set_defaults(run=run_score)

    analyze = verbs.add_parser("analyze", help="read a table in play: hub, engine, trains, lines of play and flags")
    analyze.add_argument(
        "photos", nargs="+", type=Path, help="JPEG or PNG photos, or folders of them (each photo directly inside)"
    )
    analyze.add_argument("--json", action="store_true", help="one JSON line per photo")
    analyze.add_argument(
        "--overlay", type=output_folder, metavar="DIR", help="write each photo with its trains drawn on"
    )
    analyze.add_argument(
        "--set", type=int, choices=[6, 9, 12, 15, 18], default=None,
        help="the set's highest double (default: judged from the photo; then no tile is flagged out_of_set)",
    )  # fmt: skip
    analyze.add_argument(
        "--seats", type=Path, metavar="FILE",
        help='who owns each slot: JSON {"slots": {"<angle>": seat, ...}, "mexican": <angle>} (default: owners null)',
    )  # fmt: skip
    analyze.add_argument("--timings", action="store_true", help="add time per stage (ms)")
    analyze.set_defaults(run=run_analyze)

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
    serve.set_defaults(run=run_serve)

    train = verbs.add_parser("train", help="train a model (needs the train extra: make train-deps)")
    train.add_argument(
        "model", choices=["detector", "pips", "verifier", "refiner", "verdict"],
        help="the tile detector, pip counter, tile verifier or box refiner; verdict: the refiner taught to say "
        "whether its box is one tile (a head on its features, in the verifier's place: models.train.verdict)",
    )  # fmt: skip
    train.add_argument("--sets", type=Path, nargs="*", default=[], help="detector: synthetic sets to train on")
    train.add_argument("--epochs", type=int, default=None, help="training epochs (default: the recipe's)")
    train.add_argument("--imgsz", type=int, default=None, help="detector: input size (default: the recipe's)")
    train.add_argument("--hours", type=float, default=None, help="detector: stop after this long")
    train.add_argument(
        "--halved-view", action="store_true",
        help="detector: learn images averaged down by halves first, as it will then see photos (Recipe.halved_view)",
    )  # fmt: skip
    train.add_argument("--scenes", type=int, default=None, help="pips, verifier, refiner: synthetic scenes to render")
    for flag, what in EXTRA_SCENES:
        train.add_argument(flag, type=int, default=0, help=what)
    train.add_argument("--seed", type=int, default=None, help="default: the recipe's")
    train.add_argument(
        "--glossy", type=float, default=0.0,
        help="pips: share of halves taught under a specular reflection (CounterRecipe.glossy)",
    )  # fmt: skip
    train.add_argument(
        "--half-px", type=int, default=None,
        help="pips: the side of a half as the counter sees it (default 48; CounterRecipe.half_px)",
    )  # fmt: skip
    train.add_argument(
        "--max-lr", type=float, default=None,
        help="pips, verifier, refiner: the one-cycle schedule's peak learning rate (default: the recipe's); detector: "
        "AdamW's, with no warm-up, for a gentle run from earlier weights (Recipe.lr0; default: Ultralytics' choice)",
    )  # fmt: skip
    train.add_argument(
        "--widths", type=channel_widths, default=None, help="verifier, pips: the network's channels, e.g. 8,16,32,48"
    )
    train.add_argument(
        "--strided-stem", action="store_true",
        help="pips: the first convolution steps two pixels instead of pooling after (faster; "
        "models.train.smallnet.small_cnn)",
    )  # fmt: skip
    train.add_argument(
        "--peaks", action="store_true",
        help="pips: a counter that maps where pips are and counts the map's peaks (CounterRecipe.peaks)",
    )  # fmt: skip
    train.add_argument(
        "--makers", action="store_true",
        help="pips: draw every scene with every maker's look: layout families (scattered pips among "
        "them), pip shapes, grey photos (CounterRecipe.makers)",
    )  # fmt: skip
    train.add_argument(
        "--printed-backs", type=float, default=None, metavar="SHARE",
        help="verifier: the share of sets with printed backs in its usual scenes (default: the "
        "generator's; VerifierRecipe.printed_backs)",
    )  # fmt: skip
    train.add_argument(
        "--face-down", action="store_true",
        help="verifier: boxes round face-down tiles are among what is not a tile (VerifierRecipe.face_down)",
    )  # fmt: skip
    train.add_argument(
        "--proposals-from", type=Path, metavar="ONNX",
        help="verifier: the detector whose proposals it learns from (default the bundled one)",
    )  # fmt: skip
    train.add_argument(
        "--resume", action="store_true",
        help="go on from the last checkpoint (detector: its last.pt; pips, verifier, refiner: the checkpoint.pt "
        "an unfinished run left in its model folder)",
    )  # fmt: skip
    train.add_argument(
        "--start-from", type=Path, metavar="WEIGHTS",
        help="detector: a new run starting from these weights (a finished run's last.pt, or an exported "
        "model.onnx, rebuilt into trainable weights), not from nothing; pips, verifier, refiner: its model.onnx; "
        "verdict: the refiner to teach (default the bundled one)",
    )  # fmt: skip
    train.add_argument(
        "--out", type=output_folder,
        help="model folder (default models/tile-detector, pip-counter, tile-verifier or box-refiner; verdict: "
        "box-refiner)",
    )  # fmt: skip
    train.set_defaults(run=run_train)

    ev = verbs.add_parser("eval", help="measure a pipeline on labelled photos, real or synthetic")
    source = ev.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--real", nargs="?", const="", metavar="DIR", help="the labelled real photos (default ../shared/real)"
    )
    source.add_argument("--set", type=Path, metavar="DIR", help="a folder of labelled images (e.g. a synthetic set)")
    ev.add_argument(
        "--pipeline",
        choices=["hubcam", "hubcam-unverified", "hubcam-unrefined", "baseline", "pips-on-true-corners", "table"],
        default="hubcam",
        help=(
            "what to run (default hubcam); hubcam-unverified: without the tile verifier (the detector's boxes as "
            "it keeps them alone); hubcam-unrefined: without the box refiner (pips read from the boxes as kept); "
            "pips-on-true-corners: the pip reader alone, on the labelled corners; table: hubcam analyze (hub, "
            "engine, trains, lines of play and flags scored too)"
        ),
    )
    ev.add_argument("--predictions", type=Path, help="read predictions (JSON lines, as hubcam score --json) instead")
    ev.add_argument(
        "--counter", type=Path, metavar="ONNX", help="a pip counter to run instead of the bundled one (a candidate)"
    )
    ev.add_argument(
        "--detector", type=Path, metavar="ONNX", help="a tile detector to run instead of the bundled one (a candidate)"
    )
    ev.add_argument(
        "--verifier",
        type=Path,
        metavar="ONNX",
        help="a tile verifier to run in place of the bundled refiner's verdict (a candidate, or models/tile-verifier)",
    )
    ev.add_argument(
        "--refiner", type=Path, metavar="ONNX", help="a box refiner to run instead of the bundled one (a candidate)"
    )
    ev.add_argument("--out", type=output_folder, help="report folder (default out/eval/<name>)")
    ev.add_argument("--limit", type=int, help="only the first N images")
    ev.add_argument("--worst", type=int, default=12, help="images in the overlay contact sheet (default 12)")
    ev.set_defaults(run=run_eval)
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


def run_synth(args: argparse.Namespace) -> int:
    from datasets.synth.dataset import CONTACT_SHEET, write_set
    from datasets.synth.scene import FULL, MAKERS, UNSEEN_MAKERS

    size = _parse_size(args.size)
    if args.n < 1:
        raise UsageError(f"invalid --n: {args.n} (expected at least 1)")
    options = {"usual": FULL, "training": MAKERS, "unseen": UNSEEN_MAKERS}[args.makers]
    for flag, share in (("bright_sets", args.bright_sets), ("printed_backs", args.printed_backs)):
        if share is not None:
            if not 0 <= share <= 1:
                raise UsageError(f"--{flag.replace('_', '-')} is a share of sets, 0 to 1 (got {share})")
            options = dataclasses.replace(options, **{flag: share})
    if args.tilt is not None:
        low, high = _parse_tilt(args.tilt)
        options = dataclasses.replace(options, min_tilt_deg=low, max_tilt_deg=high)
    try:
        names = write_set(args.kind, args.n, args.seed, args.out, size, workers=max(1, args.workers), options=options)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(f"{len(names)} {args.kind} images with labels in {args.out} (contact sheet: {args.out / CONTACT_SHEET})")
    return 0


def _parse_tilt(text: str) -> tuple[float, float]:
    """``--tilt LOW-HIGH`` as degrees off vertical; beyond MOST_TILT a camera sees the table's edge on."""
    try:
        low, high = (float(part) for part in text.split("-"))
    except ValueError:
        raise UsageError(f"invalid --tilt: {text!r} (expected LOW-HIGH in degrees, e.g. 45-65)") from None
    if not 0 < high <= MOST_TILT or not 0 <= low <= high:
        raise UsageError(f"invalid --tilt: {text!r} (expected 0 <= LOW <= HIGH, 0 < HIGH <= {MOST_TILT:g})")
    return low, high


def run_export(args: argparse.Namespace) -> int:
    from datasets.real import LabelError, load_folder
    from datasets.synth.dataset import export_crops, export_yolo_obb

    try:
        labels = [label for folder in args.sources for label in load_folder(folder)]
    except LabelError as error:
        raise UsageError(str(error)) from None
    if not labels:
        raise UsageError(f"no labelled images (*.gt.json) in {', '.join(map(str, args.sources))}")
    if args.format == "yolo-obb":
        print(f"wrote {export_yolo_obb(labels, args.out, args.val)}")
    else:
        print(f"wrote {export_crops(labels, args.out)}")
    return 0


def run_eval(args: argparse.Namespace) -> int:
    from datasets.real import LabelError, load_folder, pip_labelled, real_root
    from benchmarks.eval.run import evaluate, read_predictions

    try:
        if args.set is not None:
            labels, name = load_folder(args.set), args.set.name
        else:
            root = real_root(Path(args.real) if args.real else None)
            if root is None:
                raise UsageError(f"no real photos at {args.real or '../shared/real'}")
            labels, name = pip_labelled(root), "real"
    except LabelError as error:
        raise UsageError(str(error)) from None
    if not labels:
        raise UsageError("no labelled images to evaluate")
    labels = labels[: args.limit] if args.limit else labels
    out = args.out or Path("out") / "eval" / f"{name}-{args.pipeline if not args.predictions else 'predictions'}"
    if args.predictions:
        try:
            predictions = read_predictions(args.predictions)
        except (OSError, ValueError) as error:
            raise UsageError(str(error)) from None
        report = evaluate(labels, out, predictions=predictions, title=f"predictions on {name}", worst=args.worst)
    else:
        roles = (
            ("counter", args.counter),
            ("detector", args.detector),
            ("verifier", args.verifier),
            ("refiner", args.refiner),
        )
        models = {role: path for role, path in roles if path}
        report = evaluate(
            labels, out, pipeline=_pipeline(args.pipeline, models), title=f"{args.pipeline} on {name}", worst=args.worst
        )
    print((out / "summary.md").read_text())
    print(f"report: {out}/summary.md, per_image.csv, worst.jpg")
    return 0 if report["images"] else 1


def _pipeline(name: str, models: dict[str, Path]) -> Any:
    """The pipeline called ``name``, with ``models`` (``counter``, ``detector``, ``verifier``, ``refiner``: ONNX
    paths) for the bundled ones."""
    if name == "baseline":
        if models:
            raise UsageError(
                "the baseline runs no models: --counter, --detector, --verifier and --refiner are for hubcam's"
            )
        from benchmarks.eval.baseline import read_tiles

        return read_tiles
    from benchmarks.eval.oracle import PipsOnTrueCorners
    from vision.pipeline import HandScorer

    if name == "pips-on-true-corners":
        if {"detector", "verifier", "refiner"} & set(models):
            raise UsageError(
                "pips-on-true-corners reads the labelled corners: it runs no detector, verifier or refiner"
            )
        return _with_models(PipsOnTrueCorners, **models)
    if name == "table":
        from vision.table_reader import TableReader

        return _with_models(TableReader, **models)
    if name == "hubcam-unverified":
        if "verifier" in models:
            raise UsageError("hubcam-unverified runs no verifier: --verifier is for the pipelines with one")
        return _with_models(HandScorer, verifier=None, **models)
    if name == "hubcam-unrefined":
        if "refiner" in models:
            raise UsageError("hubcam-unrefined runs no refiner: --refiner is for the pipelines with one")
        return _with_models(HandScorer, refiner=None, **models)
    return _with_models(HandScorer, **models)


def _with_models(factory: Any, **options: Any) -> Any:
    """Build a model-backed pipeline; missing models are a usage error that says how to make them."""
    try:
        return factory(**options)
    except FileNotFoundError as error:
        raise UsageError(f"{error} (train one: hubcam train detector / pips / verifier / refiner)") from None
    except ValueError as error:  # a refiner with no verdict of its own, and no verifier given
        raise UsageError(f"{error} (--verifier ONNX, or teach it: hubcam train verdict --start-from ONNX)") from None


def run_analyze(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.draw import MAGENTA, RED, banner, draw_layout, draw_markers, draw_tile, thickness_for
    from vision.table_analysis import Seats, TableAnalysis
    from vision.table_reader import TableReader

    seats = None
    if args.seats is not None:
        try:
            seats = Seats.from_json(json.loads(args.seats.read_text()))
        except (OSError, ValueError) as error:
            raise UsageError(f"--seats {args.seats}: {error}") from None
    reader = _with_models(TableReader, highest=args.set)
    if args.overlay:
        args.overlay.mkdir(parents=True, exist_ok=True)
    failed, overlays = 0, set[str]()
    for path, image, decode_ms in readable_photos(args.photos, args.json, "analyzing"):
        if image is None:
            failed += 1
            continue
        seen = reader(image).with_decode(decode_ms)
        analysis = TableAnalysis.of(seen, str(path), seats, args.timings)
        print(json.dumps(analysis.to_json()) if args.json else analysis_text(analysis))
        if args.overlay and seen.layout is not None:
            thickness = thickness_for(image)
            for tile in seen.tiles:
                draw_tile(image, tile.corners, overlay_text(tile), RED if tile.uncertain else MAGENTA, thickness)
            layout = seen.layout
            centres = np.array([tile.corners.mean(axis=0) for tile in seen.tiles]).reshape(-1, 2)
            hub = None if layout.hub is None else (layout.hub.centre, layout.hub.radius)
            draw_layout(image, centres, hub, [t.tile_ids for t in layout.trains], layout.engine, thickness)
            draw_markers(image, [m.corners for m in seen.markers], [m.train for m in analysis.markers], thickness)
            flags = len(analysis.flags)
            banner(image, f"{len(layout.trains)} trains, {flags} {'flag' if flags == 1 else 'flags'}", thickness)
            cv2.imwrite(str(args.overlay / overlay_name(path, overlays)), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return 1 if failed else 0


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
    try:
        serve(args.host, args.port, db_url, args.workers, args.public_url)
    except DatabaseURLError as error:
        raise UsageError(f"--db: {error}") from None
    except ServeError as error:
        raise UsageError(str(error)) from None
    return 0


def readable_photos(
    paths: Sequence[Path], as_json: bool, doing: str
) -> Iterable[tuple[Path, np.ndarray | None, float]]:
    """Each photo, decoded, with the milliseconds that took; an unreadable one reported (as JSON with
    ``as_json``) and given as None, so that the others are still answered."""
    import time

    from vision.photo import PhotoError, read_photo

    for path in with_progress(photos_in(paths), doing):
        start = time.perf_counter()
        try:
            if path.is_dir():  # only a folder with no photo in it is left as a folder
                raise PhotoError(f"{path} is a folder with no JPEG or PNG photo in it")
            image = read_photo(path)
        except PhotoError as error:
            print(json.dumps({"image": str(path), "error": str(error)}) if as_json else f"{path}: error: {error}")
            yield path, None, 0.0
            continue
        yield path, image, (time.perf_counter() - start) * 1000


def analysis_text(analysis: TableAnalysis) -> str:
    """``hubcam analyze``'s table: the hub and engine, each train from the hub out, lines of play,
    loose tiles and the flags, as the JSON has them; a tile read but left out as uncertain has a "?"
    after its pips, as ``hubcam score`` writes it."""

    def pips(pair: Sequence[int] | None) -> str:
        return "?" if pair is None else f"{pair[0]}-{pair[1]}"

    def reading(tile: Sighting) -> str:
        return pips(tile.pips) + ("?" if tile.pips is not None and tile.uncertain else "")

    hub = "not seen, engine unknown" if analysis.hub is None else f"seen, the engine {pips(analysis.engine)}"
    lines = [f"{analysis.image}: {len(analysis.tiles)} tiles, hub {hub}"]
    for number, train in enumerate(analysis.trains):
        owner = (
            ""
            if train.owner is None
            else f" ({'Mexican train' if train.owner == 'mexican' else 'seat ' + str(train.owner)})"
        )
        played = " ".join(pips(pair) for pair in train.pips)
        marker = ", its marker out" if train.marker else ""
        lines.append(f"  train {number + 1} at {train.slot_angle:.0f} deg{owner}{marker}: {played}")
    for chain in analysis.chains:
        lines.append("  line of play: " + " ".join(pips(pair) for pair in chain.pips))
    if analysis.loose:
        lines.append("  loose: " + ", ".join(reading(analysis.tiles[index]) for index in analysis.loose))
    for flag in analysis.flags:
        lines.append(f"  ! {flag.kind.value}: {flag.message}")
    if analysis.timings_ms is not None:
        lines.append("  " + ", ".join(f"{stage} {ms:.1f} ms" for stage, ms in analysis.timings_ms.items()))
    return "\n".join(lines)


def run_score(args: argparse.Namespace) -> int:
    import cv2

    from vision.draw import MAGENTA, RED, banner, draw_tile, thickness_for
    from vision.observation import Reason
    from vision.pipeline import HandScorer

    scorer = _with_models(HandScorer, highest=args.set)
    if args.overlay:
        args.overlay.mkdir(parents=True, exist_ok=True)
    failed = 0
    overlays: set[str] = set()
    for path, image, decode_ms in readable_photos(args.photos, args.json, "scoring"):
        if image is None:
            failed += 1
            continue
        seen = scorer(image).with_decode(decode_ms)
        if seen.over_set:
            print(
                f"hubcam score: warning: {path}: {seen.over_set} tiles read surely as more pips than double-{args.set} "
                "holds: is the set larger?",
                file=sys.stderr,
            )
        if args.json:
            print(json.dumps(seen.to_json(str(path), args.timings)))
        else:
            print(score_text(str(path), seen, args.timings))
        if args.overlay:
            thickness = thickness_for(image)
            for tile in seen.tiles:
                text = overlay_text(tile)
                draw_tile(image, tile.corners, text, RED if tile.uncertain else MAGENTA, thickness)
            for tile in seen.cut_by_frame:
                draw_tile(image, tile.corners, f"? {Reason.BEYOND_FRAME.word}", RED, thickness)
            unsure = len(seen.uncertain) + len(seen.cut_by_frame)
            summary = f"total {seen.total}" + (f", {unsure} uncertain (red, not counted)" if unsure else "")
            banner(image, summary, thickness)
            name = overlay_name(path, overlays)
            cv2.imwrite(str(args.overlay / name), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return 1 if failed else 0


def overlay_text(tile: Sighting) -> str:
    """What an overlay writes on a tile: its pips, or for one left out as uncertain "?" and its reason in a word."""
    if tile.reason is not None:
        return f"? {tile.reason.word}"
    return "?" if tile.pips is None else f"{tile.pips[0]}-{tile.pips[1]}"


def with_progress(photos: list[Path], doing: str = "scoring") -> Iterable[Path]:
    """The photos, with a progress bar on stderr where the results go to a file or a pipe but a person
    watches the terminal (in the terminal the results themselves show the progress)."""
    from tqdm import tqdm

    watched = sys.stderr.isatty() and not sys.stdout.isatty()
    return tqdm(photos, desc=doing, unit="photo", file=sys.stderr, disable=not watched or len(photos) < 2)


def photos_in(paths: Sequence[Path]) -> list[Path]:
    """The photos to score: each path as given, but a folder as the JPEG and PNG files directly in it
    (by name; hidden ones left out), in name order. A folder with none stays itself, to be reported."""
    from vision.photo import PHOTO_SUFFIXES

    photos: list[Path] = []
    for path in paths:
        inside = sorted(
            entry for entry in path.iterdir()
            if entry.suffix.lower() in PHOTO_SUFFIXES and entry.is_file() and not entry.name.startswith(".")
        ) if path.is_dir() else []  # fmt: skip
        photos.extend(inside or [path])
    return photos


def overlay_name(path: Path, taken: set[str]) -> str:
    """``<stem>.overlay.jpg``, or ``<stem>-2.overlay.jpg`` and so on where photos of the same name (in
    other folders) came before: no overlay overwrites another of the same run. Adds the name to ``taken``."""
    name, copy = f"{path.stem}.overlay.jpg", 1
    while name in taken:
        copy += 1
        name = f"{path.stem}-{copy}.overlay.jpg"
    taken.add(name)
    return name


def score_text(image: str, seen: Observation, timings: bool = False) -> str:
    """``hubcam score``'s table: a tile per line, as the JSON has it: the pips read (with "?" where
    nothing was read, or after a reading left out as uncertain), its confidence and why it is not counted."""
    from vision.observation import Reason

    lines = [f"{image}: {len(seen.tiles)} tiles, total {seen.total}"]
    for index, tile in enumerate(seen.tiles):
        reading = "?" if tile.pips is None else f"{tile.pips[0]}-{tile.pips[1]}" + ("?" if tile.uncertain else "")
        notes = ""
        if tile.reason is not None:
            twin = seen.twin_of(index)
            why = tile.reason.message if twin is None else f"read like the surer tile {twin + 1}"
            notes = f" (uncertain: {why}, not counted)"
        if tile.cut and tile.reason is not Reason.BEYOND_FRAME:
            notes += " (cut by the frame)"
        lines.append(f"  {index + 1:>2}. {reading:<6} confidence {tile.confidence:.2f}{notes}")
    if seen.cut_by_frame:
        cut = len(seen.cut_by_frame)
        lines.append(
            f"  and {cut} {'tile' if cut == 1 else 'tiles'} cut by the frame, not counted: a wider photo shows them"
        )
    if timings:
        lines.append("  " + ", ".join(f"{stage} {ms:.1f} ms" for stage, ms in seen.timings_ms.items()))
    return "\n".join(lines)


def trained(export: Callable[..., dict[str, Any]], out_dir: Path, recipe: Any, resume: bool) -> int:
    """Train one of the small networks (``export``: its trainer's ``train_and_export``) and print its card."""
    try:
        card = export(out_dir, recipe, resume=resume)
    except (FileExistsError, FileNotFoundError, ValueError) as error:  # a checkpoint, no data, no model to start from
        raise UsageError(str(error)) from None
    print(json.dumps(card, indent=2))
    return 0


def channel_widths(text: str) -> tuple[int, ...]:
    try:
        widths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected channel counts like 8,16,32,48, got {text!r}") from None
    if len(widths) < 2 or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"expected at least two positive channel counts, got {text!r}")
    return widths


def check_scene_counts(args: argparse.Namespace, *options: str) -> None:
    """Each of ``options`` (``--back-scenes`` ...) a number of extra scenes: 0 or more."""
    for option in options:
        count = getattr(args, option.removeprefix("--").replace("-", "_"))
        if count < 0:
            raise UsageError(f"{option} is a number of scenes, 0 or more (got {count})")


def run_train(args: argparse.Namespace) -> int:
    check_scene_counts(args, *(flag for flag, _ in EXTRA_SCENES))
    if args.max_lr is not None and not 0 < args.max_lr <= 1:
        raise UsageError(f"--max-lr is a learning rate, above 0 and at most 1 (got {args.max_lr})")
    try:
        if args.model == "pips":
            from models.train.counter import PEAK_WIDTHS, CounterRecipe, train_and_export
        elif args.model == "verifier":
            from models.train.verifier import VerifierRecipe
        elif args.model == "refiner":
            from models.train.refiner import RefinerRecipe
        elif args.model == "verdict":
            from models.train.verdict import VerdictRecipe
        else:
            from models.train.detector import Recipe
    except ImportError as error:
        raise UsageError(f"training needs the train extra ({error.name} is missing): make train-deps") from None
    if args.model == "pips":
        if not 0 <= args.glossy <= 1:
            raise UsageError(f"--glossy is a share of halves, 0 to 1 (got {args.glossy})")
        if args.half_px is not None and not 16 <= args.half_px <= 128:
            raise UsageError(f"--half-px is a half's side in pixels, 16 to 128 (got {args.half_px})")
        recipe = CounterRecipe(
            scenes=CounterRecipe.scenes if args.scenes is None else args.scenes,
            high_scenes=args.high_scenes,
            epochs=args.epochs or CounterRecipe.epochs,
            seed=CounterRecipe.seed if args.seed is None else args.seed,
            glossy=args.glossy,
            half_px=args.half_px or CounterRecipe.half_px,
            widths=args.widths or (PEAK_WIDTHS if args.peaks else CounterRecipe.widths),
            strided_stem=args.strided_stem,
            makers=args.makers,
            peaks=args.peaks,
            bright_scenes=args.bright_scenes,
            back_scenes=args.back_scenes,
            table_scenes=args.table_scenes,
            start_from=str(args.start_from or ""),
            max_lr=args.max_lr or CounterRecipe.max_lr,
        )
        return trained(train_and_export, args.out or Path("models/pip-counter"), recipe, args.resume)
    if args.model == "verifier":
        from models.train import verifier as train_verifier

        if args.printed_backs is not None and not 0 <= args.printed_backs <= 1:
            raise UsageError(f"--printed-backs is a share of sets, 0 to 1 (got {args.printed_backs})")
        verifier_recipe = VerifierRecipe(
            scenes=args.scenes or VerifierRecipe.scenes,
            epochs=args.epochs or VerifierRecipe.epochs,
            seed=VerifierRecipe.seed if args.seed is None else args.seed,
            widths=args.widths or VerifierRecipe.widths,
            standing_scenes=args.standing_scenes,
            bright_scenes=args.bright_scenes,
            printed_backs=args.printed_backs,
            face_down=args.face_down,
            start_from=str(args.start_from or ""),
            proposals_from=str(args.proposals_from or ""),
            max_lr=args.max_lr or VerifierRecipe.max_lr,
        )
        return trained(
            train_verifier.train_and_export, args.out or Path("models/tile-verifier"), verifier_recipe, args.resume
        )
    if args.model == "refiner":
        from models.train import refiner as train_refiner

        refiner_recipe = RefinerRecipe(
            scenes=args.scenes or RefinerRecipe.scenes,
            epochs=args.epochs or RefinerRecipe.epochs,
            seed=RefinerRecipe.seed if args.seed is None else args.seed,
            max_lr=args.max_lr or RefinerRecipe.max_lr,
            start_from=str(args.start_from or ""),
        )
        return trained(
            train_refiner.train_and_export, args.out or Path("models/box-refiner"), refiner_recipe, args.resume
        )
    if args.model == "verdict":
        from models.train import verdict as train_verdict

        verdict_recipe = VerdictRecipe(
            scenes=args.scenes or VerdictRecipe.scenes,
            bright_scenes=args.bright_scenes or VerdictRecipe.bright_scenes,
            epochs=args.epochs or VerdictRecipe.epochs,
            seed=VerdictRecipe.seed if args.seed is None else args.seed,
            max_lr=args.max_lr or VerdictRecipe.max_lr,
            refiner=str(args.start_from or ""),
        )
        return trained(
            train_verdict.train_and_export, args.out or Path("models/box-refiner"), verdict_recipe, args.resume
        )
    if not args.sets:
        raise UsageError("give the synthetic sets to train on: --sets DIR [DIR ...]")
    from benchmarks.eval.cards import add_real_metrics
    from models.train.detector import train_detector

    seed = Recipe.seed if args.seed is None else args.seed
    recipe = Recipe(
        epochs=args.epochs or Recipe.epochs,
        imgsz=args.imgsz or Recipe.imgsz,
        seed=seed,
        lr0=args.max_lr,
        halved_view=args.halved_view,
    )
    try:
        card = train_detector(
            args.sets, args.out or Path("models/tile-detector"), recipe, args.hours, args.resume, args.start_from
        )
    except (ValueError, FileNotFoundError) as error:  # no such set or weights, an unreadable label, an empty set
        raise UsageError(str(error)) from None
    out_dir = args.out or Path("models/tile-detector")
    if add_real_metrics(out_dir) is not None:  # measured on the real photos, recorded in the card
        card = json.loads((out_dir / "card.json").read_text())
    print(json.dumps(card, indent=2))
    return 0


def _parse_size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if (
        not sep
        or not width.isdigit()
        or not height.isdigit()
        or not (64 <= int(width) <= 8192 and 64 <= int(height) <= 8192)
    ):
        raise UsageError(f"invalid --size: {text!r} (expected WIDTHxHEIGHT, e.g. 1280x960)")
    return int(width), int(height)


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
