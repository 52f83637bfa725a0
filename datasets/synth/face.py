"""Tile faces drawn flat, as textures to be laid onto the scene.

A face texture is ``(height, width)`` with the long side horizontal: half
``pips[0]`` on the left, so the left short edge is corners[0]->corners[1] in
``FACE_CORNERS`` order.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.synth.pips import EDGE, layout, pip_radius
from datasets.synth.styles import GOLD_INK, WHITE_INK, Colour, TileStyle

SHIFT = 4  # sub-pixel drawing: cv2 coordinates in 1/16 px
STAR_GOLD: Colour = (0, 180, 230)
"""The small stars on the bar of a back printed across."""


def _fixed(point: tuple[float, float]) -> tuple[int, int]:
    """A point (or ellipse axes) in cv2's sub-pixel fixed point (SHIFT bits)."""
    return round(point[0] * (1 << SHIFT)), round(point[1] * (1 << SHIFT))


def face_corners(width: int, height: int) -> np.ndarray:
    """Texture corners in label order: left short edge first, then round the face."""
    return np.array([[0, 0], [0, height], [width, height], [width, 0]], dtype=np.float32)


def pip_centres(
    pips: tuple[int, int], width: int, height: int, edge: float = EDGE, family: str = "classic", seed: int = 0
) -> list[tuple[float, float, int]]:
    """(x, y, half) of every pip on a face texture; half 1 is half 0's layout turned round."""
    centres = []
    for half, count in enumerate(pips):
        for u, v in layout(count, round(edge, 3), family, seed):  # rounded: layouts are cached by edge
            x, y = v * width / 2, u * height
            centres.append((x, y, 0) if half == 0 else (width - x, height - y, 1))
    return centres


@dataclass(frozen=True)
class Face:
    """A tile's face as drawn, with what of it can still be read."""

    image: np.ndarray
    """BGR, ``(height, width)`` with the long side horizontal."""
    alpha: np.ndarray
    hidden: tuple[bool, bool]
    """Whether each half has a pip that glare or the shrink wrap's sheen washed out (see HIDDEN_CONTRAST)."""


HIDDEN_CONTRAST = 6.0
"""A pip is hidden (labelled ``hidden``, still counted) where glare and film leave it within this many
grey levels of the bare face: 7 of the seed-7 hands' 1,514 face-up tiles have one."""


