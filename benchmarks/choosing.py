"""What the threshold benchmarks share: the photos they score and how a choice is made.

Thresholds are chosen on a synthetic set of their own (never the hands that measure the
pipeline); the real photos are scored beside, never used to choose.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from vision.data.labels import LabelledImage
from vision.data.real import iter_images, load_folder, pip_labelled

F1_TIE = 0.005
"""F1 scores this close are a tie (the set's noise is larger); among ties the higher recall wins."""

Rates = tuple[float, float, float]


def photo_sets(
    description: str, more_arguments: Callable[[argparse.ArgumentParser], None] | None = None
) -> tuple[argparse.Namespace, dict[str, list[Any]]]:
    """Parse ``--set`` and ``--images`` (and what ``more_arguments`` adds); the synthetic set's and
    the real photos' (label, image) pairs."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path("out/synth/val-hand-v10"))
    parser.add_argument("--images", type=int, default=400)
    if more_arguments is not None:
        more_arguments(parser)
    args = parser.parse_args()
    photos = {
        "synthetic": list(iter_images(load_folder(args.set)[: args.images])),
        "real": list(iter_images(pip_labelled())),
    }
    return args, {name: found for name, found in photos.items() if found}


def sweep_arguments(
    description: str,
    defaults: Mapping[str, str],
    more_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
) -> tuple[argparse.Namespace, dict[str, list[float | None]], list[LabelledImage]]:
    """Parse ``--set``, ``--images`` and an ``--OPTION`` for each of ``defaults`` (comma-separated values
    to sweep, ``never`` for the test left out), and what ``more_arguments`` adds; each option's values
    (None for never) and the synthetic set's labels."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path("out/synth/val-hand-v10"))
    parser.add_argument("--images", type=int, default=400)
    for option, default in defaults.items():
        parser.add_argument(f"--{option}", default=default, help=f"values to try (default {default})")
    if more_arguments is not None:
        more_arguments(parser)
    args = parser.parse_args()
    values = {
        option: [None if value == "never" else float(value) for value in getattr(args, option).split(",")]
        for option in defaults
    }
    labels = load_folder(args.set)[: args.images]
    if not labels:
        parser.error(f"no labelled images in {args.set} (make it with hubcam synth --kind hand --n 400 --seed 8)")
    return args, values, labels


def rates(matched: int, labelled: int, predicted: int) -> Rates:
    """Recall, precision and F1."""
    recall, precision = matched / max(labelled, 1), matched / max(predicted, 1)
    return recall, precision, 2 * recall * precision / max(recall + precision, 1e-9)


def best(synthetic: Mapping[Hashable, Rates]) -> Any:
    """The choice with the best F1 on the synthetic set, near ties (F1_TIE) going to the higher recall."""
    top_f1 = max(f1 for _, _, f1 in synthetic.values())
    ties = [choice for choice, (_, _, f1) in synthetic.items() if f1 >= top_f1 - F1_TIE]
    return max(ties, key=lambda choice: synthetic[choice][0])


def table_head(keys: Sequence[str], sets: Iterable[str], measures: str) -> list[str]:
    """A threshold table's header and rule: the choice's columns, then one per photo set."""
    columns = [*keys, *(f"{name} {measures}" for name in sets)]
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def table_row(choice: Sequence[object], chosen: bool, by_set: Iterable[Sequence[float]], mark: int = -1) -> str:
    """One markdown row of a threshold table: the choice's values (the one at ``mark`` marked when
    this is the chosen row), then each photo set's measures to 3 places, joined by " / "."""
    keys = [str(value) for value in choice]
    keys[mark] += " **chosen**" if chosen else ""
    cells = [" / ".join(f"{value:.3f}" for value in measures) for measures in by_set]
    return "| " + " | ".join(keys + cells) + " |"


def totals_and_tiles(labels: list[LabelledImage], scorer: Callable[..., Any], what: str) -> dict[str, int]:
    """A whole pipeline's exact totals over ``labels``, and the tiles found against those labelled
    and those predicted (``what`` names the run on its progress bar)."""
    from tqdm import tqdm

    from vision.eval.metrics import score_image

    row = {"exact_totals": 0, "photos": len(labels), "matched": 0, "labelled": 0, "predicted": 0}
    for label, image in tqdm(iter_images(labels), total=len(labels), desc=what):
        scored = score_image(label, scorer(image))
        row["exact_totals"] += bool(scored.total_exact)
        for count in ("matched", "labelled", "predicted"):
            row[count] += getattr(scored, count)
    return row


def totals_by_choice(
    scorers: Mapping[str, Callable[[], Callable[..., Any]]], labels: list[LabelledImage], set_name: str
) -> dict[str, dict[str, Any]]:
    """``totals_and_tiles`` for each choice's scorer (made once, by ``scorers[choice]()``) on the
    synthetic set and, where they are beside the repository, on the labelled real photos (else None)."""
    real = pip_labelled()
    rows = {}
    for choice, make in scorers.items():
        scorer = make()
        rows[choice] = {
            "synthetic": totals_and_tiles(labels, scorer, f"{set_name} at {choice}"),
            "real": totals_and_tiles(real, scorer, f"real at {choice}") if real else None,
        }
    return rows


def totals_cells(row: dict[str, int] | None) -> str:
    """``totals_and_tiles``' row as three markdown cells: exact totals, tile recall, tile precision."""
    if row is None:
        return "- | - | -"
    recall, precision = row["matched"] / max(row["labelled"], 1), row["matched"] / max(row["predicted"], 1)
    return f"{row['exact_totals']}/{row['photos']} | {recall:.3f} | {precision:.3f}"


def totals_table(first_column: str, set_name: str, rows: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """A markdown table of ``totals_and_tiles`` rows by choice: the synthetic set's, then the real photos'."""
    lines = [
        f"| {first_column} | {set_name} exact totals | recall | precision | real exact totals | recall | precision |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        lines.append(f"| {name} | {totals_cells(row['synthetic'])} | {totals_cells(row['real'])} |")
    return lines
