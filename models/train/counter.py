"""Training the half counter (torch, the train extra) and exporting it to ONNX.

Halves come from synthetic scenes, cut with ``vision.read.halves`` exactly as the
reader cuts them at run time. The network is small (four convolutions, about 70 k
weights): a half needs little, and it must run on a laptop CPU in a few milliseconds.
"""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from datasets.corners import loosen
from datasets.labels import FACE_DOWN, FACE_UP
from datasets.synth.dataset import GENERATOR_VERSION
from datasets.synth.face import face_corners, pip_centres
from datasets.synth.scene import FULL, MAKERS, SceneOptions, make_scene, render
from datasets.synth.styles import TileStyle
from models.train import smallnet
from models.train.smallnet import (
    Checkpoint,
    conv_block,
    fit,
    flips,
    glossy_patches,
    halving_block,
    held_out,
    images_only,
    predict,
    small_cnn,
)
from vision.read.halves import HALF_PX, cut_halves, in_half, rectified_corners
from vision.read.pip_reader import COUNTS

MIN_SHORT_SIDE_PX = 14
"""Tiles smaller than this in the photo are left out of training: their pips cannot be seen."""
LOOSE_SHARE = 0.7
"""Share of training tiles cut with jittered corners, as a detector finds them (the rest exact)."""


BACK = COUNTS
"""The class of a half of a printed back (``CounterRecipe.back_scenes``): no face, so nothing to count
(see vision.read.pip_reader.COUNTS)."""


HIGH_SETS, HIGH_SEED_OFFSET = (15, 18), 7
"""Counts 13-18 exist only in double-15 and double-18 sets: a hundredth of the halves each when
scenes are dealt from every set, and the worst read (synthetic hands: 16 and 17 pips 5 of 46)."""
BRIGHT_SEED_OFFSET = 11
"""The seed offset of ``CounterRecipe.bright_scenes``, whose sets are all bright (saturated bodies)."""
BACK_SEED_OFFSET = 13
"""The seed offset of ``CounterRecipe.back_scenes``."""
TABLE_SEED_OFFSET = 17
"""The seed offset of ``CounterRecipe.table_scenes``."""
FRAME_SEED_OFFSET = 19
"""The seed offset of ``CounterRecipe.frame_rounds``."""
FRAME_SIZE = (1280, 720)
"""The video frame ``CounterRecipe.frame_rounds`` are filmed at (``hubcam synth --kind video``'s)."""
FRAME_PICKS, FRAME_WHOLE_SHARE = 3, 0.3
"""A round's states photographed, and the share also given as the whole frame (``datasets.synth.video_frames``)."""
MIN_FRAME_SHORT_SIDE_PX = 9
"""A video frame's tiles narrower than this are left out: a watch reads tiles of 20 px and more (12 px wide),
and only the pip colours tell their halves apart there."""
BACKS_SHOWN = {"printed_backs": 1.0, "face_down_share": 1.0, "most_face_down": 4}
"""The options of ``CounterRecipe.back_scenes``: every set's backs printed, and one to four tiles face down
in every hand."""