def render_face(
    pips: tuple[int, int], style: TileStyle, width: int, rng: random.Random, glare: float = 0.0, film: bool = False
) -> Face:
    """The face of tile ``pips`` at ``width`` px long; ``film`` draws the set's shrink wrap (if it
    has one) over it. The glare and film are laid on the bare face (body and divider) too, to tell
    which pips they wash out."""
    height = width // 2
    face = _body(style.body, width, height, rng)
    divider_px = max(1, round(width * 0.012))
    cv2.line(
        face,
        (width // 2, round(height * 0.12)),
        (width // 2, round(height * 0.88)),
        style.divider,
        divider_px,
        cv2.LINE_AA,
    )
    bare = face.copy()
    drilled, halves = [], []
    for half, count in enumerate(pips):
        radius = pip_radius(count, style.pip_scale, style.pip_edge, style.layout_family) * height
        for x, y, side in pip_centres(pips, width, height, style.pip_edge, style.layout_family, style.layout_seed):
            if side == half:
                _pip(face, x, y, radius, style.pip_colour(count), style.body, shape=style.pip_shape)
                drilled.append((x, y, radius))
                halves.append(half)
    if style.spinner:
        _pip(face, width / 2, height / 2, height * 0.07, (60, 150, 190), (90, 190, 220), metal=True)
        _pip(bare, width / 2, height / 2, height * 0.07, (60, 150, 190), (90, 190, 220), metal=True)
    sheens = []
    if glare > 0:
        sheens.append(_glare(face.shape[:2], rng, glare))
    if film and style.film:
        sheens.append(_film(face.shape[:2], rng, drilled))
    for keep, lift in sheens:
        _lift(face, keep, lift)
        _lift(bare, keep, lift)
    washed_out = [False] * len(drilled)
    if sheens:
        washed_out = [contrast < HIDDEN_CONTRAST for contrast in pip_contrasts(face, bare, drilled)]
    in_half = [[out for out, side in zip(washed_out, halves, strict=True) if side == half] for half in (0, 1)]
    hidden = any(in_half[0]), any(in_half[1])
    return Face(face, _rounded_mask(width, height, radius=round(height * style.corner_radius)), hidden)


def pip_contrasts(face: np.ndarray, bare: np.ndarray, pips: list[tuple[float, float, float]]) -> list[float]:
    """How much each pip ``(x, y, radius)`` differs from the bare face under it: the largest
    difference of any channel's mean over the pip."""
    contrasts = []
    for x, y, radius in pips:
        mask = np.zeros(face.shape[:2], np.uint8)
        cv2.circle(mask, _fixed((x, y)), round(radius * (1 << SHIFT)), 255, -1, cv2.LINE_AA, SHIFT)
        drawn, underneath = cv2.mean(face, mask)[:3], cv2.mean(bare, mask)[:3]
        contrasts.append(max(abs(a - b) for a, b in zip(drawn, underneath, strict=True)))
    return contrasts


def _lift(face: np.ndarray, keep: float, lift: np.ndarray) -> None:
    """A sheen laid on: the face dimmed to ``keep`` of itself and ``lift`` (grey levels per pixel) added."""
    lifted = face.astype(np.float32) * keep + lift[:, :, None]
    face[:] = np.clip(lifted, 0, 255).astype(np.uint8)


def render_back(style: TileStyle, width: int, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """The back of a tile: the body or back colour, with the maker's letters where it prints them."""
    height = width // 2
    radius = round(height * style.corner_radius)
    back = _body(style.back, width, height, rng)
    if style.back_print:
        _print(back, style.back_print, style.back_ink, style.back_across)
        # The renderer lays every texture on as seen in a mirror (datasets.synth.render.Box.faces: u x v
        # is the outward normal); pips do not show it, letters would read backwards.
        back = cv2.flip(back, 0)
    return back, _rounded_mask(width, height, radius)


def _print(back: np.ndarray, text: str, ink: Colour, across: bool = False) -> None:
    """A brand's letters on a back (no random draws: every back of a set is printed alike): along the
    long side with a row of dots under them, or across the short side, large and bold, over an arched
    bar set with small gold stars, as real sets print them."""
    height, width = back.shape[:2]
    if across:  # drawn upright on a canvas of its own, then turned to lie across the tile
        alpha, stars = np.zeros((width, height), np.uint8), np.zeros((width, height), np.uint8)
        _letters_over_bar(alpha, stars, text)
        star_colour = STAR_GOLD if ink != GOLD_INK else WHITE_INK  # gold letters: white stars
        layers = [
            (cv2.rotate(alpha, cv2.ROTATE_90_CLOCKWISE), ink),
            (cv2.rotate(stars, cv2.ROTATE_90_CLOCKWISE), star_colour),
        ]
    else:
        alpha = np.zeros((height, width), np.uint8)
        _letters_over_dots(alpha, text)
        layers = [(alpha, ink)]
    for layer, colour in layers:
        weight = layer.astype(np.float32)[:, :, None] / 255
        back[:] = (back * (1 - weight) + np.float32(colour) * weight).astype(np.uint8)


def _letters_over_dots(alpha: np.ndarray, text: str) -> None:
    height, width = alpha.shape
    font = cv2.FONT_HERSHEY_DUPLEX
    (text_width, text_height), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = min(0.8 * width / text_width, 0.45 * height / text_height)
    weight = max(1, round(scale * 2))
    (text_width, text_height), _ = cv2.getTextSize(text, font, scale, weight)
    origin = ((width - text_width) // 2, (height + text_height) // 2 - round(0.08 * height))
    cv2.putText(alpha, text, origin, font, scale, 255, weight, cv2.LINE_AA)
    dot_y = origin[1] + round(0.15 * height)
    for x in np.linspace(0.3, 0.7, 5) * width:
        cv2.circle(alpha, (round(x), dot_y), max(1, round(0.025 * height)), 255, -1, cv2.LINE_AA)


def _letters_over_bar(alpha: np.ndarray, stars: np.ndarray, text: str) -> None:
    """Upright letters filling most of the short side, a little above the middle, and under them a
    shallow arch drawn as a thick bar with five small stars in it."""
    height, width = alpha.shape  # portrait: width is the tile's short side
    font = cv2.FONT_HERSHEY_DUPLEX
    (text_width, text_height), _ = cv2.getTextSize(text, font, 1.0, 3)
    scale = min(0.85 * width / text_width, 0.24 * height / text_height)
    weight = max(2, round(scale * 4))
    (text_width, text_height), _ = cv2.getTextSize(text, font, scale, weight)
    origin = ((width - text_width) // 2, round(0.5 * height))
    cv2.putText(alpha, text, origin, font, scale, 255, weight, cv2.LINE_AA)
    bar_y, bar_half = origin[1] + round(0.09 * height), round(0.42 * width)
    sag = round(0.012 * height)
    centre = (width // 2, bar_y - sag)
    cv2.ellipse(alpha, centre, (bar_half, 2 * sag), 0, 20, 160, 255, max(2, round(0.035 * height)), cv2.LINE_AA)
    for angle in np.linspace(40, 140, 5):
        x = centre[0] + bar_half * math.cos(math.radians(angle))
        y = centre[1] + 2 * sag * math.sin(math.radians(angle))
        cv2.circle(stars, (round(x), round(y)), max(1, round(0.012 * height)), 255, -1, cv2.LINE_AA)


def _body(colour: Colour, width: int, height: int, rng: random.Random) -> np.ndarray:
    """A body colour with a faint gradient and grain, as moulded plastic or bone."""
    grain = np.random.default_rng(rng.randrange(2**32)).standard_normal((height, width), dtype=np.float32) * 2.5
    grain += np.linspace(-6, 6, width, dtype=np.float32)[None, :] * rng.choice((-1, 1))
    return cv2.merge([cv2.convertScaleAbs(grain + float(channel)) for channel in colour])


def _pip(
    face: np.ndarray,
    x: float,
    y: float,
    radius: float,
    colour: Colour,
    body: Colour,
    metal: bool = False,
    shape: str = "round",
) -> None:
    """A pip as the maker makes it (``shape``): drilled (a darker rim, the filled colour, a small
    highlight), printed flat, a hollow ring or a five-pointed star."""
    centre = _fixed((x, y))
    if shape == "printed":
        cv2.circle(face, centre, round(radius * (1 << SHIFT)), colour, -1, cv2.LINE_AA, SHIFT)
        return
    if shape == "ring":
        thickness = max(1, round(radius * 0.35))
        inner = max(radius - thickness / 2, 0.5)
        cv2.circle(face, centre, round(inner * (1 << SHIFT)), colour, thickness, cv2.LINE_AA, SHIFT)
        return
    if shape == "star":
        angles = np.pi / 2 + np.arange(10) * np.pi / 5
        reach = np.where(np.arange(10) % 2 == 0, radius * 1.15, radius * 0.5)
        points = np.stack([x + reach * np.cos(angles), y - reach * np.sin(angles)], axis=1)
        cv2.fillPoly(face, [np.round(points * (1 << SHIFT)).astype(np.int32)], colour, cv2.LINE_AA, SHIFT)
        return
    rim = tuple(int(c * 0.55) for c in colour) if sum(colour) > 120 else tuple(min(255, c + 40) for c in colour)
    cv2.circle(face, centre, round(radius * (1 << SHIFT)), rim, -1, cv2.LINE_AA, SHIFT)
    cv2.circle(face, centre, round(radius * 0.8 * (1 << SHIFT)), colour, -1, cv2.LINE_AA, SHIFT)
    if metal or radius > 2.5:
        spot = _fixed((x - radius * 0.3, y - radius * 0.3))
        highlight = tuple(min(255, int(c * 0.6 + 110)) for c in colour)
        cv2.circle(face, spot, max(1, round(radius * 0.22 * (1 << SHIFT))), highlight, -1, cv2.LINE_AA, SHIFT)


def _glare(shape: tuple[int, int], rng: random.Random, strength: float) -> tuple[float, np.ndarray]:
    """A specular highlight: a soft bright ellipse that can wash out pips (as ``_lift`` lays it on)."""
    height, width = shape
    spot = np.zeros((height, width), np.float32)
    centre = (rng.randrange(width), rng.randrange(height))
    axes = (rng.randint(width // 10, width // 3), rng.randint(height // 8, height // 2))
    cv2.ellipse(spot, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1, cv2.LINE_AA)
    spot = cv2.GaussianBlur(spot, (0, 0), max(axes) / 3)
    return 1.0, strength * 255 * spot


def _film(
    shape: tuple[int, int], rng: random.Random, pips: list[tuple[float, float, float]]
) -> tuple[float, np.ndarray]:
    """Shrink wrap (as ``_lift`` lays it on): a faint haze, soft bright bands, creases that catch the
    light as thin streaks running across the face and its pips, crumpled glossy patches, and the
    dimples the film makes over drilled pips, which mirror the light as white flecks inside them (as
    on the wrapped double-6 set in ../shared/real, where the pipeline's misread halves were)."""
    height, width = shape
    creases = np.zeros((height, width), np.float32)
    bands = np.zeros((height, width), np.float32)
    _dimples(creases, rng, pips)
    for _ in range(rng.randint(0, 3)):
        _patch(creases, rng)
    for layer, count, thickness, brightness in (
        (creases, rng.randint(1, 6), (0.006, 0.03), (0.15, 0.9)),
        (bands, rng.randint(0, 2), (0.1, 0.25), (0.1, 0.3)),
    ):
        for _ in range(count):
            _crease(layer, rng, max(1, round(height * rng.uniform(*thickness))), rng.uniform(*brightness))
    creases = cv2.GaussianBlur(creases, (0, 0), max(0.5, height * 0.008))
    bands = cv2.GaussianBlur(bands, (0, 0), height * 0.08)
    haze = rng.uniform(0.0, 0.12)
    return 1 - haze, 255 * (haze + creases + bands)


DIMPLE_SHARE = 0.6
"""Share of a wrapped tile's pips whose dimple catches the light."""


def _dimples(layer: np.ndarray, rng: random.Random, pips: list[tuple[float, float, float]]) -> None:
    """White flecks inside pips: a few small ellipses clustered off each lit pip's centre, kept
    within the pip (the film bridges the pip's hole; over the body it lies flat)."""
    flecks = np.zeros_like(layer)
    holes = np.zeros_like(layer)
    for x, y, radius in pips:
        if rng.random() >= DIMPLE_SHARE:
            continue
        cv2.circle(holes, _fixed((x, y)), round(radius * (1 << SHIFT)), 1.0, -1, cv2.LINE_AA, SHIFT)
        side = rng.uniform(0, 2 * math.pi)  # the side of the dimple that faces the light
        for _ in range(rng.randint(1, 4)):
            offset = rng.uniform(0.0, 0.5) * radius
            angle = side + rng.uniform(-0.8, 0.8)
            centre = (x + offset * math.cos(angle), y + offset * math.sin(angle))
            axes = _fixed((radius * rng.uniform(0.2, 0.8), radius * rng.uniform(0.08, 0.4)))
            turn = math.degrees(angle) + 90 + rng.uniform(-30, 30)
            cv2.ellipse(flecks, _fixed(centre), axes, turn, 0, 360, rng.uniform(0.4, 1.0), -1, cv2.LINE_AA, SHIFT)
    np.maximum(layer, flecks * holes, out=layer)


def _patch(layer: np.ndarray, rng: random.Random) -> None:
    """A crumpled glossy patch: an irregular bright polygon."""
    height, width = layer.shape
    centre = np.array([rng.uniform(0, width), rng.uniform(0, height)])
    size = height * rng.uniform(0.05, 0.3)
    angles = np.sort(np.array([rng.uniform(0, 2 * math.pi) for _ in range(rng.randint(5, 9))]))
    reach = np.array([rng.uniform(0.3, 1.0) for _ in angles]) * size
    points = centre + np.stack([np.cos(angles), np.sin(angles)], axis=1) * reach[:, None]
    cv2.fillPoly(layer, [np.round(points).astype(np.int32)], rng.uniform(0.15, 0.5), cv2.LINE_AA)


def _crease(layer: np.ndarray, rng: random.Random, thickness: int, brightness: float) -> None:
    """One gently bent line across part of the face."""
    height, width = layer.shape
    start = np.array([rng.uniform(0, width), rng.uniform(0, height)])
    angle = rng.uniform(0, math.pi)
    reach = rng.uniform(0.2, 1.0) * width
    direction = np.array([math.cos(angle), math.sin(angle)])
    bend = np.array([-direction[1], direction[0]]) * rng.uniform(-0.15, 0.15) * reach
    t = np.linspace(-0.5, 0.5, 12)[:, None]
    points = start + t * reach * direction + (1 - 4 * t**2) * bend
    cv2.polylines(layer, [np.round(points).astype(np.int32)], False, brightness, thickness, cv2.LINE_AA)


def _rounded_mask(width: int, height: int, radius: int) -> np.ndarray:
    if radius <= 0:
        return np.full((height, width), 255, np.uint8)
    mask = np.zeros((height, width), np.uint8)
    cv2.rectangle(mask, (radius, 0), (width - 1 - radius, height - 1), 255, -1)
    cv2.rectangle(mask, (0, radius), (width - 1, height - 1 - radius), 255, -1)
    for cx, cy in (
        (radius, radius),
        (width - 1 - radius, radius),
        (radius, height - 1 - radius),
        (width - 1 - radius, height - 1 - radius),
    ):
        cv2.circle(mask, (cx, cy), radius, 255, -1, cv2.LINE_AA)
    return mask
