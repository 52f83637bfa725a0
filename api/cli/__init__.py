"""The ``hubcam`` command: one verb per job. A thin shell: the work happens in engine/ and vision/.
Its rooms each add their own verbs: playing and refereeing (``play``), reading photos (``read``),
calibrating at the table (``calibrate``), and the lab's making, measuring and training (``lab``,
``lab_train``: the only ones that load the lab).

Exit codes: 0 done; 1 some input could not be processed (the others were); 2 the
command or its input could not be read at all (the reason goes to stderr).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from api.cli import calibrate, lab, lab_train, play, read
from api.cli.common import UsageError
from api.parsing import Parser, version
from engine import LogError, RulesError

ORDER = (
    "referee", "rules", "simulate", "synth", "export", "score", "analyze", "watch", "calibrate", "serve", "train",
    "eval",
)  # fmt: skip
"""The verbs in the order ``hubcam --help`` lists them."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except (UsageError, LogError, RulesError) as error:
        print(f"hubcam {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `hubcam referee log.json | head`
        return 0
    except OSError as error:  # a write refused after the paths were checked (a full disk, say)
        print(f"hubcam {args.command}: error: {error}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="hubcam", description="A computer-vision assistant for Mexican Train.")
    parser.add_argument("--version", action="version", version=f"hubcam {version()}")
    verbs = parser.add_subparsers(dest="command", metavar="COMMAND")
    rooms = play.VERBS | read.VERBS | calibrate.VERBS | lab.VERBS | lab_train.VERBS
    assert sorted(rooms) == sorted(ORDER), f"the rooms' verbs {sorted(rooms)} are not ORDER's"
    for name in ORDER:
        rooms[name](verbs)
    return parser
