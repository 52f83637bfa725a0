"""Frames of the rendered videos as ``hubcam watch`` shows them to the table detector, labelled:
``hubcam synth --kind frames``.

For each round (the round ``hubcam synth --kind video`` films for the same seed and index), a few of
the table's states are photographed through the video's one shot. From each comes the play-region
crop (``vision.watch.watcher.Watcher._play_region``: the square round the hub and the tiles, three
tile lengths wider) and now and then the whole frame (what the watcher reads until it knows the hub).
Each gets what a video frame has and a still lacks: a light gain drift, sometimes a little blur, and
the codec's blockiness. No arm (the watcher reads only frames without a hand), no shake (the labels
would drift).

The folder is a set as ``datasets.synth.dataset.write_set`` writes one (kind "table", so that
``hubcam export`` and ``hubcam train detector --sets`` take it): for round ``NNNNN`` and pick ``K``,
``NNNNN_K_play.jpg`` (the play region) and, drawn, ``NNNNN_K_frame.jpg`` (the whole frame), each with
its ``.gt.json``, plus ``manifest.json`` and ``preview/contact_sheet.jpg``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from datasets.labels import FACE_UP
from datasets.synth.dataset import image_seed, run_jobs, write_contact_sheet
from datasets.synth.photograph import is_in_view, photograph
from datasets.synth.video import GENERATOR as VIDEO_GENERATOR
from datasets.synth.video import VideoOptions, film_round
from vision.geometry import halves_in_frame, is_cut, square_within, tile_length
from vision.watch.watcher import WATCH_CONFIG

GENERATOR = "frames-1"
"""Bump when a change here changes what a seed draws (the tables themselves follow the video generator)."""
PER_ROUND = 3
"""States photographed per round unless told."""
WHOLE_SHARE = 0.3
"""Share of states that give the whole frame as well as the play region."""
GAIN, BETA = (0.92, 1.08), (-6.0, 6.0)
"""The light's drift in a video (``datasets.synth.video._write_frames``): a gain and an offset."""
BLUR_SHARE, BLUR_SIGMA = 0.4, (0.2, 1.0)
"""Frames a little soft (focus hunting, the codec's smoothing), and how soft (pixels)."""
CODEC_QUALITY = (35, 85)
"""JPEG qualities standing in for mp4v's blockiness: the frame is compressed whole, as the codec does."""
SAVED_QUALITY = 95
"""The quality the image is then written at (``write_set``'s)."""


def play_region(label: dict[str, Any]) -> tuple[int, int, int, int] | None:
    """The part ``(x0, y0, x1, y1)`` of the frame the watcher reads during play (``Watcher._play_region``,
    here round every tile of the label); None where it shows the whole frame (no tiles, or the square
    is most of the frame)."""
    width, height = label["width"], label["height"]
    corners = [np.array(tile["corners"], np.float64) for tile in label["tiles"]]
    hub = label.get("hub")
    if hub is None or not corners:
        return None
    (x, y), radius = hub["centre"], hub["radius"]
    points = np.concatenate([np.array([[x - radius, y - radius], [x + radius, y + radius]]), *corners])
    margin = WATCH_CONFIG.play_margin_tiles * float(np.median([tile_length(tile) for tile in corners]))
    low, high = points.min(axis=0) - margin, points.max(axis=0) + margin
    side = float((high - low).max())
    if side >= WATCH_CONFIG.whole_share * max(width, height):
        return None
    return square_within(low, high, side, (width, height))


def _overlaps(corners: np.ndarray, width: int, height: int) -> bool:
    """Whether a quad's box reaches into a ``width`` x ``height`` image at all."""
    low, high = corners.min(axis=0), corners.max(axis=0)
    return bool(high[0] > 0 and high[1] > 0 and low[0] < width and low[1] < height)


def _moved(points: Any, offset: np.ndarray) -> list[list[float]]:
    moved: list[list[float]] = np.round(np.asarray(points, np.float64) - offset, 1).tolist()
    return moved


