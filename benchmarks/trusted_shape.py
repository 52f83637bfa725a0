"""What trusting only tile-shaped boxes does (``vision.pipeline.TRUSTED_SHAPE``).

    python -m benchmarks.trusted_shape [--set out/synth/val-hand-v10] [--images 400] [--ratios never,1.1,...]

A box the detector is sure of (``Weighing.trusted``) keeps its score whatever the verifier says,
but only where its sides are at least a ratio apart (``Weighing.trusted_shape``): a box over one
half of a tile is near square. The ratio in use is set by geometry (halfway, as ratios go, between
a half's 1:1 and a face's 2:1), not chosen here; this measures what each ratio does. Per ratio: the
whole pipeline's exact totals, tile recall and precision on the synthetic validation hands and on
the labelled real photos, and the exact totals over every real variant of
``benchmarks/real_variants.py``. Beside them, how many boxes the detector is sure of on the
validation hands are as square as the ratio in use, and how many of those lie over a tile; and how
many labelled faces are seen that square. Writes ``benchmarks/results/trusted_shape.json`` and ``.md``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import cache, partial

import numpy as np
from tqdm import tqdm

from benchmarks.choosing import sweep_arguments, totals_by_choice, totals_table
from benchmarks.real_variants import VARIANTS, measure
from benchmarks.report import write_report
from vision.data.labels import FACE_UP, LabelledImage
from vision.data.real import iter_images, pip_labelled
from vision.detect.verify import side_ratios
from vision.eval.metrics import match_tiles
from vision.pipeline import FACE_UP_CLASS, TRUSTED_SHAPE, WEIGHING, HandScorer


def name_of(ratio: float | None) -> str:
    return "never" if ratio is None else f"{ratio:g}"


@cache  # one scorer a ratio, for its totals and its real variants alike
def scorer_at(ratio: float | None) -> HandScorer:
    return HandScorer(weighing=replace(WEIGHING, trusted_shape=0.0 if ratio is None else ratio))


def variants_exact(scorer: HandScorer, photos: list) -> int:
    """Exact totals over every real variant (``benchmarks.real_variants``) of the labelled photos."""
    rows = [measure(scorer, photos, variant) for variant in tqdm(VARIANTS.values(), desc="real variants")]
    return sum(row["exact photo total"]["successes"] for row in rows)


def square_boxes(labels: list[LabelledImage], ratio: float) -> dict[str, int]:
    """On these photos: the detector's face-up boxes it is sure of, those squarer than ``ratio``, how many
    of them lie over a face-up tile (IoU 0.5), and the labelled faces, uncut, seen squarer than it."""
    scorer = HandScorer()
    counts = {"sure_boxes": 0, "sure_and_square": 0, "square_over_a_tile": 0, "faces": 0, "square_faces": 0}
    for label, image in tqdm(iter_images(labels), total=len(labels), desc="square boxes"):
        found = scorer.detector(image)
        sure = (found.classes == FACE_UP_CLASS) & (found.scores >= WEIGHING.trusted)
        sure_corners = found.corners[sure]
        square = sure_corners[side_ratios(sure_corners) < ratio]
        faces = [tile.corners for tile in label.tiles if tile.pose == FACE_UP]
        counts["sure_boxes"] += int(sure.sum())
        counts["sure_and_square"] += len(square)
        counts["square_over_a_tile"] += len(match_tiles(faces, list(square)))
        whole = [tile.corners for tile in label.tiles if tile.pose == FACE_UP and not tile.cut]
        counts["faces"] += len(whole)
        counts["square_faces"] += int((side_ratios(np.asarray(whole)) < ratio).sum())
    return counts


def main() -> None:
    args, values, labels = sweep_arguments(__doc__, {"ratios": f"never,1.1,1.2,1.3,{TRUSTED_SHAPE:.3g},1.5,1.7,1.9"})
    scorers = {name_of(ratio): partial(scorer_at, ratio) for ratio in values["ratios"]}
    rows = totals_by_choice(scorers, labels, args.set.name)
    real = list(iter_images(pip_labelled()))
    variant_photos = len(real) * len(VARIANTS)
    if real:
        for ratio in values["ratios"]:
            rows[name_of(ratio)]["real_variants_exact"] = variants_exact(scorer_at(ratio), real)
    square = square_boxes(labels, TRUSTED_SHAPE)
    command = f"python -m benchmarks.trusted_shape --set {args.set} --images {args.images} --ratios {args.ratios}"
    report = {
        "benchmark": "trusted_shape",
        "command": command,
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
        "in_use": f"{TRUSTED_SHAPE:.3g}",
        "square_at_in_use": square,
    }
    variant_lines = [
        f"| {name} | {row['real_variants_exact']}/{variant_photos} |" for name, row in rows.items() if real
    ]
    lines = [
        "# Trusting only tile-shaped boxes",
        "",
        f"`{command}` ({report['date']}): the whole pipeline where a box the detector is sure of keeps its",
        "score only if its sides are at least a ratio apart (never: any box). In use: "
        f"**{TRUSTED_SHAPE:.3g}**, set by geometry, not chosen by these numbers.",
        "",
        *totals_table("ratio", args.set.name, rows),
        "",
        "Every real variant of `benchmarks/real_variants.py` (each labelled photo changed each way):",
        "",
        "| ratio | exact totals |",
        "|---|---|",
        *(variant_lines or ["| - | no real photos beside the repository |"]),
        "",
        f"On {args.set.name}, of the {square['sure_boxes']} face-up boxes the detector is sure of "
        f"(at least {WEIGHING.trusted}), {square['sure_and_square']} are squarer than {TRUSTED_SHAPE:.3g}, "
        f"{square['square_over_a_tile']} of them over a tile; {square['square_faces']} of the "
        f"{square['faces']} labelled whole faces are seen that square.",
    ]
    write_report("trusted_shape", report, lines)


if __name__ == "__main__":
    main()
