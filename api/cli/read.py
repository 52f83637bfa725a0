"""The verbs of reading photos: ``score`` a hand, ``analyze`` a table, ``watch`` a round being played."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from api.cli.common import UsageError, readable_photos, say_photo_error, write_overlay
from api.cli.pipelines import hand_scorer, table_reader, table_watcher
from api.parsing import output_folder

if TYPE_CHECKING:
    import cv2
    import numpy as np

    from api.cli.common import AddVerb, Verbs
    from calibration.apply import AtTheTable
    from vision.observation import Observation, Sighting
    from vision.table_analysis import Seats, TableAnalysis
    from vision.watch.watcher import Watcher


def add_score(verbs: Verbs) -> None:
    score = verbs.add_parser("score", help="read the tiles in hand photos and total their pips")
    score.add_argument(
        "photos", nargs="+", type=Path, help="JPEG or PNG photos, or folders of them (each photo directly inside)"
    )
    score.add_argument("--json", action="store_true", help="one JSON line per photo")
    score.add_argument("--overlay", type=output_folder, metavar="DIR", help="write each photo with its tiles drawn on")
    score.add_argument(
        "--set", type=int, choices=[6, 9, 12, 15, 18], default=None,
        help="the set's highest double (default: the smallest set that holds every count read with confidence)",
    )  # fmt: skip
    score.add_argument("--timings", action="store_true", help="add time per stage (ms)")
    score.set_defaults(run=run_score)


def add_analyze(verbs: Verbs) -> None:
    analyze = verbs.add_parser("analyze", help="read a table in play: hub, engine, trains, lines of play and flags")
    analyze.add_argument(
        "photos", nargs="+", type=Path, help="JPEG or PNG photos, or folders of them (each photo directly inside)"
    )
    analyze.add_argument("--json", action="store_true", help="one JSON line per photo")
    analyze.add_argument(
        "--overlay", type=output_folder, metavar="DIR", help="write each photo with its trains drawn on"
    )
    analyze.add_argument(
        "--set", type=int, choices=[6, 9, 12, 15, 18], default=None,
        help="the set's highest double (default: judged from the photo; then no tile is flagged out_of_set)",
    )  # fmt: skip
    analyze.add_argument(
        "--seats", type=Path, metavar="FILE",
        help='who owns each slot: JSON {"slots": {"<angle>": seat, ...}, "mexican": <angle>} (default: owners null)',
    )  # fmt: skip
    analyze.add_argument("--timings", action="store_true", help="add time per stage (ms)")
    add_profile(
        analyze,
        "its table part has a slanted photo's tiles read again on the table redrawn square-on, its seats part "
        "stands for --seats",
    )
    analyze.set_defaults(run=run_analyze)


def add_watch(verbs: Verbs) -> None:
    watch = verbs.add_parser("watch", help="watch a round being played: each play, flag and take-back as it happens")
    source = watch.add_mutually_exclusive_group(required=True)
    source.add_argument("--video", type=Path, metavar="FILE", help="a video of the table (MP4, AVI, ...)")
    source.add_argument("--camera", type=int, metavar="N", help="camera number N (0: the first)")
    watch.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    watch.add_argument(
        "--set", type=int, choices=[6, 9, 12, 15, 18], default=12, help="the set's highest double (default 12)"
    )
    watch.add_argument(
        "--seats", type=Path, metavar="FILE",
        help='who owns each slot: JSON {"slots": {"<angle>": seat, ...}, "mexican": <angle>} (without it plays '
        "are reported but not judged)",
    )  # fmt: skip
    watch.add_argument("--starter", type=int, default=0, help="the seat that plays first (default 0)")
    watch.add_argument("--show", action="store_true", help="show the frames with the overlay in a window")
    watch.add_argument("--record", type=Path, metavar="FILE", help="write the frames with the overlay as a video (MP4)")
    watch.add_argument("--json", action="store_true", help="one JSON line per event (docs/watching.md)")
    add_profile(watch, "its seats part stands for --seats")
    watch.set_defaults(run=run_watch)


def add_profile(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--profile", type=Path, metavar="FILE", help=f"a calibration profile (hubcam calibrate ... --out FILE): {what}"
    )


def run_score(args: argparse.Namespace) -> int:
    from vision.overlay import draw_hand

    scorer = hand_scorer(highest=args.set)
    if args.overlay:
        args.overlay.mkdir(parents=True, exist_ok=True)
    failed = 0
    overlays: set[str] = set()
    for path, image, decode_ms in readable_photos(args.photos, args.json, "scoring"):
        if image is None:
            failed += 1
            continue
        seen = scorer(image).with_decode(decode_ms)
        if seen.over_set:
            print(
                f"hubcam score: warning: {path}: {seen.over_set} tiles read surely as more pips than double-{args.set} "
                "holds: is the set larger?",
                file=sys.stderr,
            )
        if args.json:
            print(json.dumps(seen.to_json(str(path), args.timings)))
        else:
            print(score_text(str(path), seen, args.timings))
        if args.overlay:
            write_overlay(args.overlay, path, draw_hand(image, seen), overlays)
    return 1 if failed else 0


def score_text(image: str, seen: Observation, timings: bool = False) -> str:
    """``hubcam score``'s table: a tile per line, as the JSON has it: the pips read (with "?" where
    nothing was read, or after a reading left out as uncertain), its confidence and why it is not counted."""
    from vision.observation import Reason

    lines = [f"{image}: {len(seen.tiles)} tiles, total {seen.total}"]
    for index, tile in enumerate(seen.tiles):
        reading = "?" if tile.pips is None else f"{tile.pips[0]}-{tile.pips[1]}" + ("?" if tile.uncertain else "")
        notes = ""
        if tile.reason is not None:
            twin = seen.twin_of(index)
            why = tile.reason.message if twin is None else f"read like the surer tile {twin + 1}"
            notes = f" (uncertain: {why}, not counted)"
        if tile.cut and tile.reason is not Reason.BEYOND_FRAME:
            notes += " (cut by the frame)"
        lines.append(f"  {index + 1:>2}. {reading:<6} confidence {tile.confidence:.2f}{notes}")
    if seen.cut_by_frame:
        cut = len(seen.cut_by_frame)
        lines.append(
            f"  and {cut} {'tile' if cut == 1 else 'tiles'} cut by the frame, not counted: a wider photo shows them"
        )
    if timings:
        lines.append("  " + ", ".join(f"{stage} {ms:.1f} ms" for stage, ms in seen.timings_ms.items()))
    return "\n".join(lines)


def run_analyze(args: argparse.Namespace) -> int:
    from vision.overlay import draw_table
    from vision.table_analysis import TableAnalysis

    profiled = Profiled.of(args.profile)
    seats = profiled.seats(args.seats)
    reader = table_reader(highest=args.set)
    if args.overlay:
        args.overlay.mkdir(parents=True, exist_ok=True)
    failed, overlays = 0, set[str]()
    for path, image, decode_ms in readable_photos(args.photos, args.json, "analyzing"):
        plane = None if image is None else profiled.plane(path, image, args.json)
        if image is None or plane is False:
            failed += 1
            continue
        seen = reader.read(image, plane).with_decode(decode_ms)
        analysis = TableAnalysis.of(seen, str(path), seats, args.timings)
        print(json.dumps(analysis.to_json()) if args.json else analysis_text(analysis))
        if args.overlay and seen.layout is not None:
            write_overlay(args.overlay, path, draw_table(image, seen, analysis), overlays)
    return 1 if failed else 0


class Profiled:
    """``--profile FILE`` for the CLI (``calibration.apply.AtTheTable``): a photo that does not fit it
    said in its place among the answers."""

    def __init__(self, at_table: AtTheTable, path: Path | None = None) -> None:
        self.at_table, self.path = at_table, path

    @classmethod
    def of(cls, path: Path | None) -> Profiled:
        from calibration.apply import AtTheTable
        from calibration.profile import ProfileError, read_profile

        if path is None:
            return cls(AtTheTable())
        try:
            return cls(AtTheTable(read_profile(path)), path)  # its errors name the file
        except ProfileError as error:
            raise UsageError(f"--profile {error}") from None

    def plane(self, path: Path, image: np.ndarray, as_json: bool) -> np.ndarray | None | bool:
        """The profile's table plane for this photo (None without a table part), for the tiles to be read
        again square-on where they show a slant (``vision.square_on_view``); False (said) where the photo
        is not that camera's shape."""
        from calibration.profile import ProfileError

        try:
            return self.at_table.plane((image.shape[1], image.shape[0]))
        except ProfileError as error:
            say_photo_error(path, f"--profile {self.path}: {error}", as_json)
            return False

    def seats(self, given: Path | None) -> Seats | None:
        """``--seats``' map where given, else the profile's seats part (None without either)."""
        from vision.table_analysis import Seats

        if given is not None or self.at_table.seats is None:
            return seat_map(given)
        return Seats.from_json(self.at_table.seats)


