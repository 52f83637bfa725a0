"""Rendered videos of a round being played, with exact ground truth (issue 66): ``hubcam synth --kind video``.

A round is played by the engine (``datasets.synth.round_play``); the table is laid once (hub,
engine, empty trains) and grows tile by tile. Each state of the table is photographed once through
one fixed shot (``datasets.synth.photograph.Shot``), and the frames are composed from those stills:
a hand and forearm (``datasets.synth.arm``) reaching in from the player's side to lay each tile and
back out, now and then one passing over without laying anything, a camera that shakes a little,
light that flickers and drifts, and the codec's compression.

For each video ``NNNNN`` the folder holds ``NNNNN.mp4``, ``NNNNN_seats.json`` (the seat map of
``hubcam analyze --seats``), ``NNNNN.json`` (the manifest) and ``NNNNN.truth.jsonl`` (one event per
line, in ``hubcam watch --json``'s schema, plus ``pass_over`` and ``marker`` lines that watch does
not print).
"""

from __future__ import annotations

import copy
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from tqdm import tqdm

from datasets.synth.arm import HAND_REACH_MM, PALM_MM, Arm, ArmLook, draw_arm
from datasets.synth.camera import Camera, CameraChoice
from datasets.synth.dataset import image_seed, run_jobs
from datasets.synth.layout import (
    MARKER_COLOURS,
    MARKER_SHAPES,
    Scene,
    TrainEnd,
    extend_train,
    lay_empty_table,
    put_marker,
    take_marker,
)
from datasets.synth.photograph import Shot, fixed_shot, photograph
from datasets.synth.round_play import PlayedVideoRound, TableStep, play_video_round
from datasets.synth.scene import FULL, shaped
from datasets.synth.styles import maker_extras, makers_pips, random_tile_style

GENERATOR = "video-2"
"""Bump when a change to the renderer changes what a seed draws."""
FPS = 15
VIDEO_CAMERA = CameraChoice(max_tilt_deg=35.0, min_tilt_deg=10.0, k1=(-0.08, 0.03), fill=(0.9, 1.0))
"""A webcam clamped over the table: every train in view, a mild lens. Tilted 10 degrees or more: the
camera drawn nearly straight down frames its target off-centre (``look_at``'s vertical case), which put
the hub near the picture's edge and trains out of it in generator video-1."""
PLAYS = (15, 30)
"""Tiles laid in a video unless told (legal or not): the round is cut short to keep videos short."""
PASS_OVER_SHARE = 0.2
"""Gaps between plays in which a hand passes over the table without laying anything."""
ARM_FAR_MM = 700.0
"""How far back from the wrist the arm is drawn (always beyond the frame's edge)."""
SEAT_MM = 900.0
"""How far from the hub a player sits: arms reach in from there."""


@dataclass(frozen=True)
class VideoOptions:
    players: int | None = None
    """2-6 (None: drawn per video)."""
    plays: int | None = None
    """Tiles to lay (None: drawn from PLAYS)."""
    strategy: str | None = None
    """'random' or 'greedy' for every seat (None: drawn per seat)."""
    fps: int = FPS


@dataclass(frozen=True)
class Reach:
    """A hand in view: its arm in each frame from ``first`` (None where none of it is in view), the
    frame from which the table shows the next state (None: a pass over), and the first frame after
    it with the hand wholly out of view again."""

    first: int
    arms: tuple[Arm | None, ...]
    switch: int | None
    out: int


def video_table(seed: int, players: int, engine: int) -> tuple[Scene, list[TrainEnd], random.Random]:
    """The table at the round's start (a set drawn as ``make_scene`` draws one, standard layouts, no
    shrink wrap or glare), the ends its trains grow from, and the random stream that lays tiles."""
    rng = random.Random(f"table-{seed}")
    style = random_tile_style(rng, 12, FULL.pip_styles, FULL.makers_layouts, False, 0.0)
    style = shaped(maker_extras(style, random.Random(f"maker-{seed}"), FULL.bright_sets, FULL.printed_backs), FULL)
    style = makers_pips(style, random.Random(f"layout-{seed}"), FULL.layouts, FULL.pip_shapes)
    scene = Scene("table", seed, 12, style, rng.choice(FULL.tables))
    ends = lay_empty_table(scene, rng, players, engine)
    return scene, ends, rng


