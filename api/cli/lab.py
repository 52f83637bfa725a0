"""The lab's verbs that make and measure data: ``synth``, ``export`` and ``eval``. The lab's packages
(datasets, benchmarks.eval) are imported only inside the functions that run these verbs, so that the
other verbs never load them."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from api.cli.common import UsageError
from api.cli.pipelines import Models, hand_scorer, models_at_hand, table_reader
from api.parsing import output_folder

if TYPE_CHECKING:
    from api.cli.common import AddVerb, Verbs
    from benchmarks.eval.oracle import PipsOnTrueCorners
    from benchmarks.eval.run import Pipeline
    from datasets.synth.options import SceneOptions


MOST_TILT = 75.0
"""The steepest camera ``hubcam synth --tilt`` draws (degrees off vertical)."""


MOST_PER_ROUND = 20
"""``hubcam synth --kind frames --per-round``: more states than this of one round add little."""


NO_PEAKS = "none"
"""``--peaks none``: the counter read alone, no pip-peak counter asked."""


def peaks_model(text: str) -> Path | str:
    return NO_PEAKS if text.lower() == NO_PEAKS else Path(text)


def add_synth(verbs: Verbs) -> None:
    synth = verbs.add_parser("synth", help="render synthetic table photos (or videos of play) with exact labels")
    synth.add_argument(
        "--kind", choices=["hand", "table", "video", "frames"], required=True,
        help="hands of tiles, tables in play, videos of a round being played (ground truth per event), or "
        "those videos' frames as hubcam watch shows them to the table detector (--n rounds)",
    )  # fmt: skip
    synth.add_argument("--n", type=int, required=True, help="how many images (videos)")
    synth.add_argument("--seed", type=int, default=0, help="set seed (default 0): same seed, same images")
    synth.add_argument("--out", type=output_folder, required=True, help="folder to write (re-running resumes)")
    synth.add_argument(
        "--size", default=None, help="image size WIDTHxHEIGHT (default 1280x960; videos 1280x720)"
    )  # fmt: skip
    synth.add_argument("--players", type=int, default=None, help="videos: seats at the table, 2-6 (default: drawn)")
    synth.add_argument(
        "--plays", type=int, default=None, help="videos: tiles laid before the video stops (default: drawn, 15-30)"
    )  # fmt: skip
    synth.add_argument(
        "--per-round", type=int, default=None, metavar="K",
        help=f"frames: states of the table photographed per round, 1-{MOST_PER_ROUND} (default 3)",
    )  # fmt: skip
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
    synth.add_argument(
        "--gaps", default=None, metavar="LOW-HIGH",
        help="tables: millimetres between a train's tiles, e.g. 2-6 (default 0-1.5: pushed together by hand)",
    )  # fmt: skip
    synth.add_argument(
        "--double-shift", type=float, default=None, metavar="SHARE",
        help="tables: how far a crosswise double may sit off its train's line, a share of its length (default 0)",
    )  # fmt: skip
    synth.add_argument(
        "--busy", type=float, default=None, metavar="SHARE",
        help="share of busy tables: a printed game board, pictures of dominoes, a box lid, a score pad, cards "
        "and coins, none labelled (default 0)",
    )  # fmt: skip
    synth.set_defaults(run=run_synth)


def add_export(verbs: Verbs) -> None:
    export = verbs.add_parser("export", help="export labelled images for training")
    export.add_argument(
        "format", choices=["yolo-obb", "crops"], help="an Ultralytics OBB dataset, or tile and half crops"
    )
    export.add_argument("sources", nargs="+", type=Path, help="folders of labelled images (synthetic sets, real sets)")
    export.add_argument("--out", type=output_folder, required=True, help="folder to write")
    export.add_argument("--val", type=float, default=0.1, help="share of images for validation (yolo-obb)")
    export.set_defaults(run=run_export)


def add_eval(verbs: Verbs) -> None:
    ev = verbs.add_parser("eval", help="measure a pipeline on labelled photos, real or synthetic")
    source = ev.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--real", nargs="?", const="", metavar="DIR", help="the labelled real photos (default ../shared/real)"
    )
    source.add_argument("--set", type=Path, metavar="DIR", help="a folder of labelled images (e.g. a synthetic set)")
    ev.add_argument(
        "--pipeline",
        choices=[
            "hubcam",
            "hubcam-unverified",
            "hubcam-unrefined",
            "baseline",
            "pips-on-true-corners",
            "table",
            "table-square-on",
        ],
        default="hubcam",
        help=(
            "what to run (default hubcam); hubcam-unverified: without the tile verifier (the detector's boxes as "
            "it keeps them alone); hubcam-unrefined: without the box refiner (pips read from the boxes as kept); "
            "pips-on-true-corners: the pip reader alone, on the labelled corners; table: hubcam analyze (hub, "
            "engine, trains, lines of play and flags scored too); table-square-on: the same, a slanted photo read "
            "again on the table redrawn square-on by its own hub's plane"
        ),
    )
    ev.add_argument("--predictions", type=Path, help="read predictions (JSON lines, as hubcam score --json) instead")
    ev.add_argument(
        "--counter", type=Path, metavar="ONNX", help="a pip counter to run instead of the bundled one (a candidate)"
    )
    ev.add_argument(
        "--peaks",
        type=peaks_model,
        metavar="ONNX",
        help="a pip-peak counter to overrule the counter in place of the bundled one (a candidate); none: not asked",
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


def run_synth(args: argparse.Namespace) -> int:
    from datasets.synth.dataset import CONTACT_SHEET, write_set
    from datasets.synth.scene import FULL, MAKERS, UNSEEN_MAKERS

    if args.n < 1:
        raise UsageError(f"invalid --n: {args.n} (expected at least 1)")
    if args.kind == "video":
        return _run_synth_video(args)
    if args.kind == "frames":
        return _run_synth_frames(args)
    if args.per_round is not None:
        raise UsageError("--per-round is for --kind frames")
    if args.players is not None or args.plays is not None:
        raise UsageError("--players and --plays are for --kind video")
    size = _parse_size(args.size or "1280x960")
    options = {"usual": FULL, "training": MAKERS, "unseen": UNSEEN_MAKERS}[args.makers]
    for flag, share in (("bright_sets", args.bright_sets), ("printed_backs", args.printed_backs)):
        if share is not None:
            if not 0 <= share <= 1:
                raise UsageError(f"--{flag.replace('_', '-')} is a share of sets, 0 to 1 (got {share})")
            options = dataclasses.replace(options, **{flag: share})
    if args.tilt is not None:
        low, high = _parse_tilt(args.tilt)
        options = dataclasses.replace(options, min_tilt_deg=low, max_tilt_deg=high)
    options = _with_spacing(args, options)
    if args.busy is not None:
        if not 0 <= args.busy <= 1:
            raise UsageError(f"invalid --busy: {args.busy} (expected a share of scenes, 0 to 1)")
        options = dataclasses.replace(options, busy=args.busy)
    try:
        names = write_set(args.kind, args.n, args.seed, args.out, size, workers=max(1, args.workers), options=options)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(f"{len(names)} {args.kind} images with labels in {args.out} (contact sheet: {args.out / CONTACT_SHEET})")
    return 0


def _run_synth_video(args: argparse.Namespace) -> int:
    from datasets.synth.video import VideoOptions, write_videos

    size = _parse_size(args.size or "1280x720")
    if args.players is not None and not 2 <= args.players <= 6:
        raise UsageError(f"invalid --players: {args.players} (expected 2 to 6)")
    if args.plays is not None and args.plays < 1:
        raise UsageError(f"invalid --plays: {args.plays} (expected at least 1)")
    options = VideoOptions(players=args.players, plays=args.plays)
    names = write_videos(args.n, args.seed, args.out, size, workers=max(1, args.workers), options=options)
    print(f"{len(names)} videos with ground truth in {args.out} (NNNNN.mp4, .json, .truth.jsonl, _seats.json)")
    return 0


def _run_synth_frames(args: argparse.Namespace) -> int:
    from datasets.synth.video_frames import PER_ROUND, write_frames

    if args.players is not None or args.plays is not None:
        raise UsageError("--players and --plays are for --kind video")
    per_round = PER_ROUND if args.per_round is None else args.per_round
    if not 1 <= per_round <= MOST_PER_ROUND:
        raise UsageError(f"invalid --per-round: {per_round} (expected 1 to {MOST_PER_ROUND})")
    size = _parse_size(args.size or "1280x720")
    try:
        names = write_frames(args.n, args.seed, args.out, size, per_round, workers=max(1, args.workers))
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(f"{len(names)} video frames with labels from {args.n} rounds in {args.out} (contact sheet: preview/)")
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


def _parse_tilt(text: str) -> tuple[float, float]:
    """``--tilt LOW-HIGH`` as degrees off vertical; beyond MOST_TILT a camera sees the table's edge on."""
    low, high = _low_high("--tilt", text, "in degrees, e.g. 45-65")
    if not 0 < high <= MOST_TILT or not 0 <= low <= high:
        raise UsageError(f"invalid --tilt: {text!r} (expected 0 <= LOW <= HIGH, 0 < HIGH <= {MOST_TILT:g})")
    return low, high