def crop_label(label: dict[str, Any], box: tuple[int, int, int, int]) -> dict[str, Any]:
    """``label`` (a photo's, as ``photograph`` gives it) for the part ``box`` ``(x0, y0, x1, y1)`` of the
    photo: every point moved into it; tiles wholly outside dropped (the indices naming tiles renumbered),
    tiles the edge cuts marked ``cut`` (and ``unreadable`` where a half is cut) as ``_label`` marks tiles
    the frame cuts, markers kept where their centre lies inside, as ``_label`` keeps them, and the hub
    too."""
    x0, y0, x1, y1 = box
    width, height, offset = x1 - x0, y1 - y0, np.array([x0, y0], np.float64)
    renumbered: dict[int, int] = {}
    tiles: list[dict[str, Any]] = []
    for index, tile in enumerate(label["tiles"]):
        corners = np.array(tile["corners"], np.float64) - offset
        if not _overlaps(corners, width, height):
            continue
        renumbered[index] = len(tiles)
        unreadable = tile["unreadable"] or (tile["pose"] == FACE_UP and not halves_in_frame(corners, width, height))
        tiles.append(
            {
                **tile,
                "corners": np.round(corners, 1).tolist(),
                "unreadable": bool(unreadable),
                "cut": is_cut(corners, width, height, margin_px=0.0),
                "half_centres": _moved(tile["half_centres"], offset),
            }
        )

    def kept(indices: list[int]) -> list[int]:
        return [renumbered[index] for index in indices if index in renumbered]

    cropped = {
        **label,
        "width": width,
        "height": height,
        "tiles": tiles,
        "chains": [chain for chain in map(kept, label["chains"]) if len(chain) > 1],
        "total_pips": sum(sum(tile["pips"]) for tile in tiles if tile["pose"] == FACE_UP and not tile["unreadable"]),
        "flags": [{**flag, "tiles": kept(flag["tiles"])} for flag in label["flags"] if kept(flag.get("tiles", []))],
        "crop": [x0, y0, x1, y1],
        "frame_size": [label["width"], label["height"]],
    }
    markers = [{**marker, "corners": _moved(marker["corners"], offset)} for marker in label.get("markers", [])]
    cropped["markers"] = [marker for marker in markers if is_in_view(marker["corners"], width, height)]
    if "trains" in label:
        cropped["trains"] = [{**train, "tiles": kept(train["tiles"])} for train in label["trains"]]
    hub = label.get("hub")
    cropped.pop("hub", None)
    if hub is not None:
        centre = np.array(hub["centre"], np.float64) - offset
        if 0 <= centre[0] < width and 0 <= centre[1] < height:
            moved = {"centre": np.round(centre, 1).tolist(), "corners": _moved(hub["corners"], offset)}
            cropped["hub"] = {**hub, **moved}
    return cropped


def video_look(frame_bgr: np.ndarray, rng: random.Random) -> np.ndarray:
    """A still made to look like a decoded video frame: gain and offset, sometimes blur, codec blocks."""
    image = cv2.convertScaleAbs(frame_bgr, alpha=rng.uniform(*GAIN), beta=rng.uniform(*BETA))
    if rng.random() < BLUR_SHARE:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(*BLUR_SIGMA))
    quality = rng.randint(*CODEC_QUALITY)
    encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1]
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    if decoded is None:
        raise RuntimeError(f"OpenCV could not decode its own JPEG (quality {quality})")
    return np.asarray(decoded)


def _whole_frames(round_seed: int, per_round: int, whole_share: float) -> list[bool]:
    """Which picks also give the whole frame: drawn apart from the rest, so a round's names are known
    before it is rendered (a resumed set skips rounds whose images are all there)."""
    rng = random.Random(f"frames-whole-{round_seed}")
    return [rng.random() < whole_share for _ in range(per_round)]


def round_names(round_index: int, round_seed: int, per_round: int, whole_share: float) -> list[str]:
    """The images a round gives, in the order they are written."""
    names = []
    for pick, whole in enumerate(_whole_frames(round_seed, per_round, whole_share)):
        names.append(f"{round_index:05d}_{pick}_play.jpg")
        if whole:
            names.append(f"{round_index:05d}_{pick}_frame.jpg")
    return names


