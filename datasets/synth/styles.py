"""How sets, tables and light look: the choices a scene is drawn from.

Colours are BGR. The pip colours follow the common double-12 colour code
(1 light blue, 2 green, 3 red, 4 brown, 5 dark blue, 6 yellow, 7 violet, 8 dark
green, 9 navy, 10 pink, 11 dark grey-green, 12 orange) and carry on for 13-18; most
colour-coded sets deal the same colours out to other numbers (SHUFFLED_CODES).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from datasets.synth.pips import EDGE

Colour = tuple[int, int, int]

PIP_COLOURS: dict[int, Colour] = {
    1: (225, 185, 70),  # light blue
    2: (60, 140, 40),  # green
    3: (40, 40, 200),  # red
    4: (40, 80, 130),  # brown
    5: (150, 60, 20),  # dark blue
    6: (30, 190, 235),  # yellow
    7: (170, 80, 150),  # violet
    8: (70, 100, 20),  # dark green
    9: (90, 30, 30),  # navy
    10: (150, 90, 230),  # pink
    11: (70, 80, 60),  # dark grey-green
    12: (20, 120, 240),  # orange
    13: (120, 130, 30),  # teal
    14: (60, 60, 120),  # maroon
    15: (200, 150, 160),  # lilac
    16: (30, 160, 160),  # olive
    17: (120, 110, 110),  # grey
    18: (20, 20, 20),  # black
}

IVORY, WHITE, CREAM = (200, 232, 240), (245, 247, 247), (185, 220, 235)
DARK_BODIES: tuple[Colour, ...] = ((30, 30, 30), (45, 90, 30), (80, 40, 20), (35, 35, 110))


@dataclass(frozen=True)
class TileStyle:
    body: Colour
    """The face and body colour."""
    pips: str
    """'colour' (the colour code), 'black', 'white' (on dark tiles), or 'tint' (every pip ``tint``: bright sets)."""
    divider: Colour
    spinner: bool
    """A brass pin in the middle of the divider."""
    back: Colour
    size_mm: tuple[float, float, float]
    """Length, width, thickness."""
    palette: tuple[Colour, ...] = tuple(PIP_COLOURS.values())
    """The colour of 1 to 18 pips when colour coded."""
    pip_scale: float = 1.0
    """The maker's pip size against the usual (datasets.synth.pips.pip_radius)."""
    pip_edge: float = EDGE
    """How near the half's edges the maker sets the outer pips (datasets.synth.pips.EDGE)."""
    layout_family: str = "classic"
    """How the maker lays out the counts above 6 (``datasets.synth.pips.LAYOUTS``)."""
    layout_seed: int = 0
    """Which scatter the ``scattered`` family draws (``datasets.synth.pips.layout``)."""
    pip_shape: str = "round"
    """The maker's pips (``PIP_SHAPES``): drilled round ones, flat printed discs, hollow rings, stars."""
    corner_radius: float = 0.1
    """The corners' radius against the tile's width."""
    film: bool = False
    """Still in its shrink wrap: creased plastic over every face, bright streaks across pips."""
    tint: Colour = (25, 25, 25)
    """The colour of every pip where ``pips`` is 'tint' (bright sets: yellow pips on pink, say)."""
    back_print: str = ""
    """What the maker prints on every back (a brand's letters), in ``back_ink``; empty: a plain back."""
    back_ink: Colour = (25, 25, 25)
    back_across: bool = False
    """The letters run across the short side, large and bold over an arched bar of small stars (as on
    the real "RO" set in ../shared/real, whose backs were read as 0-1 and 0-2); else along the long side."""

    def pip_colour(self, count: int) -> Colour:
        if self.pips == "colour":
            return self.palette[count - 1] if count else (40, 40, 40)
        if self.pips == "tint":
            return self.tint
        return (245, 245, 245) if self.pips == "white" else (25, 25, 25)


PIP_STYLES = ("colour", "black", "white")
PIP_SHAPES = ("round", "printed", "ring", "star")
"""How makers' pips look: drilled and filled (the default), printed flat, hollow rings, small stars."""
FILM_SHARE = 0.25
"""Share of sets photographed still in their shrink wrap (one of the four labelled real sets)."""
SHUFFLED_CODES = 0.75
"""Share of colour-coded sets whose colours go to other numbers: makers differ (the real
double-12 set in ../shared/real has orange 10s, red 11s and grey 12s), so the counter must
count pips, not learn which colour means which number."""