@dataclass(frozen=True)
class CounterRecipe:
    scenes: int = 600
    high_scenes: int = 0
    """Extra scenes dealt from HIGH_SETS only (the bundled counter learnt 2,500; more did not help:
    benchmarks/HISTORY.md)."""
    epochs: int = 8
    """(Trained longer from nothing, on a larger mix, was not better: benchmarks/HISTORY.md.)"""
    seed: int = 0
    batch: int = 128
    max_lr: float = 3e-3
    glossy: float = 0.0
    """Share of training halves seen under a specular reflection (``models.train.smallnet.glossy_patches``):
    0.3 in the bundled counter (its card: validation totals on labelled corners 0.968 -> 0.973,
    real halves read once 0.988 -> 0.994)."""
    half_px: int = HALF_PX
    """The side of a half as the counter sees it."""
    bright_scenes: int = 0
    """Extra scenes whose sets all have a saturated body and pips of one colour
    (``datasets.synth.styles.BRIGHT_BODIES``; generator 11), which a counter taught only light and dark
    bodies read at 0.55 of halves right on their labelled corners."""
    back_scenes: int = 0
    """Extra scenes (``BACKS_SHOWN``) whose face-down tiles' printed backs are cut into halves as a face
    is and taught as BACK (a 20th output), but for those the counter it starts from (else the bundled
    one) reads blank (``read_blank``): the bundled detector takes some printed backs for faces
    (generator 12's: a brand's letters over a bar and stars), and the verifier, at its 64 px, cannot
    tell them from plain tiles without turning real blank ones away; at 48 px a half, letters are no
    pips. Plain backs are not taught: read as blank halves they add nothing to a total."""
    table_scenes: int = 0
    """Extra table scenes (trains round a hub): their tiles are smaller in the photo than a hand's (a
    1280 x 960 table's median tile 64 px long, its halves about 32 px before they are cut at 48), and
    a counter taught only hands read 0.83 of them exactly on their labelled corners (generator 14)."""
    frame_rounds: int = 0
    """Extra rounds' video frames (``datasets.synth.video_frames``: the play region and the whole frame,
    with the light's drift, blur and the codec's blocks): a watched table's tiles are 20-50 px long,
    and the table-taught counter read 0.34-0.76 of their halves at 20-35 px on their labelled corners."""
    start_from: str = ""
    """A counter's ONNX export to go on training from (``models.train.smallnet.from_onnx``), not from nothing;
    one without the 20th output gains it (``models.train.smallnet.from_onnx`` grows the last layer)."""
    widths: tuple[int, ...] = (16, 32, 64, 64)
    """The network's channels (``models.train.smallnet.small_cnn``; the bundled counter's are these;
    slimmer and wider were not better: benchmarks/HISTORY.md)."""
    strided_stem: bool = False
    """The first convolution steps two pixels instead of being pooled after (``small_cnn``): about 1 ms
    less a hand, totals tied; the bundled counter has one."""
    peaks: bool = False
    """Find pips, not classify halves: the network maps how likely each place is a pip's middle
    (``peak_counter``), each place seeing only a pip's surroundings, and the count is the number of peaks,
    so no layout can be learnt in its place. Trained from nothing (``start_from`` is refused)."""
    makers: bool = False
    """Every scene drawn with ``datasets.synth.scene.MAKERS``' looks: the training layout families
    (``scattered`` among them, so layouts cannot be learnt in place of counting), every pip shape,
    some photos grey."""


@dataclass(frozen=True)
class HalvesJob:
    """One scene's halves to render: the scene, and the recipe saying what of its tiles to teach."""

    seed: int
    options: SceneOptions
    recipe: CounterRecipe = CounterRecipe()
    backs: bool = False
    """Teach the halves of printed backs too (as BACK)."""
    kind: str = "hand"
    """The scene's kind (``datasets.synth.scene.make_scene``): a hand, or a table."""


def scene_halves(job: HalvesJob) -> Halves:
    """The halves of one rendered hand scene's face-up tiles, their counts and (for a peak counter,
    else an empty array) their pips' maps (``pip_maps``), as ``job.recipe`` teaches them (tiles cut by
    the frame left out), cut at ``half_px``; with ``job.backs`` the halves of face-down tiles wholly in
    view of a set with printed backs, as BACK, but for those read blank (``read_blank``)."""
    seed, options = job.seed, job.options
    if job.kind == "frames":
        return frame_halves(job)
    rng = np.random.default_rng(seed)
    scene = make_scene(job.kind, seed, options)
    image, label = render(scene, (1280, 960), options)
    height, width = image.shape[:2]
    half_px = job.recipe.half_px
    corners, counts, backs, places = [], [], [], []
    for tile in label["tiles"]:
        if job.backs and scene.style.back_print and tile["pose"] == FACE_DOWN and not tile["cut"]:
            back = loosen(np.array(tile["corners"], np.float32), rng)  # drawn only here: reproduces
            corners.append(back)
            counts += [BACK, BACK]
            backs += [True, True]
            places += [np.zeros((0, 2), np.float32)] * 2
            continue
        if tile["pose"] != FACE_UP or tile["cut"]:
            continue
        quad = np.array(tile["corners"], np.float32)
        if np.linalg.norm(quad[1] - quad[0]) < MIN_SHORT_SIDE_PX:
            continue
        cut = loosen(quad, rng) if rng.random() < LOOSE_SHARE else quad
        corners.append(cut)
        counts += list(tile["pips"])
        backs += [False, False]
        if job.recipe.peaks:
            places += pip_places(tuple(tile["pips"]), scene.style, quad, cut, half_px)
    halves, classes = cut_halves(image, corners, half_px), np.array(counts, dtype=np.int64)
    maps = pip_maps(places, half_px) if job.recipe.peaks else np.zeros((len(halves), 0, 0), np.float32)
    of_backs = np.array(backs, bool)
    if of_backs.any():
        teacher = Path(job.recipe.start_from) if job.recipe.start_from else None
        classes[of_backs & read_blank(halves, teacher)] = -1  # a bar or plain body: blank, costing nothing
    taught = classes >= 0
    return halves[taught], classes[taught], maps[taught]