def table_states(scene: Scene, ends: list[TrainEnd], played: PlayedVideoRound, rng: random.Random) -> list[Scene]:
    """The table before the first step and after each step."""
    states = [copy.deepcopy(scene)]
    owners = [train.owner for train in scene.trains]
    for step in played.steps:
        index = owners.index(step.train)
        if step.kind == "play":
            ends[index] = extend_train(scene, index, ends[index], (step.inner, step.outer), rng)
            if step.takes_marker:
                take_marker(scene, index)
        else:
            colour = MARKER_COLOURS[step.player % len(MARKER_COLOURS)]
            put_marker(scene, index, ends[index], colour, MARKER_SHAPES[step.player % len(MARKER_SHAPES)])
        states.append(copy.deepcopy(scene))
    return states


def _whole_table(scene: Scene) -> tuple[np.ndarray, float]:
    """The circle round the hub holding every tile: a camera clamped over a table frames the hub in the middle."""
    points = np.array([tile.centre_mm for tile in scene.tiles] + [marker.centre_mm for marker in scene.markers])
    return np.zeros(3), float(np.linalg.norm(points, axis=1).max()) + scene.style.size_mm[0] * 0.8


def seat_map(scene: Scene, camera: Camera) -> dict[str, Any]:
    """The seat map (``hubcam analyze --seats``): each train's slot angle as the image shows it."""
    assert scene.hub is not None
    length, _, thickness = scene.style.size_mm
    hub = camera.project(np.array([[0.0, 0.0, scene.hub["height_mm"] / 2]]))[0]
    seats: dict[str, Any] = {"slots": {}, "mexican": None}
    for train in scene.trains:
        direction = 2 * math.pi * train.slot / scene.hub["slots"]
        reach = scene.hub["radius_mm"] + length / 2
        first = camera.project(np.array([[reach * math.cos(direction), reach * math.sin(direction), thickness / 2]]))[0]
        angle = round(math.degrees(math.atan2(-(first[1] - hub[1]), first[0] - hub[0])) % 360.0, 1)
        if train.owner == "mexican":
            seats["mexican"] = angle
        else:
            seats["slots"][f"{angle:g}"] = train.owner
    return seats


def _px_per_mm(camera: Camera, point_mm: np.ndarray) -> float:
    ends = camera.project(np.array([point_mm, point_mm + (10.0, 0, 0), point_mm + (0, 10.0, 0)]))
    return float((np.linalg.norm(ends[1] - ends[0]) + np.linalg.norm(ends[2] - ends[0])) / 20)


def _ease(t: float) -> float:
    return 0.5 - 0.5 * math.cos(math.pi * min(max(t, 0.0), 1.0))


@dataclass(frozen=True)
class Aim:
    """Where a hand reaches (pixels), from where (the player's seat), and the pixels per mm there."""

    target_px: np.ndarray
    seat_px: np.ndarray
    px_per_mm: float


