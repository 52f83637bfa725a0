"""Dim photos are brightened before reading; bright ones are left alone."""

from __future__ import annotations

import cv2
import numpy as np

from vision.exposure import LEVEL, MOST_GAIN, brightened, highlights


def photo_with_highlights(level: int, share: float = 0.05, background: int = 40) -> np.ndarray:
    """A 400x300 photo of ``background`` grey with ``share`` of its rows at ``level``."""
    image = np.full((300, 400, 3), background, np.uint8)
    image[: int(300 * share)] = level
    return image


def test_highlights_are_the_brightest_percent_not_the_brightest_pixel():
    image = photo_with_highlights(180)
    image[150, 200] = 255  # one glare pixel does not make a photo bright
    assert highlights(image) == 180


def test_highlights_take_the_brightest_channel():
    image = photo_with_highlights(0)
    image[:30, :, 2] = 230  # a red cloth's highlights are bright in red alone
    assert highlights(image) == 230


def test_a_bright_photo_is_left_as_it_is():
    image = photo_with_highlights(LEVEL + 10)
    assert brightened(image) is image


def test_a_dim_photo_is_brought_up_to_the_level():
    image = photo_with_highlights(100)
    out = brightened(image)
    assert abs(highlights(out) - LEVEL) <= 1
    assert abs(int(out[-1, -1, 0]) - round(40 * LEVEL / 100)) <= 1  # everything scaled alike


def test_a_nearly_black_photo_gains_no_more_than_the_most():
    image = photo_with_highlights(20, background=10)
    out = brightened(image)
    assert highlights(out) == round(20 * MOST_GAIN)


def test_the_highlights_can_be_judged_on_a_small_copy_made_already():
    image = photo_with_highlights(100)
    copy = cv2.resize(image, (100, 75), interpolation=cv2.INTER_AREA)
    copy[:, :, 1] = LEVEL + 10  # as if the copy were of a bright photo: it alone decides
    assert brightened(image, judged_on=copy) is image
    assert highlights(copy, shrink=False) == LEVEL + 10
    assert np.array_equal(brightened(image, judged_on=cv2.resize(image, (100, 75))), brightened(image))
