"""Close-ups: real tiles cut out of their photos so that they fill more of the frame.

    python -m benchmarks.close_up [--shares 0.2,...,0.8] [--second-looks 224,160,...]

In the labelled real hand photos a tile's length is at most 28 % of the photo's longer
side, and the detector learnt tiles up to 40 %; a player with one or two tiles left may
hold the phone much closer. For each readable tile of those photos and each share, a
window of the photo (4:3, turned as the photo is) is cut round the tile so that the
tile's length is that share of the window's longer side; windows that would leave the
photo are skipped. The whole pipeline runs on each window: without a second, smaller look,
with the pipeline's (``vision.pipeline.SECOND_LOOK``), and with others given as SIZE (a
second look at SIZE px). Only the tile in the middle is judged (its neighbours are cut by the window's
edges): found (IoU >= 0.5), read right, reported uncertain, read wrong.
Writes ``benchmarks/results/close_up.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Iterator

import numpy as np
from tqdm import tqdm

from benchmarks.report import write_report
from vision.data.real import iter_images, pip_labelled
from vision.eval.metrics import match_tiles
from vision.pipeline import SECOND_LOOK, HandScorer, SecondLook


def windows(photos: list, share: float) -> Iterator[tuple[np.ndarray, np.ndarray, tuple[int, int]]]:
    """For each readable tile: the window that shows it at ``share``, its corners there, its pips."""
    for label, image in photos:
        height, width = image.shape[:2]
        for tile in label.tiles:
            if not tile.counted:
                continue
            longer = float(np.linalg.norm(tile.corners[2] - tile.corners[1])) / share
            w, h = (longer, longer * 3 / 4) if width >= height else (longer * 3 / 4, longer)
            w, h = round(w), round(h)
            if w > width or h > height:
                continue
            centre = tile.corners.mean(axis=0)
            x0 = int(np.clip(centre[0] - w / 2, 0, width - w))
            y0 = int(np.clip(centre[1] - h / 2, 0, height - h))
            corners = tile.corners - np.array([x0, y0], np.float32)
            if (corners < 0).any() or (corners[:, 0] > w).any() or (corners[:, 1] > h).any():
                continue
            yield np.ascontiguousarray(image[y0 : y0 + h, x0 : x0 + w]), corners, tile.pips


def judge(scorer: HandScorer, photos: list, share: float) -> dict[str, float | int]:
    tiles = found = right = uncertain = 0
    for window, corners, pips in windows(photos, share):
        prediction = scorer(window)
        tiles += 1
        matches = match_tiles([corners], [tile.corners for tile in prediction.tiles])
        if not matches:
            continue
        guess = prediction.tiles[matches[0][1]]
        found += 1
        uncertain += int(guess.uncertain)
        right += int(not guess.uncertain and sorted(guess.pips or ()) == sorted(pips))
    return {
        "tiles": tiles,
        "found": round(found / tiles, 3) if tiles else None,
        "read_right": round(right / tiles, 3) if tiles else None,
        "uncertain": uncertain,
        "wrong": found - right - uncertain,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shares", default="0.2,0.3,0.4,0.5,0.6,0.7,0.8")
    parser.add_argument("--second-looks", default="", help="other second looks to try, as SIZE,...")
    args = parser.parse_args()
    shares = [float(value) for value in args.shares.split(",")]
    photos = list(iter_images(pip_labelled()))
    if not photos:
        parser.error("needs the labelled real photos in ../shared/real")
    looks: dict[str, SecondLook | None] = {"one look": None, "the pipeline's": SECOND_LOOK}
    for spec in filter(None, args.second_looks.split(",")):
        looks[spec] = dataclasses.replace(SECOND_LOOK, size=int(spec))
    results: dict[str, dict[str, dict]] = {name: {} for name in looks}
    for name, look in tqdm(looks.items(), desc="second looks", unit="setting"):
        scorer = HandScorer(second_look=look)
        for share in shares:
            results[name][f"{share:g}"] = judge(scorer, photos, share)
    report = {
        "command": f"python -m benchmarks.close_up --shares {args.shares} --second-looks {args.second_looks}",
        "pipeline_second_look": SECOND_LOOK.size,
        "date": time.strftime("%Y-%m-%d"),
        "results": results,
    }
    lines = [
        "# Close-ups: real tiles filling more of the frame",
        "",
        f"`{report['command']}` ({report['date']}): each readable tile of the labelled real photos, in a",
        "window cut so that its length is the given share of the window's longer side; the whole pipeline",
        "on the window. Found (IoU >= 0.5) and read right are shares of the tiles; uncertain and wrong are counts.",
        "",
        f"The pipeline's second look: at every photo (a redrawn view with {SECOND_LOOK.few_tiles} tiles found"
        f" or fewer), at {SECOND_LOOK.size} px; others at SIZE px.",
        "",
        "| tile's share | tiles | second look | found | read right | uncertain | wrong |",
        "|---|---|---|---|---|---|---|",
    ]
    for share in shares:
        for name in looks:
            row = results[name][f"{share:g}"]
            lines.append(
                f"| {share:g} | {row['tiles']} | {name} | {row['found']:.3f} | {row['read_right']:.3f} |"
                f" {row['uncertain']} | {row['wrong']} |"
            )
    write_report("close_up", report, lines)


if __name__ == "__main__":
    main()