def random_tile_style(
    rng: random.Random,
    highest: int,
    pip_styles: tuple[str, ...] = PIP_STYLES,
    makers_layouts: bool = True,
    film: bool = True,
    film_share: float = FILM_SHARE,
) -> TileStyle:
    """A set's look: light bodies with coloured or black pips, or dark bodies with white pips.
    ``makers_layouts``: pips larger or smaller and nearer or farther from the edges than the usual,
    as makers differ; ``film``: some sets (``film_share`` of them) still in their shrink wrap. Either
    switched off, or another share, draws the same random numbers, so the rest of the scene stays the
    same."""
    if "white" in pip_styles and (rng.random() < 0.2 or pip_styles == ("white",)):
        body = rng.choice(DARK_BODIES)
        pips, divider = "white", (210, 210, 210)
    else:
        body = _jitter(rng, rng.choice((IVORY, WHITE, CREAM)), 12)
        light_styles = [style for style in ("colour", "black") if style in pip_styles] or ["black"]
        coloured = rng.random() < (0.7 if highest >= 9 else 0.4)
        pips = "colour" if coloured and "colour" in light_styles else light_styles[-1]
        divider = rng.choice([(30, 30, 30), (60, 60, 60), (40, 110, 170)])
    palette = list(PIP_COLOURS.values())
    if rng.random() < SHUFFLED_CODES:
        rng.shuffle(palette)
    length = {6: 48.0, 9: 50.0, 12: 54.0, 15: 54.0, 18: 57.0}[highest] * rng.uniform(0.93, 1.07)
    return TileStyle(
        body=body,
        pips=pips,
        divider=divider,
        spinner=rng.random() < 0.5,
        back=body if rng.random() < 0.7 else _jitter(rng, body, 30),
        size_mm=(length, length / 2, length * rng.uniform(0.17, 0.22)),
        palette=tuple(palette),
        **_maker(rng, makers_layouts, film, film_share),
    )


BRIGHT_BODIES: tuple[Colour, ...] = (
    (180, 105, 255),  # pink
    (150, 40, 240),  # hot pink
    (40, 40, 200),  # red
    (30, 130, 245),  # orange
    (40, 210, 240),  # yellow
    (60, 170, 60),  # green
    (200, 110, 30),  # blue
    (230, 180, 90),  # light blue
    (160, 60, 130),  # purple
    (150, 150, 20),  # teal
)
"""Saturated bodies, as plastic sets come: the renderer had only ivory, white, cream and dark bodies,
and the detector found none of the pink tiles with yellow pips in a real photo of them on black
leather (Rakeduk__Domino_Detector/b4.jpg in ../shared/real)."""
TINTS: tuple[Colour, ...] = ((245, 245, 245), (0, 200, 255), (25, 25, 25), (40, 40, 190))
"""The one colour of a bright set's pips: white, gold, black or red, whichever stands out on its body."""
BRIGHT_SETS = 0.15
"""Share of sets with a bright body (``SceneOptions.bright_sets``)."""
PRINTED_BACKS = 0.3
"""Share of sets with letters printed on their backs (``SceneOptions.printed_backs``): a real set's
backs with a brand's letters and dots were read as 0-1 tiles (TAK1EDD1NE's Roboflow photo of them
in ../shared/real)."""
WHITE_INK: Colour = (235, 235, 235)
GOLD_INK: Colour = (0, 190, 240)
"""The inks of a printed back on a dark body (on a light one: near black)."""
BRANDS = ("RO", "DOMINO", "PUREMCO", "CARDINAL", "D6", "MT", "DOMINOES", "CLUB")


def luminance(colour: Colour) -> float:
    blue, green, red = colour
    return 0.114 * blue + 0.587 * green + 0.299 * red


def maker_extras(style: TileStyle, looks: random.Random, bright_sets: float, printed_backs: float) -> TileStyle:
    """``style`` made a bright set (a saturated body, pips and divider of one colour that stands out
    on it) for ``bright_sets`` of sets, and given printed backs for ``printed_backs`` of them, drawn
    from ``looks``, the scene's second random stream: the scene's own draws, and so every other set,
    stay as they were."""
    bright, printed = looks.random() < bright_sets, looks.random() < printed_backs
    if bright:
        body = _jitter(looks, looks.choice(BRIGHT_BODIES), 15)
        standing_out = [tint for tint in TINTS if abs(luminance(tint) - luminance(body)) > 60] or [TINTS[0]]
        tint = looks.choice(standing_out)
        divider = tint if looks.random() < 0.6 else (30, 30, 30)
        style = replace(style, body=body, pips="tint", tint=tint, divider=divider, back=body)
    if printed:
        ink = (25, 25, 25) if luminance(style.back) > 110 else looks.choice((WHITE_INK, GOLD_INK))
        brand = looks.choice(BRANDS)
        across = len(brand) <= 3 or looks.random() < 0.3
        style = replace(style, back_print=brand, back_ink=ink, back_across=across)
    return style


def makers_pips(style: TileStyle, looks: random.Random, layouts: tuple[str, ...], shapes: tuple[str, ...]) -> TileStyle:
    """``style`` with a layout family and a pip shape drawn from ``layouts`` and ``shapes``, from
    ``looks``, a stream of its own (one choice each draws nothing: the scene stays as it was)."""
    family = looks.choice(layouts) if len(layouts) > 1 else layouts[0]
    shape = looks.choice(shapes) if len(shapes) > 1 else shapes[0]
    seed = looks.randrange(1 << 30) if family == "scattered" else 0
    return replace(style, layout_family=family, pip_shape=shape, layout_seed=seed)


def _maker(rng: random.Random, makers_layouts: bool, film: bool, film_share: float) -> dict[str, float | bool]:
    scale, edge, wrapped = rng.uniform(0.85, 1.5), rng.uniform(0.15, 0.25), rng.random() < film_share
    layout = {"pip_scale": scale, "pip_edge": edge} if makers_layouts else {}
    return {**layout, "film": wrapped and film}


def _jitter(rng: random.Random, colour: Colour, amount: int) -> Colour:
    return tuple(max(0, min(255, channel + rng.randint(-amount, amount))) for channel in colour)  # type: ignore[return-value]
