"""Benchmark the referee service: hand photos per second under 1, 4 and 16 concurrent clients, and
the latency of ``/analyze`` on a 1280x720 frame.

    python -m benchmarks.serve_bench [--requests 48] [--workers 1]

A real ``hubcam serve`` process (SQLite in a temporary folder) on a free local port; rendered hand
photos (1280x960 JPEG) posted to ``/score`` by N client threads at once, ``--requests`` in all per
level, after a warm-up; then rendered 1280x720 tables posted to ``/analyze`` one at a time. Each
process reads one photo at a time (memory stays bounded), so throughput grows with ``--workers``,
not with clients. Writes ``benchmarks/results/serve.json`` (``serve-workersN.json`` with ``--workers N``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2

CLIENTS = (1, 4, 16)
HAND_SEEDS = range(910_000, 910_008)
TABLE_SEEDS = range(78_100, 78_110)
"""Tables of the held-out measuring set's seed range (``make eval``: seed 78)."""
RESULTS = Path(__file__).parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=48, help="hand photos per client level")
    parser.add_argument("--workers", type=int, default=1, help="hubcam serve --workers")
    args = parser.parse_args()
    hands, tables = photos(HAND_SEEDS, "hand", (1280, 960)), photos(TABLE_SEEDS, "table", (1280, 720))
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        db = f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        command = [
            sys.executable,
            "-m",
            "api.cli",
            "serve",
            "--port",
            str(port),
            "--db",
            db,
            "--workers",
            str(args.workers),
        ]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(base)
            post(base, "/score", hands[0])  # load the models
            post(base, "/analyze", tables[0])
            levels = [score_level(base, hands, clients, args.requests) for clients in CLIENTS]
            analyze_ms = [post(base, "/analyze", table) for table in tables]
        finally:
            server.terminate()
            server.wait()
    result = {
        "machine": f"{os.cpu_count()} cores",
        "workers": args.workers,
        "score": levels,
        "analyze_1280x720": {
            "requests": len(analyze_ms),
            "median_ms": round(statistics.median(analyze_ms), 1),
            "p95_ms": round(percentile(analyze_ms, 95), 1),
        },
    }
    name = "serve.json" if args.workers == 1 else f"serve-workers{args.workers}.json"
    (RESULTS / name).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


def photos(seeds: range, kind: str, size: tuple[int, int]) -> list[bytes]:
    import cv2

    from datasets.synth.scene import make_scene, render

    return [cv2.imencode(".jpg", render(make_scene(kind, seed), size)[0])[1].tobytes() for seed in seeds]


def score_level(base: str, hands: list[bytes], clients: int, requests: int) -> dict[str, float]:
    """``requests`` hand photos sent by ``clients`` threads at once: photos a second, latency."""
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        latencies = list(pool.map(lambda i: post(base, "/score", hands[i % len(hands)]), range(requests)))
    seconds = time.perf_counter() - start
    return {
        "clients": clients,
        "requests": requests,
        "photos_per_s": round(requests / seconds, 2),
        "median_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
    }


def post(base: str, route: str, photo: bytes) -> float:
    """One photo posted; milliseconds until the whole answer came (an error stops the benchmark)."""
    start = time.perf_counter()
    answer = httpx2.post(f"{base}{route}", files={"photo": ("photo.jpg", photo, "image/jpeg")}, timeout=300)
    answer.raise_for_status()
    return (time.perf_counter() - start) * 1000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share / 100 * (len(ordered) - 1)))]


def wait_for(base: str) -> None:
    for _ in range(600):
        try:
            if httpx2.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx2.TransportError:
            time.sleep(0.1)
    raise SystemExit("hubcam serve did not come up")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


if __name__ == "__main__":
    main()