def plan_reach(
    start: int,
    aim: Aim,
    size_px: tuple[int, int],
    look: ArmLook,
    rng: random.Random,
    fps: int,
    holding: tuple[int, int, int] | None,
    lays: bool,
) -> Reach:
    """A hand from the seat's side to the target and back out; laying something there when ``lays``."""
    target_px, scale = np.asarray(aim.target_px, np.float64), aim.px_per_mm
    away = target_px - aim.seat_px
    heading = math.atan2(away[1], away[0])
    direction = np.array([math.cos(heading), math.sin(heading)])
    # fingers over the target: the wrist a palm behind it
    place = target_px - direction * PALM_MM * 0.8 * scale
    out_px = HAND_REACH_MM * scale
    while Arm(tuple(place - direction * out_px), heading, scale).visible(size_px, look, ARM_FAR_MM):
        out_px += 20.0
    outside = place - direction * out_px
    frames_in = max(4, round(fps * rng.uniform(0.6, 1.2)))
    dwell = max(3, round(fps * rng.uniform(0.3, 0.7)))
    frames_out = max(4, round(fps * rng.uniform(0.5, 1.0)))
    wobble = rng.uniform(-0.15, 0.15)
    path: list[np.ndarray] = []
    for frame in range(frames_in + dwell + frames_out + 1):
        if frame <= frames_in:
            share = _ease(frame / frames_in)
        elif frame <= frames_in + dwell:
            share = 1.0
        else:
            share = 1.0 - _ease((frame - frames_in - dwell) / frames_out)
        side = np.array([-direction[1], direction[0]]) * math.sin(share * math.pi) * wobble * out_px * 0.3
        path.append(outside + (place - outside) * share + side + rng.gauss(0, 0.4))
    switch = frames_in + dwell // 2
    arms: list[Arm | None] = []
    for frame, wrist in enumerate(path):
        velocity = wrist - path[frame - 1] if frame else np.zeros(2)
        arm = Arm(
            (float(wrist[0]), float(wrist[1])),
            heading + wobble * 0.5 * math.sin(frame / 5),
            scale,
            (float(velocity[0]), float(velocity[1])),
            holding if lays and frame < switch else None,
        )
        arms.append(arm if arm.visible(size_px, look, ARM_FAR_MM) else None)
    while arms and arms[0] is None:
        arms.pop(0)
        start += 1
        switch -= 1
    out = max(index for index, arm in enumerate(arms) if arm is not None) + 1 if any(arms) else 0
    return Reach(start, tuple(arms[:out]), start + switch if lays else None, start + out)


@dataclass(frozen=True)
class FilmedRound:
    """A round played, the table after each step, and the one shot that films them all."""

    players: int
    played: PlayedVideoRound
    states: tuple[Scene, ...]
    shot: Shot


def film_round(seed: int, size_px: tuple[int, int], options: VideoOptions, rng: random.Random) -> FilmedRound:
    """What ``make_video`` films for ``seed`` (``hubcam synth --kind frames`` photographs the same);
    draws from ``rng`` (the video's stream) the seats and plays not given in ``options``."""
    players = options.players or rng.randint(2, 6)
    plays = options.plays or rng.randint(*PLAYS)
    played = _played_round(seed, players, plays, options.strategy)
    scene, ends, lay_rng = video_table(seed, players, played.engine)
    states = table_states(scene, ends, played, lay_rng)
    shot = fixed_shot(states[-1], size_px, VIDEO_CAMERA, seed, around=_whole_table(states[-1]))
    return FilmedRound(players, played, tuple(states), shot)


