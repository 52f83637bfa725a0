"""benchmarks/failures.py on hand-made cases whose answers are known."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from datasets.labels import FACE_DOWN, LabelledImage, LabelledTile
from vision.observation import Observation, Reason, Sighting


def test_every_cause_of_a_wrong_total_is_named():
    from benchmarks.failures import causes, describe

    def tile_at(x: float, pips: tuple[int, int] | None = None, **kind: object) -> LabelledTile:
        return LabelledTile(np.array([[x, 40], [x, 0], [x + 80, 0], [x + 80, 40]], np.float32), pips, **kind)

    label = LabelledImage(
        Path("hand.jpg"), 1000, 100,
        (
            tile_at(0, (1, 2)),  # missed
            tile_at(100, (3, 4)),  # left out as uncertain
            tile_at(200, (5, 6)),  # misread
            tile_at(300, (0, 1), unreadable=True, cut=True),  # counted though the label leaves it out
            tile_at(400, (2, 2), pose=FACE_DOWN),  # a box over it counted
            tile_at(500, (6, 6)),  # read right: not listed
            tile_at(600, (4, 1), hidden=(True, False)),  # glare washed a pip out: misread, marked so
        ),
    )  # fmt: skip

    def read(x: float, pips: tuple[int, int], uncertain: bool = False) -> Sighting:
        return Sighting(tile_at(x).corners, pips, 0.4 if uncertain else 0.9, Reason.READ_UNSURE if uncertain else None)

    prediction = Observation(
        (
            read(100, (3, 4), True), read(200, (5, 5)), read(300, (0, 1)), read(400, (2, 2)), read(500, (6, 6)),
            read(600, (4, 0)),
        )
    )  # fmt: skip
    wrong = causes(label, prediction)
    assert [tile["cause"] for tile in wrong] == [
        "missed", "uncertain", "misread", "counted_though_cut", "misread", "extra",
    ]  # fmt: skip
    assert wrong[2]["read"] == (5, 5) and wrong[5]["over"] == FACE_DOWN
    assert [tile.get("length_px") for tile in wrong] == [80, 80, 80, 80, 80, None]  # how large the tile was to see
    assert [bool(tile.get("washed_out")) for tile in wrong] == [False] * 4 + [True, False]
    assert all("on_labelled_corners" not in tile for tile in wrong)  # not asked
    assert "uncertain (3, 4) read (3, 4) (0.40: read unsure)" in describe(wrong[1:2])  # and why it was left out


def test_a_wrong_tile_is_read_again_on_its_labelled_corners():
    from benchmarks.failures import causes, describe

    def tile_at(x: float, pips: tuple[int, int]) -> LabelledTile:
        return LabelledTile(np.array([[x, 40], [x, 0], [x + 80, 0], [x + 80, 40]], np.float32), pips)

    def read(x: float, pips: tuple[int, int], uncertain: bool = False) -> Sighting:
        return Sighting(tile_at(x, pips).corners, pips, 0.9, Reason.READ_UNSURE if uncertain else None)

    label = LabelledImage(Path("hand.jpg"), 1000, 100, (tile_at(0, (1, 2)), tile_at(100, (3, 4)), tile_at(200, (5, 6))))
    found = Observation((read(100, (3, 4), uncertain=True), read(200, (5, 5))))  # the 1-2 missed
    on_labelled = Observation((read(0, (1, 2)), read(100, (3, 4), uncertain=True), read(200, (5, 4))))
    wrong = causes(label, found, on_labelled)
    assert [tile["on_labelled_corners"] for tile in wrong] == ["right", "uncertain", (5, 4)]
    assert "{on its labelled corners: right}" in describe(wrong[:1])
