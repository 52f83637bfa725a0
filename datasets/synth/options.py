"""The renderer's options: which of its choices for realism a set is drawn with, and the named
presets (``FULL``, ``MAKERS``, ``UNSEEN_MAKERS``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from datasets.synth.pips import HELD_OUT, LAYOUTS
from datasets.synth.styles import BRIGHT_SETS, FILM_SHARE, PIP_SHAPES, PIP_STYLES, PRINTED_BACKS
from datasets.synth.table import TABLE_KINDS
from engine.tiles import SET_SIZES


@dataclass(frozen=True)
class SceneOptions:
    """The renderer's choices that matter for realism, each of which can be switched off to
    measure what it does for real photos (benchmarks/realism.py)."""

    pip_styles: tuple[str, ...] = PIP_STYLES
    """Which pip looks sets may have: 'colour' (the colour code), 'black', 'white' (dark tiles)."""
    glare: bool = True
    glare_share: float = 0.4
    """Glare in this share of the scenes ..."""
    glare_tiles: float = 0.3
    """... on this share of their tiles, ..."""
    glare_strength: tuple[float, float] = (0.3, 0.9)
    """... as strong as this (the most it lifts the face, as a share of white)."""
    shadows: bool = True
    photo: bool = True
    """Lens distortion, light colour, falloff, blur, sensor noise and JPEG."""
    max_tilt_deg: float = 45.0
    min_tilt_deg: float = 0.0
    """Above 0: every camera tilted at least this far (``datasets.synth.camera.CameraChoice``), for steep sets."""
    tables: tuple[str, ...] = TABLE_KINDS
    """Which table tops scenes are laid on."""
    train_gaps_mm: tuple[float, float] = (0.0, 1.5)
    """How far apart a table's train tiles lie, end to end (the usual: pushed together by hand); wider
    to test train following on spacings it was not tuned on (issue 65)."""
    double_shift: float = 0.0
    """How far a crosswise double in a table's train may sit off the train's line, as a share of its
    length either way (0: centred, as trains were tuned on)."""
    distractors: bool = True
    """Face-down and standing tiles among the face-up ones."""
    standing_share: float = 0.2
    """... standing tiles in this share of the hands ..."""
    most_standing: int = 3
    """... up to this many."""
    face_down_share: float = 0.3
    """Face-down tiles in this share of the hands ..."""
    most_face_down: int = 3
    """... up to this many."""
    sets: tuple[int, ...] = SET_SIZES
    """Which sets (highest doubles) scenes are dealt from."""
    makers_layouts: bool = True
    """Pip sizes and spacing as makers differ (else every set has the usual layout)."""
    film: bool = True
    """Some sets still in their shrink wrap ..."""
    film_share: float = FILM_SHARE
    """... this share of them (``datasets.synth.styles.FILM_SHARE``)."""
    close_hands: bool = True
    """Hands framed by their tiles (a tile 9-40 % of the longer side, as in real hand photos,
    where the median is 19 %) rather than by the whole scene (median 9 %)."""
    hand_tile_share: tuple[float, float] = (0.09, 0.4)
    """How long a tile is in a hand framed by its tiles, as shares of the photo's longer side (drawn
    log-uniformly; a large hand may be framed wider still, to fit)."""
    spinner: bool = True
    """Half the sets with a brass pin in the divider's middle (else none)."""
    rounded_corners: bool = True
    """Tiles with rounded corners (else square ones)."""
    thickness: bool = True
    """Tiles as thick as real ones (17-22 % of their length), their sides showing when the camera
    is tilted (else 1 mm sheets)."""
    bright_sets: float = BRIGHT_SETS
    """Share of sets with a saturated body and pips of one colour (``datasets.synth.styles.BRIGHT_BODIES``)."""
    printed_backs: float = PRINTED_BACKS
    """Share of sets with a brand's letters printed on their backs."""
    layouts: tuple[str, ...] = ("classic",)
    """The layout families (``datasets.synth.pips.LAYOUTS``) a set's counts above 6 are drawn in, one per
    set (the default, classic alone, draws what generator 13 drew; TRAINING_LAYOUTS for counters that
    must count any maker's; ``datasets.synth.pips.HELD_OUT`` to measure them)."""
    pip_shapes: tuple[str, ...] = ("round",)
    """The pip shapes (``datasets.synth.styles.PIP_SHAPES``) a set's pips are drawn in, one per set."""
    greyscale: float = 0.0
    """Share of photos taken (or sent) in greyscale."""
    busy: float = 0.0
    """Share of busy tables: a printed game board under part of the layout, pictures of dominoes, a
    box lid, a score pad, cards and coins, none of them labelled (``datasets.synth.printed``)."""


FULL = SceneOptions()
TRAINING_LAYOUTS = tuple(family for family in LAYOUTS if family not in HELD_OUT)
"""The layout families counters may learn; the rest are kept to measure them."""
MAKERS = dataclasses.replace(FULL, layouts=TRAINING_LAYOUTS, pip_shapes=PIP_SHAPES, greyscale=0.1)
"""Every maker's look a counter may learn: the training layout families, every pip shape, some photos grey."""
UNSEEN_MAKERS = dataclasses.replace(MAKERS, layouts=HELD_OUT)
"""MAKERS with every set laid out in a family held out of training (``datasets.synth.pips.HELD_OUT``)."""
