"""The pip-centre heatmap counter against the bundled counter, on the same halves (issue 67).

    python -m benchmarks.pip_heatmap_eval [--model models/pip-heatmap/model.onnx] [--hands 200] [--seed 71]

Hands drawn with ``UNSEEN_MAKERS`` (the layouts held out of all training: ``datasets.synth.pips.HELD_OUT``),
the same scenes as ``hubcam synth --kind hand --n 200 --seed 71 --makers unseen`` (the hands that gave the
bundled counter per-half 0.616 and exact totals 0.155 through the whole pipeline), are cut into halves on
their labelled corners, as the reader cuts a box; both counters read the same halves. And, where
``../shared/real`` exists, its labelled real halves.

- per-half: the count read is the label's; a half the heatmap counter calls unsure counts as wrong (it
  would be left out), and is reported apart; the bundled counter's answer is its likeliest count;
- exact total: every readable face-up tile of the hand read, its halves' counts summing to the label's,
  no half unsure; double-15 and double-18 hands reported apart.

Also on the corners where the tiles are drawn (the labels shifted by the renderer's warp,
``datasets.synth.pip_halves.photo_shift``). Writes ``benchmarks/results/pip_heatmap.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.report import write_report
from datasets.labels import FACE_UP, LabelledImage, LabelledTile
from datasets.synth.dataset import GENERATOR_VERSION, image_seed
from datasets.synth.pip_halves import MIN_SHORT_SIDE_PX, photo_shift
from datasets.synth.scene import UNSEEN_MAKERS, make_scene, render
from models import COUNTER
from vision.geometry import tile_length
from vision.onnx_session import model_card
from vision.read.halves import HALF_PX, cut_halves
from vision.read.pip_peaks import PipPeakReader
from vision.read.pip_reader import COUNTS, PipReader

MODEL = Path("models/pip-heatmap/model.onnx")
PHOTO_PX = (1280, 960)
"""``hubcam synth``'s size."""


@dataclasses.dataclass
class Halves:
    """One set's halves: the pixels, each half's label, scene (for exact totals), set and tile length."""

    pixels: np.ndarray
    wanted: np.ndarray
    scene: np.ndarray
    highest: np.ndarray
    tile_px: np.ndarray


def real_halves() -> Halves | None:
    """``../shared/real``'s labelled face-up tiles cut into halves (None without them); all double-6 or 12."""
    from datasets.real import iter_images, pip_labelled, real_root

    if real_root() is None:
        return None
    parts = []
    for number, (label, image) in enumerate(iter_images(pip_labelled())):
        tiles = readable_real_tiles(label)
        if tiles:
            wanted = np.array([count for tile in tiles for count in tile.pips], np.int64)
            parts.append(
                Halves(
                    cut_halves(image, [tile.corners for tile in tiles], HALF_PX),
                    wanted,
                    np.full(len(wanted), number),
                    np.full(len(wanted), 12 if wanted.max() > 6 else 6),
                    np.repeat([tile_length(tile.corners) for tile in tiles], 2).astype(np.float32),
                )
            )
    return joined(parts) if parts else None


def joined(parts: list[Halves]) -> Halves:
    fields = [field.name for field in dataclasses.fields(Halves)]
    return Halves(**{name: np.concatenate([getattr(part, name) for part in parts]) for name in fields})


def readable_tiles(label: dict[str, Any]) -> list[dict[str, Any]]:
    """A rendered label's face-up tiles that a counter can be asked to read: whole, readable, and not
    too small (``MIN_SHORT_SIDE_PX``)."""
    return [
        tile
        for tile in label["tiles"]
        if tile["pose"] == FACE_UP
        and not tile["cut"]
        and not tile["unreadable"]
        and np.linalg.norm(np.subtract(tile["corners"][1], tile["corners"][0])) >= MIN_SHORT_SIDE_PX
    ]


def readable_real_tiles(label: LabelledImage) -> list[LabelledTile]:
    """A real photo's counted tiles with pips, whole and not too small (``MIN_SHORT_SIDE_PX``)."""
    return [
        tile
        for tile in label.tiles
        if tile.counted
        and not tile.cut
        and tile.pips is not None
        and np.linalg.norm(tile.corners[1] - tile.corners[0]) >= MIN_SHORT_SIDE_PX
    ]


def hand_halves(job: tuple[int, int]) -> dict[str, Any]:
    """One unseen-makers hand's readable face-up tiles cut into halves on their labelled corners and on the
    corners where they are drawn, with their counts and the hand's set."""
    seed, index = job
    scene_seed = image_seed(seed, index)
    scene = make_scene("hand", scene_seed, UNSEEN_MAKERS)
    image, label = render(scene, PHOTO_PX, UNSEEN_MAKERS)
    tiles = readable_tiles(label)
    corners = [np.array(tile["corners"], np.float32) for tile in tiles]
    shift = np.float32(photo_shift())
    return {
        "index": index,
        "highest": scene.highest,
        "labelled": cut_halves(image, corners, HALF_PX),
        "drawn": cut_halves(image, [quad + shift for quad in corners], HALF_PX),
        "counts": np.array([count for tile in tiles for count in tile["pips"]], np.int64),
    }


