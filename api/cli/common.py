"""What every room of the command line shares: the usage error, and the photos a verb is given
(listed, decoded, named for their overlays)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import numpy as np

    from api.parsing import Parser

    Verbs: TypeAlias = argparse._SubParsersAction[Parser]
    """The parser's subcommands, to which each room adds its verbs."""
    AddVerb: TypeAlias = Callable[[Verbs], None]
    """Adds one verb to the parser: its options, and the function that runs it as its ``run``."""


class UsageError(Exception):
    """Input the command cannot work with; printed on stderr, exit 2."""


def photos_in(paths: Sequence[Path]) -> list[Path]:
    """The photos to score: each path as given, but a folder as the JPEG and PNG files directly in it
    (by name; hidden ones left out), in name order. A folder with none stays itself, to be reported."""
    from vision.photo import PHOTO_SUFFIXES

    photos: list[Path] = []
    for path in paths:
        inside = sorted(
            entry for entry in path.iterdir()
            if entry.suffix.lower() in PHOTO_SUFFIXES and entry.is_file() and not entry.name.startswith(".")
        ) if path.is_dir() else []  # fmt: skip
        photos.extend(inside or [path])
    return photos


def readable_photos(
    paths: Sequence[Path], as_json: bool, doing: str
) -> Iterable[tuple[Path, np.ndarray | None, float]]:
    """Each photo, decoded, with the milliseconds that took; an unreadable one reported (as JSON with
    ``as_json``) and given as None, so that the others are still answered."""
    import time

    from vision.photo import PhotoError, read_photo

    for path in with_progress(photos_in(paths), doing):
        start = time.perf_counter()
        try:
            if path.is_dir():  # only a folder with no photo in it is left as a folder
                raise PhotoError(f"{path} is a folder with no JPEG or PNG photo in it")
            image = read_photo(path)
        except PhotoError as error:
            say_photo_error(path, str(error), as_json)
            yield path, None, 0.0
            continue
        yield path, image, (time.perf_counter() - start) * 1000


def say_photo_error(path: Path, error: str, as_json: bool) -> None:
    """A photo that could not be answered, said in its place among the answers (a JSON line with ``as_json``)."""
    print(json.dumps({"image": str(path), "error": error}) if as_json else f"{path}: error: {error}")


def with_progress(photos: list[Path], doing: str = "scoring") -> Iterable[Path]:
    """The photos, with a progress bar on stderr where the results go to a file or a pipe but a person
    watches the terminal (in the terminal the results themselves show the progress)."""
    from tqdm import tqdm

    watched = sys.stderr.isatty() and not sys.stdout.isatty()
    return tqdm(photos, desc=doing, unit="photo", file=sys.stderr, disable=not watched or len(photos) < 2)


def overlay_name(path: Path, taken: set[str]) -> str:
    """``<stem>.overlay.jpg``, or ``<stem>-2.overlay.jpg`` and so on where photos of the same name (in
    other folders) came before: no overlay overwrites another of the same run. Adds the name to ``taken``."""
    name, copy = f"{path.stem}.overlay.jpg", 1
    while name in taken:
        copy += 1
        name = f"{path.stem}-{copy}.overlay.jpg"
    taken.add(name)
    return name


def write_overlay(folder: Path, path: Path, image_bgr: np.ndarray, taken: set[str]) -> None:
    """The drawn photo as ``folder/<overlay_name>`` (JPEG, quality 90)."""
    import cv2

    cv2.imwrite(str(folder / overlay_name(path, taken)), image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])