def frame_halves(job: HalvesJob) -> Halves:
    """The halves of one filmed round's face-up tiles wholly in view (``FRAME_PICKS`` of its states, each
    as the watcher reads it), cut as ``scene_halves`` cuts a scene's; no pip maps."""
    from datasets.synth.video_frames import round_frames

    rng = np.random.default_rng(job.seed)
    half_px = job.recipe.half_px
    halves, counts = [], []
    for image, label in round_frames(job.seed, FRAME_SIZE, FRAME_PICKS, FRAME_WHOLE_SHARE):
        corners = []
        for tile in label["tiles"]:
            quad = np.array(tile["corners"], np.float32)
            if tile["pose"] != FACE_UP or tile["cut"] or tile["unreadable"]:
                continue
            if np.linalg.norm(quad[1] - quad[0]) < MIN_FRAME_SHORT_SIDE_PX:
                continue
            corners.append(loosen(quad, rng) if rng.random() < LOOSE_SHARE else quad)
            counts += list(tile["pips"])
        halves.append(cut_halves(image, corners, half_px))
    return np.concatenate(halves), np.array(counts, dtype=np.int64), np.zeros((len(counts), 0, 0), np.float32)


def pip_places(
    pips: tuple[int, int], style: TileStyle, drawn: np.ndarray, cut: np.ndarray, half_px: int = HALF_PX
) -> list[np.ndarray]:
    """Where the pips of a tile drawn with ``style`` at corners ``drawn`` in the photo lie in each of its
    halves when it is cut at corners ``cut``: ``(k, 2)`` pixels, as ``cut_halves`` gives the halves. (The
    renderer's lens bends the photo a little past the face's plane: under a pixel on a half.)"""
    face = pip_centres(pips, 2, 1, style.pip_edge, style.layout_family, style.layout_seed)
    if not face:
        return [np.zeros((0, 2), np.float32)] * 2
    to_photo = cv2.getPerspectiveTransform(face_corners(2, 1), np.asarray(drawn, np.float32))
    to_face = cv2.getPerspectiveTransform(np.asarray(cut, np.float32), rectified_corners(half_px))
    on_face = cv2.perspectiveTransform(np.array([[(x, y) for x, y, _ in face]], np.float32), to_face @ to_photo)[0]
    sides = np.array([side for _, _, side in face])
    return [in_half(on_face[sides == half], half, half_px) for half in (0, 1)]


MAP_STEP = 2
"""A peak counter's map has a place for every 2 x 2 pixels of a half (its one pooling)."""
PIP_BLOB = 0.8
"""The spread (a Gaussian's sigma, in map places) round each pip's middle on a peak counter's target
map: the pips of a double-18's half are 3-4 places apart."""


def bell(offsets: np.ndarray) -> np.ndarray:
    return np.exp(-(offsets**2) / (2 * PIP_BLOB**2))


