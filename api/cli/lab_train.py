"""The lab's ``train`` verb: one recipe per model, as data (``RECIPES``), run by one runner. The
training packages (models.train, benchmarks.eval's cards) are imported only when a model is trained."""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from api.cli.common import UsageError
from api.parsing import output_folder

if TYPE_CHECKING:
    from api.cli.common import AddVerb, Verbs


EXTRA_SCENES = (
    ("--high-scenes", "pips: extra scenes dealt from double-15 and 18 sets only"),
    ("--bright-scenes", "pips, verifier, verdict: extra scenes whose sets all have a saturated body "
     "(CounterRecipe.bright_scenes, VerifierRecipe.bright_scenes; verdict: default, and given 0, its recipe's)"),
    ("--back-scenes", "pips: extra scenes with printed backs face down, taught as no count "
     "(CounterRecipe.back_scenes)"),
    ("--table-scenes", "pips: extra table scenes, whose tiles are smaller in the photo than a hand's "
     "(CounterRecipe.table_scenes)"),
    ("--frame-rounds", "pips: extra filmed rounds' video frames, as hubcam watch reads them "
     "(CounterRecipe.frame_rounds)"),
    ("--standing-scenes", "verifier: extra scenes with standing tiles seen from lower down "
     "(VerifierRecipe.standing_scenes)"),
)  # fmt: skip
"""``hubcam train``'s counts of extra scenes of one kind or another, and what each is (its help)."""


