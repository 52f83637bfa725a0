"""Benchmark ``hubcam analyze`` against ``hubcam score`` on the same table photos.

    python -m benchmarks.analyze_bench [--repeats 7]

Each size and each command run in a fresh process (so peak memory is its own): a synthetic
table rendered at 1280x960, 1920x1080 and a phone photo's 4032x3024, written as JPEG and
decoded each time as in use, read ``--repeats`` times; the median of each stage is kept.
Issue 52's budget: a table costs at most 1.5x what ``score`` costs on the same photo, peak memory
under 600 MB. Writes ``benchmarks/results/analyze.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SIZES = [(1280, 960), (1920, 1080), (4032, 3024)]
SEED = 78_001
"""A table of the held-out measuring set's seed range (``make eval``: seed 78)."""

ONE_RUN = """
import json, resource, statistics, sys, time
from pathlib import Path
from vision.photo import read_photo
path, command, repeats = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
if command == "analyze":
    from vision.table_reader import TableReader
    reader = TableReader()
else:
    from vision.pipeline import HandScorer
    reader = HandScorer()
runs = []
for _ in range(repeats + 1):  # the first run warms the models up, and is not kept
    start = time.perf_counter()
    image = read_photo(path)
    seen = reader(image).with_decode((time.perf_counter() - start) * 1000)
    runs.append(seen.timings_ms)
stages = {stage: statistics.median(run[stage] for run in runs[1:]) for stage in runs[-1]}
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"median_ms": stages, "peak_mb": round(peak_mb, 1), "tiles": len(seen.tiles)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    import cv2

    from datasets.synth.scene import make_scene, render

    results = []
    with tempfile.TemporaryDirectory() as folder:
        for size in SIZES:
            image, _ = render(make_scene("table", SEED), size)
            path = Path(folder) / f"table-{size[0]}x{size[1]}.jpg"
            cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            row: dict[str, object] = {"size": f"{image.shape[1]}x{image.shape[0]}"}
            for command in ("score", "analyze"):
                run = [sys.executable, "-c", ONE_RUN, str(path), command, str(args.repeats)]
                row[command] = json.loads(subprocess.run(run, capture_output=True, text=True, check=True).stdout)
            totals = [row[command]["median_ms"]["total"] for command in ("score", "analyze")]  # type: ignore[index]
            row["ratio"] = round(totals[1] / totals[0], 3)
            print(json.dumps(row))
            results.append(row)
    out = Path("benchmarks/results/analyze.json")
    out.write_text(json.dumps({"repeats": args.repeats, "seed": SEED, "photos": results}, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