def pip_maps(places: list[np.ndarray], half_px: int = HALF_PX) -> np.ndarray:
    """``(n, side, side)`` float32 target maps (side = half_px / MAP_STEP): 1 at the place of each pip's
    middle, falling off round the middle's true position (PIP_BLOB), 0 far from any pip, so each map has
    as many places at 1 as its half has pips. (A pip between two places is near 1 at both: the network
    cannot tell which is "the" place, and is not taught to lower either.) A pip the cut leaves outside
    the half (a detector's box is a little off) is put at its nearest edge: the count is the tile's,
    whatever the box."""
    side = half_px // MAP_STEP
    grid = np.arange(side, dtype=np.float32)
    maps = np.zeros((len(places), side, side), np.float32)
    for index, pixels in enumerate(places):
        for x, y in np.clip((pixels - (MAP_STEP - 1) / 2) / MAP_STEP, 0, side - 1):
            maps[index] = np.maximum(maps[index], np.outer(bell(grid - y), bell(grid - x)))
            maps[index, round(y), round(x)] = 1.0
    return maps


_teachers: dict[Path, Any] = {}


def read_blank(halves: np.ndarray, teacher: Path | None = None) -> np.ndarray:
    """``(n,)`` bool: which halves the counter at ``teacher`` (None: the bundled one; loaded once per
    worker process) reads as blank. A printed back's half holding only its bar and stars, or plain
    body, reads so: a blank half with a divider and a brass pin looks the same, so teaching it BACK
    taught real blank halves so too (a first try: 9 of the real blank halves, all Guix266's); read
    as blank it adds nothing to a total anyway. The halves with letters, which it reads as pips, are
    what must be taught."""
    from models import COUNTER
    from vision.read.pip_reader import PipReader

    path = teacher or COUNTER
    if len(halves) == 0:
        return np.zeros(0, bool)
    if path not in _teachers:
        _teachers[path] = PipReader(path)
    reader = _teachers[path]
    if reader.half_px != halves.shape[1]:
        raise ValueError(f"the counter at {path} reads {reader.half_px} px halves, not {halves.shape[1]}")
    blank: np.ndarray = reader.probabilities(halves)[:, :COUNTS].argmax(axis=1) == 0
    return blank


