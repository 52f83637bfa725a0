"""The pip reader's confidence threshold, chosen on synthetic hands and reported on real ones.

    python -m benchmarks.reader_confidence [--set out/synth/val-hand-v10] [--images 400]

A tile whose less sure half is read below the threshold is reported uncertain and left out
of the total (never guessed). Too high, and totals come out short by tiles read right; too
low, and misread tiles are counted. The reader reads the face-up tiles on their labelled
corners (so that the detector plays no part); each threshold is scored by the share of
photos whose total comes out exact, beside the share of counted tiles read wrong and of
tiles left out. Lower thresholds always add exact totals on synthetic hands, by counting
tiles read at, say, 35 % confidence: guesses, which issue 4 forbids. So the threshold is
the lowest at which at most WRONG_AT_MOST of the counted synthetic tiles are read wrong;
vision/read/pip_reader.py uses it. The set is the threshold
benchmarks' own (seed 8); the real photos are reported beside, never used to choose.
At the chosen threshold it also compares re-reading a doubtful half in one other view (turned
round) with three (mirrored either way too), and counts the halves read wrong by how many pips
they hold. Writes ``benchmarks/results/reader_confidence.json`` and ``.md``; with ``--counter``
(a candidate counter's ONNX, to compare with the bundled one) ``reader_confidence-<its folder>``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from benchmarks.choosing import photo_sets, table_head, table_row
from benchmarks.report import write_report
from models import COUNTER
from vision.data.labels import FACE_UP
from vision.geometry import HALF_IN_FRAME
from vision.read.pip_reader import MIN_CONFIDENCE, RECHECK, REREAD_VIEWS, PipReader, Reading

THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
VIEWS = (1, 3)
"""How many other views of a doubtful half to read, compared at the chosen threshold."""
WRONG_AT_MOST = 0.005
"""One counted tile in 200 read wrong: a reading that uncertain is a guess."""


COUNT_GROUPS = ((0, 6), (7, 9), (10, 12), (13, 15), (16, 18))
"""Halves grouped by the smallest set that holds their count: double-6, 9, 12, 15 and 18."""

Seen = list[tuple[int, list[Any], list[Reading]]]
"""Per photo: its labelled total, its face-up tiles and their readings."""


def read_all(photos: list, counter: Path = COUNTER, reread_views: int = REREAD_VIEWS) -> Seen:
    """Every photo's face-up tiles read on their labelled corners, no threshold applied (only the
    frame makes a tile uncertain)."""
    reader = PipReader(counter, min_confidence=0.0, reread_views=reread_views, in_frame=HALF_IN_FRAME)
    seen = []
    for label, image in photos:
        tiles = [tile for tile in label.tiles if tile.pose == FACE_UP]
        seen.append((label.total_pips, tiles, reader.read(image, [tile.corners for tile in tiles])))
    return seen


def outcomes(seen: Seen) -> dict[float, tuple[float, float, float]]:
    """(exact totals, counted tiles wrong, tiles left out) as shares, for every threshold."""
    out = {}
    for threshold in THRESHOLDS:
        exact = counted = wrong = left_out = 0
        for truth, tiles, readings in seen:
            total = 0
            for tile, reading in zip(tiles, readings, strict=True):
                if reading.uncertain or min(reading.confidence) < threshold:
                    left_out += 1
                    continue
                counted += 1
                total += sum(reading.pips)
                wrong += tile.pips is None or sorted(reading.pips) != sorted(tile.pips)
            exact += total == truth
        tiles_seen = counted + left_out
        out[threshold] = (exact / max(len(seen), 1), wrong / max(counted, 1), left_out / max(tiles_seen, 1))
    return out


def wrong_by_count(seen: Seen, threshold: float) -> dict[str, tuple[int, int, int]]:
    """Per COUNT_GROUPS: (halves read, halves read wrong, those wrong on tiles counted at ``threshold``)
    over the readable tiles the frame does not cut (a half is read at its labelled end)."""
    tally = {group: [0, 0, 0] for group in COUNT_GROUPS}
    for _, tiles, readings in seen:
        for tile, reading in zip(tiles, readings, strict=True):
            if tile.pips is None or reading.uncertain:
                continue
            counted = min(reading.confidence) >= threshold
            for truth, read in zip(tile.pips, reading.pips, strict=True):
                row = tally[next(group for group in COUNT_GROUPS if group[0] <= truth <= group[1])]
                row[0] += 1
                row[1] += read != truth
                row[2] += read != truth and counted
    return {f"{low}-{high}": (halves, wrong, counted) for (low, high), (halves, wrong, counted) in tally.items()}


def candidate_counter(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--counter", type=Path, default=COUNTER, help="a counter's ONNX (default: the bundled one)")


def main() -> None:
    args, photos = photo_sets(__doc__, candidate_counter)
    bundled = args.counter.resolve() == COUNTER.resolve()
    seen = {name: read_all(found, args.counter) for name, found in photos.items()}
    table = {name: outcomes(read) for name, read in seen.items()}
    synthetic = table["synthetic"]
    chosen = min((t for t in THRESHOLDS if synthetic[t][1] <= WRONG_AT_MOST), default=max(THRESHOLDS))
    views = {
        count: {
            name: (table[name] if count == REREAD_VIEWS else outcomes(read_all(found, args.counter, count)))[chosen]
            for name, found in photos.items()
        }
        for count in VIEWS
    }  # the views in use were read for the threshold table already
    by_count = {name: wrong_by_count(read, chosen) for name, read in seen.items()}
    counter_option = "" if bundled else f" --counter {args.counter}"
    report = {
        "command": f"python -m benchmarks.reader_confidence --set {args.set} --images {args.images}{counter_option}",
        "date": time.strftime("%Y-%m-%d"),
        "chosen_on_synthetic": chosen,
        "in_use": MIN_CONFIDENCE,
        "outcomes": {
            name: {str(t): [round(v, 3) for v in rows[t]] for t in THRESHOLDS} for name, rows in table.items()
        },
        "reread_views_at_chosen": {
            str(count): {name: [round(v, 3) for v in row] for name, row in by_set.items()}
            for count, by_set in views.items()
        },
        "reread_views_in_use": REREAD_VIEWS,
        "halves_wrong_by_count_at_chosen": by_count,
    }
    lines = [
        "# Pip reader confidence threshold",
        "",
        f"`{report['command']}` ({report['date']}). Tiles read on their labelled corners; per threshold:",
        "the share of photos with an exact total / of counted tiles read wrong / of tiles left out as",
        f"uncertain. The lowest threshold with at most {WRONG_AT_MOST} of the counted synthetic tiles read wrong",
        f"is chosen: {chosen} (in use: {MIN_CONFIDENCE}).",
        "",
        *table_head(["threshold"], table, "exact / wrong / left out"),
    ]
    for threshold in THRESHOLDS:
        lines.append(table_row([threshold], threshold == chosen, (table[name][threshold] for name in table)))
    lines += [
        "",
        f"Other views read of a half read below {RECHECK}, at threshold {chosen} (1: turned round; 3: mirrored",
        f"either way too; in use: {REREAD_VIEWS}).",
        "",
        *table_head(["views"], table, "exact / wrong / left out"),
    ]
    for count, by_set in views.items():
        lines.append(table_row([count], count == REREAD_VIEWS, by_set.values()))
    lines += [
        "",
        "Halves read wrong by the count they hold (tiles the frame does not cut): halves / read wrong /",
        f"read wrong on a tile counted at {chosen}.",
        "",
        "| pips | " + " | ".join(by_count) + " |",
        "|---|" + "---|" * len(by_count),
    ]
    for group in by_count["synthetic"]:
        cells = [" / ".join(str(n) for n in rows[group]) for rows in by_count.values()]
        lines.append(f"| {group} | " + " | ".join(cells) + " |")
    write_report("reader_confidence" if bundled else f"reader_confidence-{args.counter.parent.name}", report, lines)


if __name__ == "__main__":
    main()