def add_train(verbs: Verbs) -> None:
    train = verbs.add_parser("train", help="train a model (needs the train extra: make train-deps)")
    train.add_argument(
        "model", choices=list(RECIPES),
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


def run_train(args: argparse.Namespace) -> int:
    """Train ``args.model`` by its recipe in ``RECIPES``: the options checked, its trainer loaded, its recipe
    filled in from the options, and the model trained into ``--out`` (or its usual folder)."""
    check_scene_counts(args, *(flag for flag, _ in EXTRA_SCENES))
    if args.max_lr is not None and not 0 < args.max_lr <= 1:
        raise UsageError(f"--max-lr is a learning rate, above 0 and at most 1 (got {args.max_lr})")
    how = RECIPES[args.model]
    try:
        trainer = importlib.import_module(how.trainer)
    except ImportError as error:
        raise UsageError(f"training needs the train extra ({error.name} is missing): make train-deps") from None
    for bound in how.bounds:
        bound.check(args)
    kind = getattr(trainer, how.recipe)
    recipe = kind(**{name: take(args, getattr(kind, name)) for name, take in how.fields.items()})
    return how.runs(args, trainer, args.out or how.out, recipe)


Take = Callable[[argparse.Namespace, Any], Any]
"""How a recipe's field is taken from the options, given the field's default."""


def given(option: str) -> Take:
    """The option's value as given (its own default where not given)."""
    return lambda args, default: getattr(args, option)


def or_recipes(option: str) -> Take:
    """The option's value, or the recipe's where it is not given (or given as 0)."""
    return lambda args, default: getattr(args, option) or default


def unless_none(option: str) -> Take:
    """The option's value where given (0 too), else the recipe's."""
    return lambda args, default: default if getattr(args, option) is None else getattr(args, option)


def path_text(option: str) -> Take:
    """The option's path as text, "" where not given."""
    return lambda args, default: str(getattr(args, option) or "")


def counter_widths(args: argparse.Namespace, default: tuple[int, ...]) -> tuple[int, ...]:
    """``--widths``, or the peak counter's channels with ``--peaks``, else the recipe's."""
    from models.train.counter import PEAK_WIDTHS

    return args.widths or (PEAK_WIDTHS if args.peaks else default)


@dataclass(frozen=True)
class Bound:
    """An option's range, checked where the option is given: ``--glossy is a share of halves, 0 to 1``."""

    option: str
    what: str
    low: float
    high: float

    def check(self, args: argparse.Namespace) -> None:
        value = getattr(args, self.option.removeprefix("--").replace("-", "_"))
        if value is not None and not self.low <= value <= self.high:
            raise UsageError(f"{self.option} is {self.what}, {self.low:g} to {self.high:g} (got {value})")


def trained(export: Callable[..., dict[str, Any]], out_dir: Path, recipe: Any, resume: bool) -> int:
    """Train one of the small networks (``export``: its trainer's ``train_and_export``) and print its card."""
    try:
        card = export(out_dir, recipe, resume=resume)
    except (FileExistsError, FileNotFoundError, ValueError) as error:  # a checkpoint, no data, no model to start from
        raise UsageError(str(error)) from None
    print(json.dumps(card, indent=2))
    return 0


def small_network(args: argparse.Namespace, trainer: ModuleType, out_dir: Path, recipe: Any) -> int:
    """A small network (pips, verifier, refiner, verdict), trained and exported by its ``train_and_export``."""
    return trained(trainer.train_and_export, out_dir, recipe, args.resume)


def detector(args: argparse.Namespace, trainer: ModuleType, out_dir: Path, recipe: Any) -> int:
    """The tile detector, trained on ``--sets`` by Ultralytics, then measured on the real photos where there are."""
    if not args.sets:
        raise UsageError("give the synthetic sets to train on: --sets DIR [DIR ...]")
    from benchmarks.eval.cards import add_real_metrics

    try:
        card = trainer.train_detector(args.sets, out_dir, recipe, args.hours, args.resume, args.start_from)
    except (ValueError, FileNotFoundError) as error:  # no such set or weights, an unreadable label, an empty set
        raise UsageError(str(error)) from None
    if add_real_metrics(out_dir) is not None:  # measured on the real photos, recorded in the card
        card = json.loads((out_dir / "card.json").read_text())
    print(json.dumps(card, indent=2))
    return 0


@dataclass(frozen=True)
class TrainingRecipe:
    """How ``hubcam train <model>`` trains a model: the trainer module and its recipe class, the folder the
    model goes to, and which options fill which of the recipe's fields (the others keep the recipe's)."""

    trainer: str
    recipe: str
    out: Path
    fields: Mapping[str, Take]
    bounds: tuple[Bound, ...] = ()
    runs: Callable[[argparse.Namespace, ModuleType, Path, Any], int] = field(default=small_network)


COMMON = {"epochs": or_recipes("epochs"), "seed": unless_none("seed"), "max_lr": or_recipes("max_lr")}
"""What every small network's recipe takes alike."""
RECIPES = {
    "detector": TrainingRecipe(
        "models.train.detector", "Recipe", Path("models/tile-detector"), runs=detector,
        fields={"epochs": or_recipes("epochs"), "imgsz": or_recipes("imgsz"), "seed": unless_none("seed"),
                "lr0": given("max_lr"), "halved_view": given("halved_view")},
    ),
    "pips": TrainingRecipe(
        "models.train.counter", "CounterRecipe", Path("models/pip-counter"),
        bounds=(Bound("--glossy", "a share of halves", 0, 1), Bound("--half-px", "a half's side in pixels", 16, 128)),
        fields={**COMMON, "scenes": unless_none("scenes"), "half_px": or_recipes("half_px"), "widths": counter_widths,
                "start_from": path_text("start_from")}
        | {name: given(name) for name in ("high_scenes", "glossy", "strided_stem", "makers", "peaks",
                                          "bright_scenes", "back_scenes", "table_scenes", "frame_rounds")},
    ),
    "verifier": TrainingRecipe(
        "models.train.verifier", "VerifierRecipe", Path("models/tile-verifier"),
        bounds=(Bound("--printed-backs", "a share of sets", 0, 1),),
        fields={**COMMON, "scenes": or_recipes("scenes"), "widths": or_recipes("widths"),
                "start_from": path_text("start_from"), "proposals_from": path_text("proposals_from")}
        | {name: given(name) for name in ("standing_scenes", "bright_scenes", "printed_backs", "face_down")},
    ),
    "refiner": TrainingRecipe(
        "models.train.refiner", "RefinerRecipe", Path("models/box-refiner"),
        fields={**COMMON, "scenes": or_recipes("scenes"), "start_from": path_text("start_from")},
    ),
    "verdict": TrainingRecipe(
        "models.train.verdict", "VerdictRecipe", Path("models/box-refiner"),
        fields={**COMMON, "scenes": or_recipes("scenes"), "bright_scenes": or_recipes("bright_scenes"),
                "refiner": path_text("start_from")},
    ),
}  # fmt: skip
"""Each model ``hubcam train`` makes, by the name it is asked for, in ``--help``'s order."""


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


VERBS: dict[str, AddVerb] = {"train": add_train}
"""This room's verbs, each by the function that adds it to the parser."""
