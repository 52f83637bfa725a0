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
round) with three (mirrored either way too). Writes ``benchmarks/results/reader_confidence.json`` and ``.md``.
"""

from __future__ import annotations

import time

from benchmarks.choosing import photo_sets, table_head, table_row
from benchmarks.report import write_report
from vision.data.labels import FACE_UP
from vision.pipeline import COUNTER
from vision.read.pip_reader import MIN_CONFIDENCE, RECHECK, REREAD_VIEWS, PipReader

THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
VIEWS = (1, 3)
"""How many other views of a doubtful half to read, compared at the chosen threshold."""
WRONG_AT_MOST = 0.005
"""One counted tile in 200 read wrong: a reading that uncertain is a guess."""


def outcomes(photos: list, reread_views: int = REREAD_VIEWS) -> dict[float, tuple[float, float, float]]:
    """(exact totals, counted tiles wrong, tiles left out) as shares, for every threshold."""
    reader = PipReader(COUNTER, min_confidence=0.0, reread_views=reread_views)  # only the frame makes a tile uncertain
    seen = []
    for label, image in photos:
        tiles = [tile for tile in label.tiles if tile.pose == FACE_UP]
        readings = reader.read(image, [tile.corners for tile in tiles])
        seen.append((label.total_pips, tiles, readings))
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


def main() -> None:
    args, photos = photo_sets(__doc__)
    table = {name: outcomes(found) for name, found in photos.items()}
    synthetic = table["synthetic"]
    chosen = min((t for t in THRESHOLDS if synthetic[t][1] <= WRONG_AT_MOST), default=max(THRESHOLDS))
    views = {
        count: {
            name: (table[name] if count == REREAD_VIEWS else outcomes(found, count))[chosen]
            for name, found in photos.items()
        }
        for count in VIEWS
    }  # the views in use were read for the threshold table already
    report = {
        "command": f"python -m benchmarks.reader_confidence --set {args.set} --images {args.images}",
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
    write_report("reader_confidence", report, lines)


if __name__ == "__main__":
    main()
