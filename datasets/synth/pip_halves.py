"""Halves with their pips' centres, rendered once into a sharded cache for the pip-centre heatmap counter.

Every scene is drawn with the training makers' looks (``datasets.synth.scene.MAKERS``: the layout families
but ``HELD_OUT``, every pip shape, some photos grey) and cut with ``vision.read.halves`` exactly as the
reader cuts a detector's box at run time. Each face-up tile gives:

- its two halves cut two or three times (CUTS), on corners jittered as a detector finds them
  (``datasets.corners.loosen``; the first cut exact in EXACT_SHARE of the tiles): role HALF, the count its
  label's;
- in SHIFTED_SHARE of the tiles, its box slid along the tile by up to a half (``shifted``), so one crop
  holds the divider (and a spinner's pin) with pips on both sides and the other the table past the
  tile's end: role SHIFTED, whose count is only the pip centres inside it;

and each face-down tile wholly in view its two halves, no pips (a plain or printed back): role BACK.
The pips' centres come from the renderer (``datasets.synth.face.pip_centres``) through the label's
corners and the cut's, in the half's pixels (``(x, y)``, x from the tile's end). A share of the halves is
saved again as a coarser JPEG (JPEG_SHARE); grain, specks, blur and glare are the trainer's (they cost
nothing to draw there and differ every epoch).

``UNSEEN`` scenes are drawn with ``UNSEEN_MAKERS`` (the held-out layouts) and only ever measured.

    python -m datasets.synth.pip_halves --split train --scenes 8000
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from datasets.corners import loosen
from datasets.labels import FACE_DOWN, FACE_UP
from datasets.synth.camera import Camera
from datasets.synth.dataset import GENERATOR_VERSION
from datasets.synth.face import face_corners, pip_centres
from datasets.synth.scene import MAKERS, UNSEEN_MAKERS, SceneOptions, make_scene, render
from datasets.synth.styles import TileStyle
from vision.read.halves import HALF_PX, cut_halves, in_half, rectified_corners

CACHE_VERSION = "pip-heatmap-v1"
"""Bump when what a seed renders into the cache changes (the renderer's generator is recorded too)."""
CACHE_ROOT = Path("out/cache") / CACHE_VERSION
PHOTO_PX = (1280, 960)
SHARD_SCENES = 250
"""Scenes per shard: a shard is written whole (a stopped render loses at most one)."""
MIN_SHORT_SIDE_PX = 14
"""Tiles smaller than this in the photo are left out (as ``models.train.counter`` leaves them)."""

HALF, SHIFTED, BACK = 0, 1, 2
"""The roles of a cached crop: a half cut as the reader cuts it, a box slid along its tile, a back's half."""
EXACT_SHARE = 0.3
SHIFTED_SHARE = 0.3
BACK_SHARE = 0.5
"""Share of the face-down tiles in view whose halves are kept (negatives: plain bodies, brands' letters)."""
JPEG_SHARE, JPEG_QUALITY = 0.25, (25, 75)
EDGE_SLACK_PX = 1.5
"""A half's own pip whose centre a loose cut leaves at most this far outside is put on the edge (the count is
the tile's, whatever the box); any other centre outside the crop is not in it."""

HIGH_SETS = (15, 18)


@lru_cache(maxsize=1)
def photo_shift() -> tuple[float, float]:
    """How far the lens's warp moves a photo's content from where the labels put it, in photo pixels:
    ``datasets.synth.camera.Camera.distort_image`` enlarges its coarse map with ``cv2.resize``, whose pixel
    centres sit half a coarse step off, so everything drawn lands about 3.5 px right of and below its label
    (generator 14). Measured here by warping one bright pixel with a lens of almost no distortion, so the
    targets follow the renderer whether or not it is mended."""
    side = 96
    camera = Camera(
        np.array([[100.0, 0, side / 2], [0, 100.0, side / 2], [0, 0, 1]]), np.eye(3), np.zeros(3), (side, side), k1=1e-9
    )
    spot = np.zeros((side, side), np.float32)
    spot[side // 2, side // 2] = 1.0
    warped = camera.distort_image(spot)
    ys, xs = np.mgrid[0:side, 0:side]
    total = float(warped.sum())
    return float((warped * xs).sum() / total - side // 2), float((warped * ys).sum() / total - side // 2)


@dataclass(frozen=True)
class Mix:
    """One kind of scene in the training mix."""

    name: str
    share: float
    kind: str
    options: SceneOptions


TRAINING_MIX = (
    Mix("hands", 0.55, "hand", MAKERS),
    Mix("high-hands", 0.2, "hand", dataclasses.replace(MAKERS, sets=HIGH_SETS)),
    Mix("tables", 0.15, "table", MAKERS),
    Mix("back-hands", 0.1, "hand", dataclasses.replace(MAKERS, printed_backs=0.8, face_down_share=1.0)),
)
"""Counts 13-18 exist only in double-15 and -18 sets (a fifth of the scenes besides their share of the rest);
tables show tiles smaller in the photo; hands with backs face down give negatives."""
UNSEEN_MIX = (
    Mix("unseen-hands", 0.8, "hand", UNSEEN_MAKERS),
    Mix("unseen-high-hands", 0.2, "hand", dataclasses.replace(UNSEEN_MAKERS, sets=HIGH_SETS)),
)
CUTS = {"train": 3, "val": 2, "unseen": 2}
"""Loose cuts of each face-up tile: rendering costs about 30 times a cut, so training takes three looks at each
tile; measuring needs no more than two."""
SPLITS = {
    "train": (67_000_000_000, TRAINING_MIX),
    "val": (67_100_000_000, TRAINING_MIX),
    "unseen": (67_200_000_000, UNSEEN_MIX),
}
"""Each split's first scene seed (far from ``datasets.synth.dataset.image_seed``'s) and its mix. ``val`` is
the training looks' held-out scenes; ``unseen`` the held-out layouts' (``UNSEEN_MAKERS``), never trained on."""


@dataclass(frozen=True)
class PipHalves:
    """Crops ``(n, px, px, 3)`` uint8 BGR with their pips: ``points[starts[i]:starts[i + 1]]`` are crop i's
    pip centres ``(x, y)`` in its pixels."""

    halves: np.ndarray
    points: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    """``(n,)`` the label's count of a HALF (its tile's, even where a loose cut leaves a pip outside), else the
    centres inside."""
    roles: np.ndarray
    """``(n,)`` HALF, SHIFTED or BACK."""
    seeds: np.ndarray
    """``(n,)`` the scene each crop came from."""

    def __len__(self) -> int:
        return len(self.halves)

    def pips_of(self, index: int) -> np.ndarray:
        return self.points[self.starts[index] : self.starts[index + 1]]

    def padded_points(self, most: int = 40) -> tuple[np.ndarray, np.ndarray]:
        """``(n, most, 2)`` centres and ``(n, most)`` whether each is one, for batched targets."""
        points = np.zeros((len(self), most, 2), np.float32)
        real = np.zeros((len(self), most), bool)
        sizes = np.diff(self.starts)
        if len(sizes) and sizes.max() > most:
            raise ValueError(f"a crop holds {sizes.max()} pips, more than {most}")
        for index in range(len(self)):
            points[index, : sizes[index]] = self.pips_of(index)
            real[index, : sizes[index]] = True
        return points, real

    def subset(self, picked: np.ndarray) -> PipHalves:
        picked = np.asarray(picked)
        if picked.dtype == bool:
            picked = np.flatnonzero(picked)
        parts = [self.pips_of(index) for index in picked]
        sizes = np.array([len(part) for part in parts], np.int64)
        return PipHalves(
            self.halves[picked],
            np.concatenate(parts) if parts else np.zeros((0, 2), np.float32),
            np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            self.counts[picked],
            self.roles[picked],
            self.seeds[picked],
        )


def concatenated(parts: list[PipHalves], half_px: int = HALF_PX) -> PipHalves:
    if not parts:
        return empty(half_px)
    offsets = np.cumsum([0] + [len(part.points) for part in parts[:-1]])
    starts = np.concatenate(
        [part.starts[:-1] + offset for part, offset in zip(parts, offsets, strict=True)]
        + [[sum(len(p.points) for p in parts)]]
    )
    return PipHalves(
        np.concatenate([part.halves for part in parts]),
        np.concatenate([part.points for part in parts]).astype(np.float32),
        starts.astype(np.int64),
        np.concatenate([part.counts for part in parts]),
        np.concatenate([part.roles for part in parts]),
        np.concatenate([part.seeds for part in parts]),
    )


def empty(half_px: int = HALF_PX) -> PipHalves:
    return PipHalves(
        np.zeros((0, half_px, half_px, 3), np.uint8), np.zeros((0, 2), np.float32), np.zeros(1, np.int64),
        np.zeros(0, np.int8), np.zeros(0, np.uint8), np.zeros(0, np.int64),
    )  # fmt: skip


def shifted(corners: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The box slid along its tile by 0.15-0.5 of a half, either way."""
    along = (corners[2] - corners[1]) / 2  # a half's length
    return (corners + along * rng.uniform(0.15, 0.5) * rng.choice((-1.0, 1.0))).astype(np.float32)


def tile_pips(pips: tuple[int, int], style: TileStyle, drawn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The photo's ``(k, 2)`` centres of a face-up tile's pips drawn at corners ``drawn`` and the half each is on."""
    face = pip_centres(pips, 2, 1, style.pip_edge, style.layout_family, style.layout_seed)
    if not face:
        return np.zeros((0, 2), np.float32), np.zeros(0, np.int64)
    to_photo = cv2.getPerspectiveTransform(face_corners(2, 1), np.asarray(drawn, np.float32))
    on_photo = cv2.perspectiveTransform(np.array([[(x, y) for x, y, _ in face]], np.float32), to_photo)[0]
    return on_photo, np.array([side for _, _, side in face])


def pips_in_cut(
    photo: np.ndarray, sides: np.ndarray, cut: np.ndarray, role: int, half_px: int = HALF_PX
) -> list[np.ndarray]:
    """Each of the cut's two crops' pip centres (``in_half``'s pixels): a HALF keeps its own pips, those just
    outside put on its edge (EDGE_SLACK_PX), and any other pip whose centre lies inside; a SHIFTED crop every
    centre inside."""
    if len(photo) == 0:
        return [np.zeros((0, 2), np.float32)] * 2
    to_face = cv2.getPerspectiveTransform(np.asarray(cut, np.float32), rectified_corners(half_px))
    on_face = cv2.perspectiveTransform(photo[None].astype(np.float32), to_face)[0]
    found = []
    for half in (0, 1):
        points = in_half(on_face, half, half_px)
        inside = np.all((points >= -0.5) & (points <= half_px - 0.5), axis=1)
        if role == HALF:
            own = sides == half
            near = np.all((points >= -0.5 - EDGE_SLACK_PX) & (points <= half_px - 0.5 + EDGE_SLACK_PX), axis=1)
            kept = np.where(own[:, None], np.clip(points, -0.5, half_px - 0.5), points)[(own & near) | inside]
        else:
            kept = points[inside]
        found.append(kept.astype(np.float32).reshape(-1, 2))
    return found


def scene_crops(job: tuple[int, Mix] | tuple[int, Mix, int]) -> PipHalves:
    """The crops of one scene (seed, mix, and how many cuts of each face-up tile: CUTS) as the module's
    docstring lists them."""
    seed, mix, looks = job if len(job) == 3 else (*job, 2)
    rng = np.random.default_rng(seed)
    scene = make_scene(mix.kind, seed, mix.options)
    image, label = render(scene, PHOTO_PX, mix.options)
    cuts: list[np.ndarray] = []
    points: list[np.ndarray] = []
    counts: list[int] = []
    roles: list[int] = []
    shift = np.float32(photo_shift()) if mix.options.photo else np.float32(0)
    for tile in label["tiles"]:
        quad = np.array(tile["corners"], np.float32) + shift  # where the tile is drawn, not where it is labelled
        if tile["cut"] or np.linalg.norm(quad[1] - quad[0]) < MIN_SHORT_SIDE_PX:
            continue
        if tile["pose"] == FACE_DOWN:
            if rng.random() < BACK_SHARE:
                cuts.append(loosen(quad, rng))
                points += [np.zeros((0, 2), np.float32)] * 2
                counts += [0, 0]
                roles += [BACK, BACK]
            continue
        if tile["pose"] != FACE_UP:
            continue
        photo, sides = tile_pips(tuple(tile["pips"]), scene.style, quad)
        first = quad if rng.random() < EXACT_SHARE else loosen(quad, rng)
        for cut in [first] + [loosen(quad, rng) for _ in range(looks - 1)]:
            cuts.append(cut)
            points += pips_in_cut(photo, sides, cut, HALF)
            counts += list(tile["pips"])
            roles += [HALF, HALF]
        if rng.random() < SHIFTED_SHARE:
            cut = shifted(loosen(quad, rng), rng)
            inside = pips_in_cut(photo, sides, cut, SHIFTED)
            cuts.append(cut)
            points += inside
            counts += [len(part) for part in inside]
            roles += [SHIFTED, SHIFTED]
    halves = cut_halves(image, cuts)
    for index in np.flatnonzero(rng.random(len(halves)) < JPEG_SHARE):
        quality = int(rng.integers(*JPEG_QUALITY))
        ok, encoded = cv2.imencode(".jpg", halves[index], [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            halves[index] = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    sizes = np.array([len(part) for part in points], np.int64)
    return PipHalves(
        halves,
        np.concatenate(points).astype(np.float32) if points else np.zeros((0, 2), np.float32),
        np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        np.array(counts, np.int8),
        np.array(roles, np.uint8),
        np.full(len(halves), seed, np.int64),
    )


def scene_jobs(split: str, first: int, count: int) -> list[tuple[int, Mix, int]]:
    """Scenes ``first`` .. ``first + count - 1`` of ``split``: each scene's mix drawn from its own seed."""
    base, mix = SPLITS[split]
    shares = np.array([part.share for part in mix])
    jobs = []
    for index in range(first, first + count):
        seed = base + index
        pick = random.Random(f"mix-{seed}").random()
        jobs.append(
            (seed, mix[int(np.searchsorted(np.cumsum(shares) / shares.sum(), pick, side="right"))], CUTS[split])
        )
    return jobs


def write_shard(path: Path, crops: PipHalves) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez_compressed(partial, **{field.name: getattr(crops, field.name) for field in dataclasses.fields(crops)})
    partial.replace(path)
    return path


def read_shard(path: Path) -> PipHalves:
    with np.load(path) as stored:
        missing = [field.name for field in dataclasses.fields(PipHalves) if field.name not in stored]
        if missing:
            raise ValueError(f"{path} is not a pip-halves shard: it lacks {', '.join(missing)}")
        return PipHalves(**{field.name: stored[field.name] for field in dataclasses.fields(PipHalves)})


def shard_paths(root: Path, split: str) -> list[Path]:
    return sorted((root / split).glob("shard-*[0-9].npz"))


def load_split(root: Path, split: str, shards: int | None = None) -> PipHalves:
    """Every shard of ``split`` under ``root`` (the first ``shards`` of them), one array each."""
    paths = shard_paths(root, split)[:shards]
    if not paths:
        raise FileNotFoundError(
            f"no {split} shards in {root / split}: render them (python -m datasets.synth.pip_halves)"
        )
    return concatenated([read_shard(path) for path in paths])


def render_split(root: Path, split: str, scenes: int, workers: int = 2, first_shard: int = 0) -> Iterator[Path]:
    """Render ``scenes`` scenes of ``split`` into shards of SHARD_SCENES, skipping shards already written
    (a stopped render goes on where it stopped); yields each shard as it is written."""
    shards = (scenes + SHARD_SCENES - 1) // SHARD_SCENES
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for shard in range(first_shard, shards):
            path = root / split / f"shard-{shard:05d}.npz"
            if path.exists():
                continue
            jobs = scene_jobs(split, shard * SHARD_SCENES, min(SHARD_SCENES, scenes - shard * SHARD_SCENES))
            yield write_shard(path, concatenated(pool.map(scene_crops, jobs, chunksize=4)))


def write_manifest(root: Path) -> dict[str, object]:
    """``manifest.json``: the cache's version, the generator and each split's seeds, shards and crops."""
    manifest: dict[str, object] = {
        "cache": CACHE_VERSION, "generator": GENERATOR_VERSION, "half_px": HALF_PX, "shard_scenes": SHARD_SCENES,
        "splits": {},
    }  # fmt: skip
    for split, (base, mix) in SPLITS.items():
        paths = shard_paths(root, split)
        if not paths:
            continue
        roles = np.concatenate([np.load(path)["roles"] for path in paths])
        manifest["splits"][split] = {  # type: ignore[index]
            "first_seed": base,
            "mix": [{"name": part.name, "share": part.share, "kind": part.kind} for part in mix],
            "shards": len(paths),
            "crops": int(len(roles)),
            "halves": int((roles == HALF).sum()),
            "shifted": int((roles == SHIFTED).sum()),
            "backs": int((roles == BACK).sum()),
        }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=tuple(SPLITS), default="train")
    parser.add_argument("--scenes", type=int, required=True, help="scenes in the split (shards already there are kept)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--root", type=Path, default=CACHE_ROOT)
    args = parser.parse_args(argv)
    if args.scenes < 1:
        parser.error(f"invalid --scenes: {args.scenes} (expected at least 1)")
    start, crops = time.perf_counter(), 0
    for path in render_split(args.root, args.split, args.scenes, args.workers):
        crops += len(np.load(path)["roles"])
        seconds = time.perf_counter() - start
        print(f"{path}: {crops} crops in {seconds:.0f} s ({crops / seconds:.1f} crops/s)", flush=True)
    print(json.dumps(write_manifest(args.root)["splits"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