Halves = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Halves ``(n, px, px, 3)`` uint8, their counts ``(n,)`` and their pips' maps (``pip_maps``; ``(n, 0, 0)``
but for a peak counter)."""


def synthetic_halves(
    scenes: int, seed: int, recipe: CounterRecipe, options: SceneOptions = FULL, backs: bool = False,
    kind: str = "hand",
) -> Halves:  # fmt: skip
    """The halves of ``scenes`` rendered scenes of ``kind`` (seeds from ``seed``) as ``recipe`` teaches them
    (``backs``: printed backs' too, ``HalvesJob.backs``)."""
    if scenes == 0:
        side = recipe.half_px // MAP_STEP if recipe.peaks else 0
        return (
            np.zeros((0, recipe.half_px, recipe.half_px, 3), np.uint8),
            np.zeros(0, np.int64),
            np.zeros((0, side, side), np.float32),
        )
    jobs = [HalvesJob(seed * 100_000 + index, options, recipe, backs, kind) for index in range(scenes)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        parts = list(tqdm(pool.imap(scene_halves, jobs, chunksize=8), total=scenes, desc="rendering", unit="scene"))
    halves, counts, maps = zip(*parts, strict=True)
    return np.concatenate(halves), np.concatenate(counts), np.concatenate(maps)


def build_model(
    outputs: int = COUNTS,
    widths: tuple[int, ...] = CounterRecipe.widths,
    strided_stem: bool = False,
    peaks: bool = False,
) -> Any:
    return peak_counter(outputs, widths) if peaks else small_cnn(widths, outputs, strided_stem)


PEAK_WIDTHS = (16, 32, 32, 32, 32)
"""A peak counter's channels (``peak_counter``) unless a recipe gives others."""
FIRST_PEAK = -2.2
"""The pip map's first bias: every place a pip's middle at 0.1 (CenterNet's start), not at 0.5."""
PEAK = 0.5
"""A peak of the pip map counts as a pip from about this height: a peak's share of a pip is
``sigmoid((height - PEAK) / PEAK_SOFTNESS)``."""
PEAK_SOFTNESS = 0.05
"""How sharply a peak turns from no pip to a pip round PEAK: a peak at 0.6 is 0.88 of a pip."""
COUNT_SPREAD = 0.3
"""The least spread (in pips) of a peak counter's count: the logit of count k is
``-(sum - k)**2 / (2 * (COUNT_SPREAD**2 + doubt))``, the sum and doubt over the peaks' shares s of a pip
(doubt: s * (1 - s) summed), so peaks all clear read at about 0.99, one peak half a pip reads either
count at about 0.5 and the half is left out as unsure."""


def peak_counter(outputs: int = COUNTS, widths: tuple[int, ...] = PEAK_WIDTHS) -> Any:
    """A network that finds pips, not layouts: a convolution at full size and one pooling (``widths[0]``
    channels), then a 3x3 convolution to each of ``widths[1:]``, so each place of a 48 px half's 24 x 24
    map sees a pip and its neighbourhood (20 px with five), and a 1x1 convolution gives each place how
    likely it is a pip's middle. The peaks of that map (places above their eight neighbours) are the
    pips; the count is given as the logits of the counts 0-18 (``COUNT_SPREAD``), so it runs as the
    classifying counter does. A 20th output (a printed back's half, BACK) comes from the features
    averaged over the half. Training it gives its map's logits too, to be taught where the pips are
    (``pip_maps``)."""
    import torch
    from torch import nn

    class PeakCounter(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            steps = zip(widths[:-1], widths[1:], strict=True)
            self.features = nn.Sequential(
                halving_block(3, widths[0]), *[layer for a, b in steps for layer in conv_block(a, b)]
            )
            self.pips = nn.Conv2d(widths[-1], 1, 1)
            nn.init.constant_(self.pips.bias, FIRST_PEAK)
            self.back = nn.Linear(widths[-1], 1) if outputs > COUNTS else None
            self.register_buffer("counts", torch.arange(COUNTS, dtype=torch.float32))

        def forward(self, halves: Any) -> Any:
            features = self.features(halves)
            found = self.pips(features)
            peak = found == nn.functional.max_pool2d(found, 3, stride=1, padding=1)  # logits: a sigmoid ties at 1
            shares = torch.sigmoid((torch.sigmoid(found) - PEAK) / PEAK_SOFTNESS) * peak
            total, doubt = shares.sum(dim=(1, 2, 3)), (shares * (1 - shares)).sum(dim=(1, 2, 3))
            spread = 2 * (COUNT_SPREAD**2 + doubt)
            logits = -((total[:, None] - self.counts[None]) ** 2) / spread[:, None]
            if self.back is not None:
                logits = torch.cat([logits, self.back(features.mean(dim=(2, 3)))], dim=1)
            return (logits, found) if self.training else logits

    return PeakCounter()


def peak_loss(found: Any, wanted: Any) -> Any:
    """CenterNet's focal loss on a pip map's logits ``found`` against ``pip_maps``' ``wanted`` (both
    ``(n, 1, side, side)``), per pip: the many places far from any pip weigh little once they are low."""
    import torch
    from torch import nn

    middle = wanted >= 1 - 1e-6
    height = torch.sigmoid(found)
    on_pips = (1 - height) ** 2 * nn.functional.logsigmoid(found)
    off_pips = (1 - wanted) ** 4 * height**2 * nn.functional.logsigmoid(-found)
    return -(torch.where(middle, on_pips, off_pips)).sum() / middle.sum().clamp(min=1)


def train(
    halves: np.ndarray, counts: np.ndarray, recipe: CounterRecipe, checkpoint: Checkpoint | None = None,
    maps: np.ndarray | None = None,
) -> Any:  # fmt: skip
    """Train with flips and quarter turns (a count is the same however the half is turned:
    real sets lay some counts across where the renderer lays them along) and brightness jitter.
    Not ``models.train.smallnet.photometric``: a counter trained with it (the bundled recipe, today's
    renderer) read the real halves at 0.973, the bundled one at 0.985. A peak counter learns its
    pips' ``maps`` (turned with the halves) besides the counts."""
    import torch
    from torch import nn

    def jitter(batch: Any, generator: Any) -> Any:
        batch = (batch * (0.7 + 0.6 * torch.rand(len(batch), 1, 1, 1, generator=generator))).clamp(0, 1)
        return glossy_patches(batch, generator, recipe.glossy)

    def augment(batch: Any, generator: Any) -> Any:
        return jitter(flips(batch, generator, transpose=True), generator)

    model = functools.partial(build_model, outputs(recipe), recipe.widths, recipe.strided_stem, recipe.peaks)
    if recipe.start_from:
        model = smallnet.continued_from(Path(recipe.start_from), model, halves, recipe.seed)
    if not recipe.peaks:
        return fit(
            model, halves, torch.from_numpy(counts), nn.functional.cross_entropy, images_only(augment),
            recipe, checkpoint,
        )  # fmt: skip
    if maps is None or len(maps) != len(halves):
        raise ValueError("a peak counter learns from its halves' pip maps: give one map a half")
    side = maps.shape[1]

    def augment_with_maps(batch: Any, wanted: Any, generator: Any) -> tuple[Any, Any]:
        batch, turned = flipped_with_maps(batch, wanted[:, 1:].view(-1, 1, side, side), generator)
        return jitter(batch, generator), torch.cat([wanted[:, :1], turned.flatten(1)], dim=1)

    def loss(said: tuple[Any, Any], wanted: Any) -> Any:
        logits, found = said
        count = nn.functional.cross_entropy(logits, wanted[:, 0].long())
        return count + peak_loss(found, wanted[:, 1:].view_as(found))

    wanted = torch.cat([torch.from_numpy(counts).float()[:, None], torch.from_numpy(maps).flatten(1)], dim=1)
    return fit(model, halves, wanted, loss, augment_with_maps, recipe, checkpoint)


def flipped_with_maps(batch: Any, maps: Any, generator: Any) -> tuple[Any, Any]:
    """Halves ``(n, 3, px, px)`` and their maps ``(n, 1, side, side)`` flipped and turned alike
    (``models.train.smallnet.flips``): each map is enlarged to its half's size, place by place, turned
    with it, and taken back."""
    import torch
    from torch import nn

    step = batch.shape[-1] // maps.shape[-1]
    enlarged = nn.functional.interpolate(maps, scale_factor=step)
    both = flips(torch.cat([batch, enlarged], dim=1), generator, transpose=True)
    return both[:, :3], both[:, 3:, ::step, ::step]


def outputs(recipe: CounterRecipe) -> int:
    """The counts 0-18, and a 20th answer (BACK: no count) where the recipe teaches printed backs."""
    return COUNTS + 1 if recipe.back_scenes else COUNTS


def export_onnx(model: Any, path: Path, half_px: int = HALF_PX) -> Path:
    """ONNX with input ``halves`` ``(n, 3, half_px, half_px)`` float 0-1 BGR and output ``logits`` ``(n, 19)``
    (counts 0-18; a 20th, BACK, with ``CounterRecipe.back_scenes``)."""
    return smallnet.export_onnx(model, path, "halves", half_px, half_px)


def train_and_export(out_dir: Path, recipe: CounterRecipe, resume: bool = False) -> dict[str, Any]:
    """Render, train, export, and write the card (metrics on held-out synthetic halves); ``resume``:
    go on from the epochs an unfinished run saved in ``out_dir`` (``models.train.smallnet.Checkpoint``)."""
    if recipe.peaks and recipe.start_from:
        raise ValueError("a peak counter is trained from nothing: give no counter to start from")
    if recipe.start_from and not Path(recipe.start_from).is_file():
        raise FileNotFoundError(f"no counter to start from at {recipe.start_from}")
    checkpoint = Checkpoint.beside(out_dir, resume)
    start = time.perf_counter()
    looks = MAKERS if recipe.makers else FULL
    drawn_with = "every maker's look (datasets.synth.scene.MAKERS)" if recipe.makers else "the usual looks"
    halves, counts, maps = synthetic_halves(recipe.scenes, recipe.seed, recipe, looks)
    extras = (  # scenes, seed offset, options, whether printed backs are taught, kind
        (recipe.high_scenes, HIGH_SEED_OFFSET, dataclasses.replace(looks, sets=HIGH_SETS), False, "hand"),
        (recipe.bright_scenes, BRIGHT_SEED_OFFSET, dataclasses.replace(looks, bright_sets=1.0), False, "hand"),
        (recipe.back_scenes, BACK_SEED_OFFSET, dataclasses.replace(looks, **BACKS_SHOWN), True, "hand"),
        (recipe.table_scenes, TABLE_SEED_OFFSET, looks, False, "table"),
        (recipe.frame_rounds, FRAME_SEED_OFFSET, looks, False, "frames"),
    )
    for scenes, offset, options, backs, kind in extras:
        if scenes:
            extra = synthetic_halves(scenes, recipe.seed + offset, recipe, options, backs, kind)
            halves, counts, maps = (np.concatenate(pair) for pair in zip((halves, counts, maps), extra, strict=True))
    if len(halves) == 0:
        raise ValueError(
            "no halves to learn from: render some scenes (scenes, high_scenes, bright_scenes, back_scenes, "
            "table_scenes or frame_rounds)"
        )
    held, used = held_out(len(halves), recipe.seed)
    model = train(halves[used], counts[used], recipe, checkpoint, maps[used])
    out_dir.mkdir(parents=True, exist_ok=True)
    export_onnx(model, out_dir / "model.onnx", recipe.half_px)
    seconds = time.perf_counter() - start
    right = int((predict(model, halves[held]).argmax(1) == counts[held]).sum())
    metrics: dict[str, Any] = {
        "synthetic_held_out_accuracy": round(right / len(held), 4),
        "synthetic_held_out_halves": len(held),
    }
    metrics.update(real_accuracy(model, recipe))
    task = "count the pips on one half (0-18)" + (", or say it is a printed back's (19)" if recipe.back_scenes else "")
    card = {
        "model": "model.onnx",
        "task": task,
        "input": (
            f"(n, 3, {recipe.half_px}, {recipe.half_px}) float 0-1, BGR, the tile's end on the left "
            "(vision/read/halves.py)"
        ),
        "recipe": asdict(recipe),
        "data": (
            f"{len(halves)} halves from {recipe.scenes} synthetic hand scenes (seed {recipe.seed}), "
            f"{recipe.high_scenes} dealt from double-15 and double-18 sets (seed {recipe.seed + HIGH_SEED_OFFSET}), "
            f"{recipe.bright_scenes} of bright sets (seed {recipe.seed + BRIGHT_SEED_OFFSET}), "
            f"{recipe.back_scenes} with printed backs face down (seed {recipe.seed + BACK_SEED_OFFSET}), "
            f"{recipe.table_scenes} table scenes (seed {recipe.seed + TABLE_SEED_OFFSET}), "
            f"and {recipe.frame_rounds} filmed rounds' frames (seed {recipe.seed + FRAME_SEED_OFFSET}), "
            f"{drawn_with}, "
            f"generator {GENERATOR_VERSION}"
        ),
        "training_seconds": round(seconds),
        "metrics": metrics,
        "real_photos_used": "for measuring only (labelled corners of ../shared/real), never for training",
    }
    return smallnet.write_card(out_dir, card, recipe.start_from)


def real_halves(half_px: int = HALF_PX) -> list[tuple[np.ndarray, int, str]]:
    """The readable halves of the labelled real photos (``../shared/real``), cut the way the
    reader cuts them from their hand-checked corners: (half, count, source set)."""
    from datasets.real import iter_images, pip_labelled

    found = []
    for label, image in iter_images(pip_labelled()):
        tiles = [
            tile
            for tile in label.tiles
            if tile.counted and not tile.cut and np.linalg.norm(tile.corners[1] - tile.corners[0]) >= MIN_SHORT_SIDE_PX
        ]
        halves = cut_halves(image, [tile.corners for tile in tiles], half_px)
        counts = [count for tile in tiles for count in tile.pips or ()]
        found += [(half, count, label.source) for half, count in zip(halves, counts, strict=True)]
    return found


def real_accuracy(model: Any, recipe: CounterRecipe) -> dict[str, Any]:
    """Accuracy on the real halves (measured, never trained on); empty when ../shared/real is absent
    or holds none."""
    from datasets.real import real_root

    if real_root() is None:
        return {}
    found = real_halves(recipe.half_px)
    if not found:
        return {}
    predicted = predict(model, np.stack([half for half, _, _ in found])).argmax(1)
    right = int((predicted == np.array([count for _, count, _ in found])).sum())
    return {"real_halves_accuracy": round(right / len(found), 4), "real_halves": len(found)}
