"""Reading a photo the way the labels expect (``cv2.imread``: BGR, EXIF orientation applied),
with a clear error for anything that is not a whole, reasonably sized image."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")
"""How the files of the photos read here are named (lower case): JPEG and PNG."""
MAX_PIXELS = 60_000_000
"""About 60 megapixels: larger than any phone photo, small enough to stay well under 600 MB."""


class PhotoError(ValueError):
    """A file that cannot be read as a photo; the message says why."""


def read_photo(path: Path) -> np.ndarray:
    """The photo as ``cv2.imread`` returns it; raises PhotoError naming what is wrong."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise PhotoError(f"cannot read {path}: {error.strerror or error}") from None
    return decode_photo(data, str(path))


def decode_photo(data: bytes, name: str) -> np.ndarray:
    """The photo held in ``data`` (JPEG or PNG), decoded as ``cv2.imread`` would; ``name`` is what errors
    call it. Its size is checked from the header before anything is decoded (no decompression bombs)."""
    if not data:
        raise PhotoError(f"{name} is empty")
    size = _declared_size(data)
    if size is None:
        raise PhotoError(f"{name} is not a JPEG or PNG image")
    width, height = size
    if width * height > MAX_PIXELS:
        raise PhotoError(f"{name} is too large: {width}x{height} pixels (at most {MAX_PIXELS // 1_000_000} megapixels)")
    if data[:2] == b"\xff\xd8" and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise PhotoError(f"{name} is a truncated JPEG (no end-of-image marker)")
    # IMREAD_COLOR applies EXIF orientation, as cv2.imread does
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise PhotoError(f"{name} could not be decoded")
    return image


def _declared_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a JPEG's frame header or a PNG's IHDR, before decoding anything."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:2] != b"\xff\xd8":
        return None
    offset = 2
    while offset + 9 < len(data):
        if data[offset] != 0xFF:
            return None
        marker = data[offset + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            offset += 2
            continue
        length = struct.unpack(">H", data[offset + 2 : offset + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start-of-frame marker
            height, width = struct.unpack(">HH", data[offset + 5 : offset + 9])
            return int(width), int(height)
        offset += 2 + length
    return None