def _low_high(flag: str, text: str, unit: str) -> tuple[float, float]:
    """A ``LOW-HIGH`` pair of numbers given to ``flag``; a usage error naming ``unit`` where it is none."""
    try:
        low, high = (float(part) for part in text.split("-"))
    except ValueError:
        raise UsageError(f"invalid {flag}: {text!r} (expected LOW-HIGH {unit})") from None
    return low, high


def _with_spacing(args: argparse.Namespace, options: SceneOptions) -> SceneOptions:
    """``--gaps`` and ``--double-shift`` (tables only) into the scene options."""
    if args.gaps is None and args.double_shift is None:
        return options
    if args.kind != "table":
        raise UsageError("--gaps and --double-shift are for --kind table")
    if args.gaps is not None:
        low, high = _low_high("--gaps", args.gaps, "in millimetres, e.g. 2-6")
        if not 0 <= low <= high <= 30:
            raise UsageError(f"invalid --gaps: {args.gaps!r} (expected 0 <= LOW <= HIGH <= 30 mm)")
        options = dataclasses.replace(options, train_gaps_mm=(low, high))
    if args.double_shift is not None:
        if not 0 <= args.double_shift <= 0.5:
            raise UsageError(f"invalid --double-shift: {args.double_shift} (expected a share of a length, 0 to 0.5)")
        options = dataclasses.replace(options, double_shift=args.double_shift)
    return options


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
    from benchmarks.eval.run import evaluate, read_predictions
    from datasets.real import LabelError, load_folder, pip_labelled, real_root

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
            ("peaks", args.peaks),
            ("detector", args.detector),
            ("verifier", args.verifier),
            ("refiner", args.refiner),
        )
        models = {role: path for role, path in roles if path}
        if args.peaks == NO_PEAKS:
            models["peaks"] = None
        pipeline = eval_pipeline(args.pipeline, models)
        report = evaluate(labels, out, pipeline=pipeline, title=f"{args.pipeline} on {name}", worst=args.worst)
    print((out / "summary.md").read_text())
    print(f"report: {out}/summary.md, per_image.csv, worst.jpg")
    return 0 if report["images"] else 1


