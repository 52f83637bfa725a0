"""What the hubcam command offers: its verbs, and each verb's options and positionals, as the committed
snapshot (tests/data/cli_offers.json) has them, so that moving the command's code changes none of it.
A change meant: rewrite the snapshot with ``python tests/test_cli_offers.py > tests/data/cli_offers.json``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from api.cli import build_parser

SNAPSHOT = Path(__file__).parent / "data" / "cli_offers.json"


def offers(parser: argparse.ArgumentParser) -> list[str]:
    """A parser's options (each by all its spellings) and positionals, sorted; its subcommands left out."""
    return sorted(
        " ".join(action.option_strings) if action.option_strings else action.dest
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction)
    )


def offers_of(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    """``hubcam``'s own offers, then each verb's, in the order ``hubcam --help`` lists the verbs."""
    verbs = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return {"hubcam": offers(parser)} | {name: offers(verb) for name, verb in verbs.choices.items()}


def test_the_command_offers_what_its_snapshot_says():
    expected = json.loads(SNAPSHOT.read_text())
    offered = offers_of(build_parser())
    assert list(offered) == list(expected), "the verbs, or their order in hubcam --help, changed"
    for verb, options in expected.items():
        assert offered[verb] == options, f"hubcam {verb} offers other options than {SNAPSHOT.name} says"


def test_every_verb_has_a_help_that_names_it(capsys):
    parser = build_parser()
    for verb in offers_of(parser):
        argv = ["--help"] if verb == "hubcam" else [verb, "--help"]
        try:
            parser.parse_args(argv)
        except SystemExit as exit:
            assert exit.code == 0
        usage = capsys.readouterr().out
        assert usage.startswith("usage: hubcam" + ("" if verb == "hubcam" else f" {verb}")), usage


def test_the_command_loads_no_lab_package_until_a_lab_verb_runs():
    code = (
        "import sys; from api.cli import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('datasets', 'benchmarks') "
        "or m.startswith('models.train')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


if __name__ == "__main__":
    print(json.dumps(offers_of(build_parser()), indent=1))
