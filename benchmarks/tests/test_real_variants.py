"""benchmarks/real_variants.py: each changed photo's labels still lie on the tiles they label."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.real_variants import VARIANTS, changed_label
from datasets.labels import LabelledImage, LabelledTile

CORNERS = np.array([[60, 40], [60, 80], [140, 80], [140, 40]], np.float32)
"""A tile lying along x; corners[0] is marked in the photo by a colour of its own."""


def marked_photo() -> tuple[LabelledImage, np.ndarray]:
    image = np.full((240, 320, 3), 30, np.uint8)
    cv2.fillConvexPoly(image, CORNERS.astype(np.int32), (200, 200, 200))
    cv2.circle(image, (64, 44), 3, (0, 0, 255), -1)  # just inside corners[0]
    label = LabelledImage(Path("marked.jpg"), 320, 240, (LabelledTile(CORNERS, (1, 2)),))
    return label, image


@pytest.mark.parametrize("name", ["turned-90", "turned-180", "turned-270", "rotated-20", "slanted-25", "chat-app"])
def test_changed_corners_lie_on_the_changed_tile(name):
    label, image = marked_photo()
    changed, matrix = VARIANTS[name](image)
    tile = changed_label(label, changed, matrix).tiles[0]
    assert changed_label(label, changed, matrix).width == changed.shape[1]
    centre = tile.corners.mean(axis=0).round().astype(int)
    assert changed[centre[1], centre[0]].min() > 150  # the middle of the face is still the face
    near_first = tile.corners[0] + (tile.corners[2] - tile.corners[0]) * 0.04
    x, y = near_first.round().astype(int)
    blue, green, red = changed[y, x].astype(int)
    assert red > 120 and red > blue + 60  # corners[0] is still the marked corner
    assert tile.corners.min() >= -1 and (tile.corners[:, 0] <= changed.shape[1] + 1).all()


def test_light_variants_keep_the_corners():
    label, image = marked_photo()
    for name in ("dim", "warm-light", "grainy", "out-of-focus"):
        changed, matrix = VARIANTS[name](image)
        assert np.allclose(changed_label(label, changed, matrix).tiles[0].corners, CORNERS)


def test_a_missing_candidate_model_is_named(monkeypatch, capsys, tmp_path):
    from benchmarks import real_variants

    monkeypatch.setattr("sys.argv", ["real_variants", "--detector", str(tmp_path / "none.onnx")])
    with pytest.raises(SystemExit) as stopped:
        real_variants.main()
    assert stopped.value.code == 2
    assert "no such model: --detector" in capsys.readouterr().err
