"""Benchmark the scene renderer: images per second on this machine's cores at 1280x960.

    python -m benchmarks.synth_bench [--n 40] [--workers 2]

Writes ``benchmarks/results/synth.json`` (quoted by the README). The goal (issue 3)
is at least 2 images per second on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from datasets.synth.dataset import write_set

GOAL_IMAGES_PER_S = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="images of each kind (default 40)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/synth.json"))
    args = parser.parse_args()
    rates = {}
    for kind in ("hand", "table"):
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            write_set(kind, args.n, seed=12345, out_dir=Path(folder), workers=args.workers)
            seconds = time.perf_counter() - start
        rates[kind] = {"images": args.n, "seconds": round(seconds, 1), "images_per_s": round(args.n / seconds, 2)}
    results = {
        "benchmark": "synth",
        "command": f"python -m benchmarks.synth_bench --n {args.n} --workers {args.workers}",
        "date": time.strftime("%Y-%m-%d"),
        "size_px": [1280, 960],
        "workers": args.workers,
        "cores": os.cpu_count(),
        "kinds": rates,
        "note": "includes starting the worker processes and writing JPEGs, labels and the contact sheet",
        "goal_images_per_s": GOAL_IMAGES_PER_S,
        "goal_met": min(rate["images_per_s"] for rate in rates.values()) >= GOAL_IMAGES_PER_S,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