def seat_map(path: Path | None) -> Seats | None:
    """``--seats FILE`` read, or None without one: a seat map, or a profile with a seats part (one that
    holds a version); a file that is neither is a usage error."""
    from calibration.profile import Profile
    from vision.table_analysis import Seats

    if path is None:
        return None
    try:
        data = json.loads(path.read_text())
        if isinstance(data, dict) and "version" in data:
            data = Profile.from_json(data).seats
            if data is None:
                raise ValueError("the profile holds no seats part (write one with hubcam calibrate seats --out)")
        return Seats.from_json(data)
    except (OSError, ValueError) as error:
        raise UsageError(f"--seats {path}: {error}") from None


def run_watch(args: argparse.Namespace) -> int:
    """Frames in order through the watcher, each event printed as it is known, the state at the end. A
    source that cannot be opened is a usage error; one that stops (or Ctrl-C) ends with the state so far."""
    from vision.watch.show import event_text
    from vision.watch.source import SourceError, open_camera, open_video

    if not 2 <= args.players <= 12:
        raise UsageError(f"--players {args.players}: expected 2 to 12 seats")
    if not 0 <= args.starter < args.players:
        raise UsageError(f"--starter {args.starter}: expected a seat from 0 to {args.players - 1}")
    profiled = Profiled.of(args.profile)
    seats = profiled.seats(args.seats)
    try:
        source = open_video(args.video) if args.video is not None else open_camera(args.camera)
    except SourceError as error:
        raise UsageError(str(error)) from None
    watcher = table_watcher(args.players, args.set, seats, args.starter)
    screen = _Screen(args.show, args.record, source.fps)

    def say(event: dict[str, object]) -> None:
        print(json.dumps(event) if args.json else event_text(event), flush=True)

    index, t_s, advised = -1, 0.0, False
    try:
        for index, t_s, frame in source.frames():
            for event in watcher.feed(frame, index, t_s):
                say(event)
            if watcher.advice is not None and not advised:
                print(f"hubcam watch: {watcher.advice}", file=sys.stderr, flush=True)
                advised = True
            if not screen.draw(frame, watcher):
                break  # the window was closed, or q pressed
    except KeyboardInterrupt:
        print(f"hubcam watch: stopped at frame {index}", file=sys.stderr)
    finally:
        screen.close()
    if index < 0:
        raise UsageError(f"{source.name}: no frame could be decoded (an empty or corrupt video?)")
    final = watcher.finish(index, t_s)
    if args.json:
        say(final)
    else:
        print(final["error"] if watcher.analysis is None else analysis_text(watcher.analysis))
    return 0