def scores(
    counts: np.ndarray, unsure: np.ndarray, bundled: np.ndarray, wanted: np.ndarray, hands: np.ndarray
) -> dict[str, Any]:
    """Per-half and exact-total numbers of both counters on one set of halves (``hands``: each half's hand)."""
    right = (counts == wanted) & ~unsure
    exact, exact_bundled, hand_ids = 0, 0, np.unique(hands)
    for hand in hand_ids:
        mine = hands == hand
        exact += int(right[mine].all() or (not unsure[mine].any() and counts[mine].sum() == wanted[mine].sum()))
        exact_bundled += int(bundled[mine].sum() == wanted[mine].sum())
    sure = ~unsure
    return {
        "halves": len(wanted),
        "hands": len(hand_ids),
        "heatmap_per_half": round(float(right.mean()), 4) if len(wanted) else None,
        "heatmap_unsure": round(float(unsure.mean()), 4) if len(wanted) else None,
        "heatmap_right_when_sure": round(float((counts == wanted)[sure].mean()), 4) if sure.any() else None,
        "heatmap_exact_total": round(exact / len(hand_ids), 4) if len(hand_ids) else None,
        "bundled_per_half": round(float((bundled == wanted).mean()), 4) if len(wanted) else None,
        "bundled_exact_total": round(exact_bundled / len(hand_ids), 4) if len(hand_ids) else None,
    }


def by_count(counts: np.ndarray, unsure: np.ndarray, bundled: np.ndarray, wanted: np.ndarray) -> dict[str, Any]:
    found = {}
    for count in range(COUNTS):
        mine = wanted == count
        if mine.any():
            found[str(count)] = {
                "halves": int(mine.sum()),
                "heatmap": round(float(((counts == count) & ~unsure)[mine].mean()), 3),
                "bundled": round(float((bundled[mine] == count).mean()), 3),
            }
    return found


def real_photos(reader: PipPeakReader, bundled: PipReader) -> dict[str, Any] | None:
    """Per-half and per-photo exact totals on ``../shared/real``'s labelled corners (None without them)."""
    real = real_halves()
    if real is None:
        return None
    counts, unsure = reader.count(real.pixels)
    said = bundled.probabilities(real.pixels)[:, :COUNTS].argmax(axis=1)
    return scores(counts, unsure, said, real.wanted, real.scene)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=MODEL, help="the heatmap counter's ONNX")
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=71, help="hubcam synth's --seed for the unseen hands")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--name", default="pip_heatmap", help="the report's name in benchmarks/results/")
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error(f"invalid --hands: {args.hands} (expected at least 1)")
    reader, bundled = PipPeakReader(args.model), PipReader(COUNTER)
    start = time.perf_counter()
    jobs = [(args.seed, index) for index in range(args.hands)]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        hands = pool.map(hand_halves, jobs, chunksize=4)
    rendered = time.perf_counter() - start
    wanted = np.concatenate([hand["counts"] for hand in hands])
    owners = np.concatenate([np.full(len(hand["counts"]), hand["index"]) for hand in hands])
    highest = np.concatenate([np.full(len(hand["counts"]), hand["highest"]) for hand in hands])
    report: dict[str, Any] = {
        "benchmark": "pip_heatmap_eval",
        "model": str(args.model),
        "model_epochs": model_card(args.model).get("epochs_done"),
        "bundled": str(COUNTER),
        "hands": f"{args.hands} hands, hubcam synth --kind hand --seed {args.seed} --makers unseen "
        f"(generator {GENERATOR_VERSION})",
        "render_seconds": round(rendered),
    }
    lines = [
        "# The pip-centre heatmap counter on layouts never trained on (issue 67)",
        "",
        f"`python -m benchmarks.pip_heatmap_eval --hands {args.hands} --seed {args.seed}`; model `{args.model}` "
        f"(after {report['model_epochs']} epochs), "
        f"the bundled counter `{COUNTER.relative_to(COUNTER.parents[2]) if len(COUNTER.parents) > 2 else COUNTER}`.",
        f"{report['hands']}; halves cut as the reader cuts a box. Unsure halves count as wrong.",
        "",
        "| halves of | hands | heatmap per-half | unsure | right when sure | heatmap exact total | bundled per-half | "
        "bundled exact total |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def row(name: str, found: dict[str, Any]) -> str:
        keys = (
            "halves", "hands", "heatmap_per_half", "heatmap_unsure", "heatmap_right_when_sure",
            "heatmap_exact_total", "bundled_per_half", "bundled_exact_total",
        )  # fmt: skip
        return f"| {name} | " + " | ".join(str(found[key]) for key in keys[1:]) + f" ({found['halves']} halves) |"

    for corners in ("labelled", "drawn"):
        cut = np.concatenate([hand[corners] for hand in hands])
        counts, unsure = reader.count(cut)
        said = bundled.probabilities(cut)[:, :COUNTS].argmax(axis=1)
        report[corners] = {"all": scores(counts, unsure, said, wanted, owners)}
        for sets, name in (((6, 9, 12), "double-6 to 12"), ((15,), "double-15"), ((18,), "double-18")):
            mine = np.isin(highest, sets)
            report[corners][name] = scores(counts[mine], unsure[mine], said[mine], wanted[mine], owners[mine])
        report[corners]["by_count"] = by_count(counts, unsure, said, wanted)
        for name in ("all", "double-6 to 12", "double-15", "double-18"):
            lines.append(row(f"{corners} corners, {name}", report[corners][name]))
    real = real_photos(reader, bundled)
    report["real"] = real
    if real is not None:
        lines.append(row("real labelled halves (per photo)", real))
    lines += [
        "",
        "Per count, labelled corners (heatmap / bundled, share right):",
        "",
        "| count | halves | heatmap | bundled |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {count} | {found['halves']} | {found['heatmap']} | {found['bundled']} |"
        for count, found in report["labelled"]["by_count"].items()
    ]
    write_report(args.name, report, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
