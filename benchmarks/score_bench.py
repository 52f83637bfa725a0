"""Benchmark ``hubcam score``: time per stage and peak memory at phone-photo resolutions.

    python -m benchmarks.score_bench [--repeats 15]

Each resolution runs in a fresh process (so its peak memory is its own), scoring a
photo of that size several times; the median of each stage is kept. The photos: a
synthetic hand with 15 face-up tiles rendered at each size, and, where ../shared/real is
beside the repository, real phone photos as they were taken (their JPEG is what decoding
costs in use; a synthetic render decodes faster), one scaled down to 1600x1200, a
close-up of one tile, and the first as if taken 40 degrees further tipped.
Issue 4's budget: the whole time at most 1.5x (decode + the detector's forward pass),
and peak memory under 600 MB. The detector's forward pass is timed on its own after each run
(``detector_forward``), and every pass the pipeline made in the run is timed too
(``forward_passes``: a close-up is looked at twice, a slanted photo again square-on); the
ratio is given both ways, as the ratio of the medians (``ratio_*``) and as the median of each run's
own ratio (``run_ratio_*``: a run's total over that run's decoding and forward pass, so that a
slow moment of the machine, which slows both, cancels out; the medians of different stages come
from different runs). Writes ``benchmarks/results/score.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from datasets.real import real_root

SIZES = [(1600, 1200), (3024, 4032), (4032, 3024), (2268, 3024)]
REAL_PHOTOS = [
    ("Guix266__robot-dominoes-CSIE5047-NTU-TW/IMG_6205.jpg", (1200, 1600)),
    ("Guix266__robot-dominoes-CSIE5047-NTU-TW/IMG_6205.jpg", (2268, 3024)),
    ("Guix266__robot-dominoes-CSIE5047-NTU-TW/IMG_6199.jpg", (3024, 4032)),
    ("yeshdev1__domino_helper/IMG_7376.JPG", (4032, 3024)),
    ("Guix266__robot-dominoes-CSIE5047-NTU-TW/S__39747614.jpg", (1774, 2364)),
    ("jesperes__mexican/mxt.core/src/test/resources/IMG_0648.JPG", (713, 951)),
    ("slanted:Guix266__robot-dominoes-CSIE5047-NTU-TW/IMG_6205.jpg", (2366, 2900)),
]
"""Real hands of 12-14 tiles at their own sizes, the first also scaled to 1600x1200, a close-up
of one tile (a photo with few tiles found is looked at twice: vision.pipeline.SECOND_LOOK), and
the first as if taken 40 degrees further tipped (benchmarks/real_variants.py; found again in the
photo redrawn square-on: vision.pipeline.SLANT)."""

CHILD = """
import json, resource, statistics, sys, tempfile, time
from pathlib import Path
import cv2
from vision.detect.onnx_obb import padded_blob
from vision.pipeline import HandScorer
from vision.photo import read_photo
from datasets.synth.scene import make_scene, render
width, height, repeats, source = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
slanted_from = source.removeprefix("slanted:") if source.startswith("slanted:") else None
if source == "synthetic":
    # the first hand from seed 777 on with 15 face-up tiles: the issue's "pips of 15 tiles"
    seed = next(s for s in range(777, 100_000) if sum(t.pose == "face_up" for t in make_scene("hand", s).tiles) == 15)
    image, label = render(make_scene("hand", seed), (width, height))
    if image.shape[1] != width:  # the renderer turned the camera to portrait: turn the photo, never stretch it
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
elif slanted_from is not None:
    from datasets.synth.retake import slanted
    image = slanted(40)(read_photo(Path(slanted_from)))[0]
else:
    image = read_photo(Path(source))
if image.shape[:2] == (height, width) and source != "synthetic" and slanted_from is None:
    path = Path(source)  # the phone's own JPEG
else:
    image = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA) if image.shape[1] != width else image
    path = Path(tempfile.mkdtemp()) / "photo.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