def round_frames(
    round_seed: int, size_px: tuple[int, int], per_round: int, whole_share: float
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """A round's images and labels in ``round_names``' order: ``per_round`` states (the last, the table
    fullest, and others drawn), each as the play region and, drawn, as the whole frame."""
    filmed = film_round(round_seed, size_px, VideoOptions(), random.Random(f"video-{round_seed}"))
    rng = random.Random(f"frames-{round_seed}")
    others = range(len(filmed.states) - 1)
    drawn = rng.sample(others, per_round - 1) if per_round - 1 <= len(others) else rng.choices(others, k=per_round - 1)
    picks = [len(filmed.states) - 1, *drawn]
    made = []
    for state, whole in zip(picks, _whole_frames(round_seed, per_round, whole_share), strict=True):
        still, label = photograph(filmed.states[state], filmed.shot)
        label["notes"] = f"{label['notes']} video round seed={round_seed} state={state}/{len(filmed.states) - 1}"
        box = play_region(label) or (0, 0, label["width"], label["height"])
        x0, y0, x1, y1 = box
        made.append((video_look(still, rng)[y0:y1, x0:x1], crop_label(label, box)))
        if whole:
            made.append((video_look(still, rng), crop_label(label, (0, 0, label["width"], label["height"]))))
    return made


def _render_round(job: tuple[int, int, tuple[int, int], int, float, str]) -> list[str]:
    seed, round_index, size_px, per_round, whole_share, out_dir = job
    round_seed = image_seed(seed, round_index)
    names = round_names(round_index, round_seed, per_round, whole_share)
    for name, (image, label) in zip(names, round_frames(round_seed, size_px, per_round, whole_share), strict=True):
        cv2.imwrite(str(Path(out_dir) / name), image, [cv2.IMWRITE_JPEG_QUALITY, SAVED_QUALITY])
        (Path(out_dir) / f"{name}.gt.json").write_text(json.dumps({"image": name, **label}) + "\n")  # last: done
    return names


def write_frames(
    rounds: int,
    seed: int,
    out_dir: Path,
    size_px: tuple[int, int] = (1280, 720),
    per_round: int = PER_ROUND,
    whole_share: float = WHOLE_SHARE,
    workers: int = 2,
    progress: bool = True,
) -> list[str]:
    """Render ``rounds`` rounds' frames into ``out_dir``; rounds whose images are all there are kept
    (resumable, and a set may be grown by asking for more rounds: a round's images do not depend on how
    many there are)."""
    if rounds < 1:
        raise ValueError(f"invalid rounds: {rounds} (expected at least 1)")
    if per_round < 1:
        raise ValueError(f"invalid per_round: {per_round} (expected at least 1)")
    if not 0 <= whole_share <= 1:
        raise ValueError(f"invalid whole_share: {whole_share} (expected a share, 0 to 1)")
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "kind": "table", "source": "video frames", "seed": seed, "size_px": list(size_px), "generator": GENERATOR,
        "video_generator": VIDEO_GENERATOR, "per_round": per_round, "whole_share": whole_share,
    }  # fmt: skip
    manifest_path = out_dir / "manifest.json"
    if manifest_path.exists():
        recorded = json.loads(manifest_path.read_text())
        recorded.pop("rounds", None)
        if recorded != manifest:
            raise ValueError(f"{out_dir} holds a different set ({manifest_path}); choose another folder")
    manifest_path.write_text(json.dumps({**manifest, "rounds": rounds}, indent=2) + "\n")
    names = {
        index: round_names(index, image_seed(seed, index), per_round, whole_share) for index in range(rounds)
    }  # fmt: skip
    todo = [
        (seed, index, size_px, per_round, whole_share, str(out_dir))
        for index in range(rounds)
        if not all((out_dir / f"{name}.gt.json").exists() for name in names[index])
    ]
    run_jobs(_render_round, todo, workers, tqdm(total=len(todo), desc="rendering video frames", unit="round",
                                                disable=not progress))  # fmt: skip
    every = [name for index in range(rounds) for name in names[index]]
    write_contact_sheet(out_dir, every[:16])
    return every