def eval_pipeline(name: str, models: Models) -> Pipeline:
    """``hubcam eval --pipeline name``, with ``models`` (``counter``, ``detector``, ``verifier``, ``refiner``: ONNX
    paths) for the bundled ones."""
    if name == "baseline":
        if models:
            raise UsageError(
                "the baseline runs no models: --counter, --detector, --verifier and --refiner are for hubcam's"
            )
        from benchmarks.eval.baseline import read_tiles

        return read_tiles
    if name == "pips-on-true-corners":
        if {"detector", "verifier", "refiner"} & set(models):
            raise UsageError(
                "pips-on-true-corners reads the labelled corners: it runs no detector, verifier or refiner"
            )
        return pips_on_true_corners(models)
    if name == "table":
        return table_reader(models)
    if name == "table-square-on":
        from vision.table_reader import SQUARE_ON_BY_HUB

        return table_reader(models, plane=SQUARE_ON_BY_HUB)
    if name == "hubcam-unverified":
        if "verifier" in models:
            raise UsageError("hubcam-unverified runs no verifier: --verifier is for the pipelines with one")
        return hand_scorer({**models, "verifier": None})
    if name == "hubcam-unrefined":
        if "refiner" in models:
            raise UsageError("hubcam-unrefined runs no refiner: --refiner is for the pipelines with one")
        return hand_scorer({**models, "refiner": None})
    return hand_scorer(models)


def pips_on_true_corners(models: Models) -> PipsOnTrueCorners:
    """The pip counter alone (``counter`` and ``peaks`` in ``models``, or the bundled ones), reading the
    labelled corners."""
    from benchmarks.eval.oracle import PipsOnTrueCorners

    with models_at_hand():
        return PipsOnTrueCorners(**models)


VERBS: dict[str, AddVerb] = {"synth": add_synth, "export": add_export, "eval": add_eval}
"""This room's verbs, each by the function that adds it to the parser."""