class Timed:  # the detector's session, timing every forward pass the pipeline makes
    def __init__(self, session):
        self.session, self.spent, self.calls = session, 0.0, 0
    def run(self, *args, **kwargs):
        begun = time.perf_counter()
        result = self.session.run(*args, **kwargs)
        self.spent, self.calls = self.spent + time.perf_counter() - begun, self.calls + 1
        return result
    def __getattr__(self, name):
        return getattr(self.session, name)
scorer = HandScorer()
timed = scorer.detector.session = Timed(scorer.detector.session)
stages = {"decode": [], "detect": [], "detector_forward": [], "forward_passes": [], "pips": [], "total": []}
for _ in range(repeats):
    start = time.perf_counter()
    photo = read_photo(path)
    decoded = time.perf_counter()
    timed.spent, timed.calls = 0.0, 0
    prediction = scorer(photo)
    stages["forward_passes"].append(timed.spent * 1000)
    passes = timed.calls
    stages["decode"].append((decoded - start) * 1000)
    stages["detect"].append(prediction.timings_ms["detect"])
    stages["pips"].append(prediction.timings_ms["pips"])
    stages["total"].append((decoded - start) * 1000 + prediction.timings_ms["total"])
    blob = padded_blob(scorer.detector.view(photo))  # the pipeline's own input for the photo
    forward = time.perf_counter()
    scorer.detector.session.run(None, {scorer.detector.input_name: blob})
    stages["detector_forward"].append((time.perf_counter() - forward) * 1000)
median = {stage: round(statistics.median(values), 1) for stage, values in stages.items()}
def run_ratio(forward):
    runs = zip(stages["total"], stages["decode"], stages[forward], strict=True)
    return round(statistics.median(total / (decode + spent) for total, decode, spent in runs), 2)
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
row = {
    "photo": source, "size": [width, height], "tiles": len(prediction.tiles), "passes": passes,
    "median_ms": median, "peak_mb": round(peak_mb),
    "run_ratio_to_decode_plus_forward": run_ratio("detector_forward"),
    "run_ratio_counting_every_pass": run_ratio("forward_passes"),
}
print(json.dumps(row))
"""


def with_kind(kind: str, path: Path) -> str:
    """A photo's name as the child takes it: ``slanted:PATH`` for a photo to tip first, else the path."""
    return f"{kind}:{path}" if kind else str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/score.json"))
    args = parser.parse_args()
    photos = [("synthetic", size) for size in SIZES]
    root = real_root()
    if root is not None:
        for name, size in REAL_PHOTOS:
            kind, _, file = name.rpartition(":")
            if (root / file).exists():
                photos.append((with_kind(kind, root / file), size))
    rows = []
    for source, (width, height) in photos:
        run = [sys.executable, "-c", CHILD, str(width), str(height), str(args.repeats), source]
        output = subprocess.run(run, capture_output=True, text=True, check=True).stdout
        row = json.loads(output.strip().splitlines()[-1])
        kind, _, name = source.rpartition(":")
        if source != "synthetic":
            row["photo"] = with_kind(kind, Path(name).relative_to(root))
        median = row["median_ms"]
        unavoidable = median["decode"] + median["detector_forward"]
        row["ratio_to_decode_plus_forward"] = round(median["total"] / unavoidable, 2)
        row["ratio_counting_every_pass"] = round(median["total"] / (median["decode"] + median["forward_passes"]), 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    results = {
        "benchmark": "score",
        "command": f"python -m benchmarks.score_bench --repeats {args.repeats}",
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
        "goal": "total <= 1.5 x (decode + detector forward); peak memory < 600 MB",
        "goal_met": all(row["ratio_to_decode_plus_forward"] <= 1.5 and row["peak_mb"] < 600 for row in rows),
        "goal_met_counting_every_pass": all(
            row["ratio_counting_every_pass"] <= 1.5 and row["peak_mb"] < 600 for row in rows
        ),
        "goal_met_run_by_run": all(
            row["run_ratio_to_decode_plus_forward"] <= 1.5 and row["peak_mb"] < 600 for row in rows
        ),
        "goal_met_run_by_run_counting_every_pass": all(
            row["run_ratio_counting_every_pass"] <= 1.5 and row["peak_mb"] < 600 for row in rows
        ),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
