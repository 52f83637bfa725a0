"""Dim photos brightened before they are read.

The models learnt from synthetic scenes, and read real photos taken in dim light worse than
the same photos well exposed (benchmarks/real_variants.py: the labelled real photos darkened
lost tiles and read pips of dim colours as none). A photo whose brightest parts are dim is
scaled up until they are not: the tiles' faces are then about as bright as in the photos the
models read well. A photo already bright enough is left as it is (and costs a millisecond).
"""

from __future__ import annotations

import cv2
import numpy as np

BRIGHT_SHARE = 0.01
"""The brightest share of the photo's pixels, in their brightest channel, stands for its highlights
(tile faces, white pips, cloth); a smaller share would be set by glare spots alone."""
LEVEL = 200
"""Highlights dimmer than this (of 255) are brought up to it: the darkened real photos read best at
200-210 (benchmarks/results/real_variants.md, ``dim``)."""
MOST_GAIN = 3.0
"""No more than this: a photo of a dark table with dark tiles has little bright to bring up, and
noise would only grow."""
SAMPLES_ALONG = 320
"""The highlights are judged on the photo shrunk to about this many pixels along its longer side
(nearest pixels: a fraction of a millisecond even for 12 megapixels), or on a small copy of it
made already (the pipeline's: the detector's view, 448 px)."""


def highlights(image_bgr: np.ndarray, shrink: bool = True) -> int:
    """How bright the photo's highlights are: the level (0-255) its brightest BRIGHT_SHARE reaches
    (``shrink=False``: judged on the image as it is, a small copy of the photo already)."""
    height, width = image_bgr.shape[:2]
    scale = min(1.0, SAMPLES_ALONG / max(height, width)) if shrink else 1.0
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    sample = cv2.resize(image_bgr, size, interpolation=cv2.INTER_NEAREST) if scale < 1 else image_bgr
    blue, green, red = cv2.split(sample)  # whole planes: OpenCV copies strided ones anyway, more slowly
    brightest = cv2.max(cv2.max(blue, green), red)
    counts = cv2.calcHist([brightest], [0], None, [256], [0, 256]).ravel()
    return int(np.searchsorted(np.cumsum(counts), (1 - BRIGHT_SHARE) * brightest.size))


def brightened(image_bgr: np.ndarray, judged_on: np.ndarray | None = None) -> np.ndarray:
    """The photo with its highlights brought up to LEVEL if they are dimmer (the same array if not);
    ``judged_on``: a small copy of the photo to judge them on, made already (the cheaper: the
    photo, sampled afresh, costs the pipeline about 0.2 ms more)."""
    level = highlights(image_bgr) if judged_on is None else highlights(judged_on, shrink=False)
    if level >= LEVEL:
        return image_bgr
    gain = min(LEVEL / max(level, 1.0), MOST_GAIN)
    table = np.clip(np.arange(256) * gain + 0.5, 0, 255).astype(np.uint8)
    return cv2.LUT(image_bgr, table)