def make_video(seed: int, size_px: tuple[int, int], options: VideoOptions, path: Path) -> dict[str, Any]:
    """Play, render and write one video to ``path`` (an .mp4); returns its manifest, truth and seat map."""
    rng = random.Random(f"video-{seed}")
    filmed = film_round(seed, size_px, options, rng)
    players, played, states, shot = filmed.players, filmed.played, filmed.states, filmed.shot
    stills = [photograph(state, shot)[0] for state in states]
    camera = shot.camera
    seats = seat_map(states[0], camera)
    hub_px = camera.project(np.array([[0.0, 0.0, 0.0]]))[0]
    look = ArmLook.random(rng, _px_per_mm(camera, np.zeros(3)))
    fps = options.fps
    reaches: list[tuple[Reach, TableStep | None, int]] = []
    cursor = round(fps * rng.uniform(0.8, 1.2))
    for number, step in enumerate(played.steps):
        if rng.random() < PASS_OVER_SHARE:
            reach = _pass_over(cursor, states[number], camera, look, rng, fps, players)
            reaches.append((reach, None, number))
            cursor = reach.out + round(fps * rng.uniform(0.4, 0.9))
        after = states[number + 1]
        if step.kind == "play":
            tile = after.tiles[after.trains[[t.owner for t in after.trains].index(step.train)].tiles[-1]]
            target = np.array([*tile.centre_mm, 0.0])
        else:
            target = np.array([*after.markers[-1].centre_mm, 0.0])
        seat = _seat_point(after, step.player, camera)
        scale = _px_per_mm(camera, target)
        target_px = camera.project(target[None])[0]
        holding = after.style.body if step.kind == "play" else MARKER_COLOURS[step.player % len(MARKER_COLOURS)]
        reach = plan_reach(cursor, Aim(target_px, seat, scale), size_px, look, rng, fps, holding, True)
        reaches.append((reach, step, number + 1))
        cursor = reach.out + round(fps * rng.uniform(0.7, 1.3))
    frames = cursor + round(fps * 0.5)
    truth = _truth(reaches, fps)
    _write_frames(path, stills, reaches, frames, size_px, look, fps, random.Random(f"frames-{seed}"))
    manifest = {
        "players": players,
        "set": 12,
        "starter": played.starter,
        "engine": played.engine,
        "fps": fps,
        "frames": frames,
        "size": list(size_px),
        "seed": seed,
        "generator": GENERATOR,
        "strategies": list(played.strategies),
        "plays": sum(step.kind == "play" for step in played.steps),
        "hub_px": np.round(hub_px, 1).tolist(),
    }
    return {"manifest": manifest, "truth": truth, "seats": seats}


def _played_round(seed: int, players: int, plays: int, strategy: str | None) -> PlayedVideoRound:
    """The round: an illegal tile can block the only trains left early on; deal again (a few times)
    when a round stops well short of ``plays``."""
    rng = random.Random(f"round-{seed}")
    best: PlayedVideoRound | None = None
    for _ in range(6):
        played = play_video_round(rng, players, 12, plays, strategy)
        laid = sum(step.kind == "play" for step in played.steps)
        if best is None or laid > sum(step.kind == "play" for step in best.steps):
            best = played
        if laid >= min(plays, 8):
            break
    assert best is not None
    return best


def _seat_point(scene: Scene, seat: int, camera: Camera) -> np.ndarray:
    """Where a player sits, in image pixels: beyond the end of their train's slot."""
    assert scene.hub is not None
    train = next(train for train in scene.trains if train.owner == seat)
    direction = 2 * math.pi * train.slot / scene.hub["slots"]
    return camera.project(np.array([[SEAT_MM * math.cos(direction), SEAT_MM * math.sin(direction), 0.0]]))[0]


def _pass_over(
    start: int, scene: Scene, camera: Camera, look: ArmLook, rng: random.Random, fps: int, players: int
) -> Reach:
    """A hand passing over the table (reaching for a drink, pointing): in and out, nothing laid."""
    _, radius = scene.extent_mm()
    angle, distance = rng.uniform(0, 2 * math.pi), rng.uniform(0, radius * 0.7)
    target = np.array([distance * math.cos(angle), distance * math.sin(angle), 0.0])
    seat = _seat_point(scene, rng.randrange(players), camera)
    target_px = camera.project(target[None])[0]
    size = camera.size_px
    aim = Aim(target_px, seat, _px_per_mm(camera, target))
    return plan_reach(start, aim, size, look, rng, fps, None, False)


def _truth(reaches: list[tuple[Reach, TableStep | None, int]], fps: int) -> list[dict[str, Any]]:
    """The events in the order they may first be known."""
    lines: list[dict[str, Any]] = []

    def at(frame: int) -> dict[str, Any]:
        return {"frame": frame, "t_s": round(frame / fps, 2)}

    for reach, step, _ in reaches:
        if step is None:
            lines.append({**at(reach.first), "event": "pass_over", "frame_start": reach.first, "frame_end": reach.out})
            continue
        lines += [{**at(reach.out), **flag} for flag in step.flags]
        if step.kind == "play":
            tile = f"{step.inner}-{step.outer}"
            lines.append(
                {**at(reach.out), "event": "play", "player": step.player, "tile": tile, "train": step.train,
                 "legal": step.legal, "reason": step.reason, "message": step.message}
            )  # fmt: skip
        else:
            lines.append({**at(reach.out), "event": "marker", "player": step.player, "train": step.train})
    return lines


