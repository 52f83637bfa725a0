"""The command line's parser as people expect one: "did you mean" for a mistyped command or option,
the subcommand's own usage on its errors, and output paths checked before any work is done."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import NoReturn

from engine.hints import did_you_mean


def version() -> str:
    """The installed package's version (a checkout that was never installed says so)."""
    try:
        return metadata.version("hubcam")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors suggest the nearest command or option."""

    def error(self, message: str) -> NoReturn:
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            message += did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
        super().error(message)

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """As argparse parses, but an unknown option is reported by the subcommand it was given to,
        with that subcommand's usage and the nearest option it has."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            owner = self.subcommand(getattr(parsed, "command", None)) or self
            unknown = next((extra for extra in extras if extra.startswith("-")), extras[0])
            owner.error(f"unrecognized arguments: {' '.join(extras)}{did_you_mean(unknown, owner.option_names())}")
        return parsed

    def subcommand(self, name: str | None) -> Parser | None:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and name in action.choices:
                found = action.choices[name]
                return found if isinstance(found, Parser) else None
        return None

    def option_names(self) -> list[str]:
        return [option for action in self._actions for option in action.option_strings]


def output_file(text: str) -> Path:
    """An argparse type: a file to write, whose folder exists and which is no folder itself."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: it is a folder (expected a file name)")
    folder = path.parent
    if not folder.is_dir():
        what = "is a file" if folder.exists() else "does not exist"
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: its folder {str(folder)!r} {what}")
    if not os.access(folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: its folder {str(folder)!r} is not writable")
    return path


def output_folder(text: str) -> Path:
    """An argparse type: a folder to write into, made (with its parents) when written; nothing on its
    way may be a file."""
    path = Path(text)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        what = "it" if existing == path else repr(str(existing))
        raise argparse.ArgumentTypeError(f"cannot write into {text!r}: {what} is a file, expected a folder")
    if not os.access(existing, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write into {text!r}: {str(existing)!r} is not writable")
    return path