class _Screen:
    """``--show`` and ``--record``: each frame with its overlay in a window and/or a video. A window that
    cannot open (no display) is skipped with a warning; a video that cannot be written is a usage error."""

    def __init__(self, show: bool, record: Path | None, fps: float) -> None:
        self.show, self.record, self.fps = show, record, fps
        self.writer: cv2.VideoWriter | None = None

    def draw(self, frame: np.ndarray, watcher: Watcher) -> bool:
        import cv2

        from vision.watch.show import watched_frame

        if not (self.show or self.record):
            return True
        drawn = watched_frame(frame, watcher.seen, watcher.analysis, watcher.last_events)
        if self.record is not None:
            if self.writer is None:
                height, width = drawn.shape[:2]
                self.writer = cv2.VideoWriter(
                    str(self.record), cv2.VideoWriter_fourcc(*"mp4v"), self.fps, (width, height)
                )
                if not self.writer.isOpened():
                    raise UsageError(f"--record {self.record}: cannot write a video there")
            self.writer.write(drawn)
        if self.show:
            try:
                cv2.imshow("hubcam watch", drawn)
                return (cv2.waitKey(1) & 0xFF) != ord("q")
            except cv2.error:
                print("hubcam watch: warning: no display for --show: going on without the window", file=sys.stderr)
                self.show = False
        return True

    def close(self) -> None:
        import cv2

        if self.writer is not None:
            self.writer.release()
        if self.show:
            cv2.destroyAllWindows()


def analysis_text(analysis: TableAnalysis) -> str:
    """``hubcam analyze``'s table: the hub and engine, each train from the hub out, lines of play,
    loose tiles and the flags, as the JSON has them; a tile read but left out as uncertain has a "?"
    after its pips, as ``hubcam score`` writes it."""

    def pips(pair: Sequence[int] | None) -> str:
        return "?" if pair is None else f"{pair[0]}-{pair[1]}"

    def reading(tile: Sighting) -> str:
        return pips(tile.pips) + ("?" if tile.pips is not None and tile.uncertain else "")

    hub = "not seen, engine unknown" if analysis.hub is None else f"seen, the engine {pips(analysis.engine)}"
    lines = [f"{analysis.image}: {len(analysis.tiles)} tiles, hub {hub}"]
    if analysis.advice is not None:
        lines.append(f"  note: {analysis.advice}")
    for number, train in enumerate(analysis.trains):
        owner = (
            ""
            if train.owner is None
            else f" ({'Mexican train' if train.owner == 'mexican' else 'seat ' + str(train.owner)})"
        )
        played = " ".join(pips(pair) for pair in train.pips)
        marker = ", its marker out" if train.marker else ""
        lines.append(f"  train {number + 1} at {train.slot_angle:.0f} deg{owner}{marker}: {played}")
    for chain in analysis.chains:
        lines.append("  line of play: " + " ".join(pips(pair) for pair in chain.pips))
    if analysis.loose:
        lines.append("  loose: " + ", ".join(reading(analysis.tiles[index]) for index in analysis.loose))
    for flag in analysis.flags:
        lines.append(f"  ! {flag.kind.value}: {flag.message}")
    if analysis.timings_ms is not None:
        lines.append("  " + ", ".join(f"{stage} {ms:.1f} ms" for stage, ms in analysis.timings_ms.items()))
    return "\n".join(lines)


VERBS: dict[str, AddVerb] = {"score": add_score, "analyze": add_analyze, "watch": add_watch}
"""This room's verbs, each by the function that adds it to the parser."""
