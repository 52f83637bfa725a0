"""Synthetic table scenes with exact ground truth: hands of tiles, and tables in play.

``make_scene(kind, seed)`` lays out a scene in table millimetres (deterministic from
the seed; ``datasets.synth.layout``); ``render(scene)`` photographs it and returns the image
with its label (``datasets.synth.photograph``). The options and their presets are in
``datasets.synth.options``; every name is importable from here.
"""

from __future__ import annotations

import dataclasses
import random

from datasets.synth.layout import MARKER_SHAPES, Marker, PlacedTile, Scene, Train, add_glare, lay_hand, lay_table
from datasets.synth.options import FULL, MAKERS, TRAINING_LAYOUTS, UNSEEN_MAKERS, SceneOptions
from datasets.synth.photograph import render
from datasets.synth.printed import lay_printed
from datasets.synth.styles import TileStyle, maker_extras, makers_pips, random_tile_style

__all__ = [
    "FLAT_MM",
    "FULL",
    "MAKERS",
    "MARKER_SHAPES",
    "TRAINING_LAYOUTS",
    "UNSEEN_MAKERS",
    "Marker",
    "PlacedTile",
    "Scene",
    "SceneOptions",
    "Train",
    "make_scene",
    "render",
    "shaped",
]

FLAT_MM = 1.0
"""A tile's thickness with ``SceneOptions.thickness`` off."""


def shaped(style: TileStyle, options: SceneOptions) -> TileStyle:
    """The set's style with the shape choices ``options`` switches off taken out (after every
    random draw, so the rest of the scene stays the same)."""
    length, width, thickness = style.size_mm
    return dataclasses.replace(
        style,
        spinner=style.spinner and options.spinner,
        corner_radius=style.corner_radius if options.rounded_corners else 0.0,
        size_mm=(length, width, thickness if options.thickness else FLAT_MM),
    )


def make_scene(kind: str, seed: int, options: SceneOptions = FULL) -> Scene:
    """A random scene of ``kind`` ('hand' or 'table'), the same for the same seed."""
    rng = random.Random(seed)
    highest = rng.choice(options.sets)
    look = (options.pip_styles, options.makers_layouts, options.film, options.film_share)
    style = shaped(random_tile_style(rng, highest, *look), options)
    looks = random.Random(f"maker-{seed}")  # a stream of its own: scenes of other sets draw as before
    style = maker_extras(style, looks, options.bright_sets, options.printed_backs)
    style = makers_pips(style, random.Random(f"layout-{seed}"), options.layouts, options.pip_shapes)
    scene = Scene(kind, seed, highest, style, rng.choice(options.tables))
    if kind == "hand":
        lay_hand(scene, rng, options)
    elif kind == "table":
        lay_table(scene, rng, options)
    else:
        raise ValueError(f"invalid scene kind: {kind!r} (expected hand or table)")
    add_glare(scene, rng, options)
    busy = random.Random(f"busy-{seed}")  # a stream of its own: quiet tables draw as before
    if options.busy and busy.random() < options.busy:
        lay_printed(scene, busy)
    if not options.glare:
        for tile in scene.tiles:
            tile.glare = 0.0
    return scene
