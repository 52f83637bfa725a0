"""Measuring ``hubcam calibrate seats PHOTO`` on rendered hubs with each player's marker by their slot (issue 68).

    python -m benchmarks.seats_bench [--n 12] [--players 3 4]

For each of ``--n`` seeds and each number of players, ``datasets.synth.table_markers.seats_photo`` renders
the hub at a round's start with the engine on it and each player's marker by their slot (a 1280x720
camera drawn as the table calibration's are). The photo is given to ``hubcam calibrate seats PHOTO
--players P --first ANGLE --json`` (in this process; ``--first`` where seat 0's marker truly is), and
the seat map it writes is compared with the truth: right where every seat's slot and the Mexican
train's slot give their true owner (``Seats.owner``), refused where the command says why it cannot
(markers found for another number of players, no hub), wrong otherwise.
Writes ``benchmarks/results/seats.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import cv2

from api.cli import main as hubcam
from benchmarks.report import write_report
from datasets.synth.table_markers import seats_photo
from vision.table_analysis import Seats

FOLDER = Path("out/seats-bench")


def measure(seed: int, players: int) -> dict[str, Any]:
    photo = seats_photo(seed, players)
    FOLDER.mkdir(parents=True, exist_ok=True)
    path = FOLDER / f"{seed:03d}-{players}.png"
    cv2.imwrite(str(path), photo.image_bgr)
    out, err = io.StringIO(), io.StringIO()
    argv = ["calibrate", "seats", str(path), "--players", str(players), "--first", f"{photo.first_marker_deg:.1f}"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = hubcam([*argv, "--json"])
    row: dict[str, Any] = {"seed": seed, "players": players}
    if code != 0:
        return row | {"result": "refused", "why": err.getvalue().strip()[-160:]}
    seats = Seats.from_json(json.loads(out.getvalue()))
    right = all(seats.owner(angle) == owner for owner, angle in photo.slot_angles.items())
    return row | {"result": "right" if right else "wrong"}


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=12, help="seeds (default 12)")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4])
    args = parser.parse_args()
    rows = [measure(seed, players) for seed in range(args.n) for players in args.players]
    counts = {result: sum(row["result"] == result for row in rows) for result in ("right", "refused", "wrong")}
    report = {"benchmark": "seats_bench", "seeds": args.n, "players": args.players, "counts": counts, "rows": rows}
    lines = [
        "# hubcam calibrate seats on rendered hubs",
        "",
        f"{len(rows)} photos ({args.n} seeds, {' and '.join(map(str, args.players))} players): seat maps right "
        f"{counts['right']}, refused with the reason {counts['refused']}, wrong {counts['wrong']}.",
        "",
        "| seed | players | result | why refused |",
        "|---|---|---|---|",
        *(f"| {row['seed']} | {row['players']} | {row['result']} | {row.get('why', '')} |" for row in rows),
    ]
    write_report("seats", report, lines)


if __name__ == "__main__":
    run()