def _write_frames(
    path: Path,
    stills: list[np.ndarray],
    reaches: list[tuple[Reach, TableStep | None, int]],
    frames: int,
    size_px: tuple[int, int],
    look: ArmLook,
    fps: int,
    rng: random.Random,
) -> None:
    """Compose and encode every frame: the table's state, the arm, shake, light, compression."""
    width, height = size_px
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size_px)
    if not writer.isOpened():
        raise RuntimeError(f"cannot write a video to {path} (OpenCV's mp4v writer did not open)")
    arms: dict[int, Arm] = {}
    switches: list[tuple[int, int]] = []
    for reach, _, state in reaches:
        for offset, arm in enumerate(reach.arms):
            if arm is not None:
                arms[reach.first + offset] = arm
        if reach.switch is not None:
            switches.append((reach.switch, state))
    drift_period, drift = rng.uniform(4, 12) * fps, rng.uniform(0.02, 0.08)
    shake = np.zeros(3)
    state = 0
    try:
        for frame in range(frames):
            while switches and switches[0][0] <= frame:
                state = switches.pop(0)[1]
            image = stills[state].copy()
            arm = arms.get(frame)
            if arm is not None:
                draw_arm(image, arm, look, ARM_FAR_MM)
            shake = np.clip(
                0.8 * shake + np.array([rng.gauss(0, 0.45), rng.gauss(0, 0.45), rng.gauss(0, 0.0003)]), -2, 2
            )
            matrix = cv2.getRotationMatrix2D((width / 2, height / 2), math.degrees(shake[2]), 1.0)
            matrix[:, 2] += shake[:2]
            image = cv2.warpAffine(image, matrix, (width, height), borderMode=cv2.BORDER_REFLECT)
            gain = 1 + drift * math.sin(2 * math.pi * frame / drift_period) + rng.gauss(0, 0.012)
            image = cv2.convertScaleAbs(image, alpha=gain, beta=rng.gauss(0, 1.5) + 4 * math.sin(frame / drift_period))
            writer.write(image)
    finally:
        writer.release()


def _write_one(job: tuple[int, int, tuple[int, int], str, VideoOptions]) -> str:
    seed, index, size_px, out_dir, options = job
    name = f"{index:05d}"
    out = Path(out_dir)
    made = make_video(image_seed(seed, index), size_px, options, out / f"{name}.mp4")
    (out / f"{name}_seats.json").write_text(json.dumps(made["seats"]) + "\n")
    (out / f"{name}.truth.jsonl").write_text("".join(json.dumps(line) + "\n" for line in made["truth"]))
    (out / f"{name}.json").write_text(json.dumps(made["manifest"]) + "\n")  # last: marks the video done
    return name


def write_videos(
    count: int,
    seed: int,
    out_dir: Path,
    size_px: tuple[int, int] = (1280, 720),
    workers: int = 2,
    options: VideoOptions = VideoOptions(),
    progress: bool = True,
) -> list[str]:
    """Render ``count`` videos into ``out_dir``; videos already there (their manifest written) are kept."""
    if count < 1:
        raise ValueError(f"invalid count: {count} (expected at least 1)")
    if options.players is not None and not 2 <= options.players <= 6:
        raise ValueError(f"invalid players: {options.players} (expected 2 to 6)")
    out_dir.mkdir(parents=True, exist_ok=True)
    names = [f"{index:05d}" for index in range(count)]
    todo = [(seed, index, size_px, str(out_dir), options) for index, name in enumerate(names)
            if not (out_dir / f"{name}.json").exists()]  # fmt: skip
    run_jobs(_write_one, todo, workers, tqdm(total=len(todo), desc="rendering videos", unit="video",
                                             disable=not progress))  # fmt: skip
    return names
