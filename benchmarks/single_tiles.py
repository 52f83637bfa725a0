"""Single tiles: close crops of one tile each, cut from the labelled real photos, in colour and in grey.

    python -m benchmarks.single_tiles [--margins 0.05,0.15,0.3] [--counter ONNX] [--name NAME]

A player photographs one tile left in a hand, or a referee zooms in on one: the crop holds that
tile and what lies within a margin of it (a share of the tile's length on every side of its
upright bounding box), neighbours' edges included. A crop of one tile must give one tile: a box
beside it, even one reported as uncertain, is a phantom. For each readable, uncut tile of
``../shared/real``'s labelled photos, at each margin, in colour and turned grey, the whole pipeline
runs on the crop, and counts:

- ``one tile``: exactly one tile reported (``tiles``: tiles the crop's edge cuts that cannot be counted
  are told apart, ``cut_by_frame``), and it is the labelled one (IoU >= 0.5);
- ``one tile, edges aside``: the same, tiles reported (counted) though cut by the crop's edge aside;
- ``read right``: that tile counted (not uncertain) with the labelled pips;
- ``phantoms``: boxes reported that are not the tile and not cut by the crop's edge;
- ``missed``: crops where the tile was not found.

Writes ``benchmarks/results/single_tiles.json`` and ``.md`` (or NAME's, for a candidate counter).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from benchmarks.eval.metrics import match_tiles
from benchmarks.report import write_report
from datasets.real import iter_images, pip_labelled
from vision.pipeline import HandScorer, ScorerConfig


def crops(photos: list, margin: float) -> Iterator[tuple[np.ndarray, np.ndarray, tuple[int, int]]]:
    """For each readable tile wholly in its photo: the crop round it, its corners there, its pips."""
    for label, image in photos:
        height, width = image.shape[:2]
        for tile in label.tiles:
            if not tile.counted or tile.cut:
                continue
            pad = margin * float(np.linalg.norm(tile.corners[2] - tile.corners[1]))
            x0, y0 = np.floor(tile.corners.min(axis=0) - pad).astype(int)
            x1, y1 = np.ceil(tile.corners.max(axis=0) + pad).astype(int)
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
            corners = tile.corners - np.array([x0, y0], np.float32)
            yield np.ascontiguousarray(image[y0:y1, x0:x1]), corners, tile.pips


def grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def share_of(count: int, whole: int) -> float | None:
    return round(count / whole, 3) if whole else None


def judge(scorer: HandScorer, photos: list, margin: float, greyed: bool) -> dict[str, float | int]:
    crops_seen = one = one_edges_aside = right = phantoms = missed = 0
    for crop, corners, pips in crops(photos, margin):
        prediction = scorer(grey(crop) if greyed else crop)
        crops_seen += 1
        found = [tile.corners for tile in prediction.tiles]
        matches = match_tiles([corners], found)
        if not matches:
            missed += 1
            phantoms += sum(not tile.cut for tile in prediction.tiles)
            continue
        mine = prediction.tiles[matches[0][1]]
        others = [tile for tile in prediction.tiles if tile is not mine]
        phantoms += sum(not tile.cut for tile in others)
        one += int(not others)
        one_edges_aside += int(all(tile.cut for tile in others))
        right += int(not mine.uncertain and sorted(mine.pips or ()) == sorted(pips))
    return {
        "crops": crops_seen,
        "one_tile": share_of(one, crops_seen),
        "one_tile_edges_aside": share_of(one_edges_aside, crops_seen),
        "read_right": share_of(right, crops_seen),
        "phantoms": phantoms,
        "missed": missed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--margins", default="0.05,0.15,0.3")
    parser.add_argument("--counter", type=Path, default=None, help="a candidate counter's ONNX (default: the bundled)")
    parser.add_argument("--name", default="single_tiles")
    args = parser.parse_args()
    margins = [float(value) for value in args.margins.split(",")]
    photos = list(iter_images(pip_labelled()))
    if not photos:
        parser.error("needs the labelled real photos in ../shared/real")
    scorer = HandScorer(ScorerConfig(counter=args.counter) if args.counter else ScorerConfig())
    results = {}
    for margin in tqdm(margins, desc="margins", unit="margin"):
        for greyed in (False, True):
            results[f"{margin:g}{' grey' if greyed else ''}"] = judge(scorer, photos, margin, greyed)
    command = f"python -m benchmarks.single_tiles --margins {args.margins}"
    if args.counter:
        command += f" --counter {args.counter} --name {args.name}"
    report = {"benchmark": "single_tiles", "command": command, "date": time.strftime("%Y-%m-%d"), "results": results}
    lines = [
        "# Single tiles: close crops of one tile each",
        "",
        f"`{command}` ({report['date']}): each readable, uncut tile of the labelled real photos, cropped",
        "with a margin (a share of its length) round its upright bounding box, in colour and turned grey;",
        "the whole pipeline on the crop. One tile: exactly one tile reported (`tiles`; those the crop's edge",
        "cuts that cannot be counted are told apart), the labelled one; edges aside: tiles reported though",
        "cut by the crop's edge aside. Phantoms: other boxes, not cut by the edge.",
        "",
        "| margin | crops | one tile | one tile, edges aside | read right | phantoms | missed |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in results.items():
        lines.append(
            f"| {name} | {row['crops']} | {row['one_tile']:.3f} | {row['one_tile_edges_aside']:.3f} |"
            f" {row['read_right']:.3f} | {row['phantoms']} | {row['missed']} |"
        )
    write_report(args.name, report, lines)


if __name__ == "__main__":
    main()
