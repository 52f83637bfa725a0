"""hubcam's own ChArUco calibration board: its layout, its image, and a PDF that prints it at true size.

A ChArUco board is a chessboard with an ArUco marker in each white square: the markers name the
squares, so a photo that shows only part of the board (pushed into a corner of the frame, or cut
by it) still tells which chessboard corners it shows, and the corners themselves are found to a
fraction of a pixel. The board is 11 x 8 squares of 4x4-bit markers (the coarsest cells ArUco
has, so that a small board seen at a slant is still read), with half a square of white round it.

Printed 30 cm wide (``PRINTED_WIDTH_MM``) a square is 25 mm. The printed size only sets the scale
of where the board was; a camera's focal length and distortion do not depend on it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

SQUARES = (11, 8)
"""Squares across and down."""
MARKER_SHARE = 0.6
"""A marker's side over a square's. The white left round each marker (a fifth of a square each side)
keeps the marker's edges out of the chessboard corners' neighbourhood: with 0.75, corners of boards
seen small were found up to a pixel off (0.1 px now); larger markers would only be read from further."""
DICTIONARY = cv2.aruco.DICT_4X4_50
"""44 markers of the 50: 4x4 bits, the largest cells for a given marker size."""
MARGIN_SQUARES = 0.5
"""White round the board, in squares: the outer markers need a light border to be found."""
PRINTED_WIDTH_MM = 300.0
"""The whole sheet's image (margin included) printed 30 cm wide."""
PX_PER_SQUARE = 200
"""The image's resolution: a marker's 6 cells (4 bits and a black border) are 20 px each, so
every edge falls on a whole pixel (about 200 dpi printed 30 cm wide)."""


@dataclass(frozen=True)
class Board:
    squares: tuple[int, int] = SQUARES
    """Squares across and down."""
    square_mm: float = PRINTED_WIDTH_MM / (SQUARES[0] + 2 * MARGIN_SQUARES)
    """A square's side as printed (25 mm at 30 cm wide)."""

    @property
    def marker_mm(self) -> float:
        return self.square_mm * MARKER_SHARE

    @property
    def size_mm(self) -> tuple[float, float]:
        """The sheet's image (margin included), width and height."""
        across, down = self.squares
        return (across + 2 * MARGIN_SQUARES) * self.square_mm, (down + 2 * MARGIN_SQUARES) * self.square_mm

    @property
    def corner_count(self) -> int:
        """The chessboard's inner corners (70 for 11 x 8)."""
        across, down = self.squares
        return (across - 1) * (down - 1)

    def charuco(self) -> cv2.aruco.CharucoBoard:
        """OpenCV's board, in millimetres, its first inner corner at (square, square) from the pattern's corner."""
        dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm, dictionary)

    def corners_mm(self) -> np.ndarray:
        """``(corner_count, 3)`` float32 inner corners on the board, by id, in millimetres from the
        pattern's top-left corner (z = 0)."""
        return np.asarray(self.charuco().getChessboardCorners(), np.float32).reshape(-1, 3)


HUBCAM_BOARD = Board()


def board_image(board: Board = HUBCAM_BOARD, px_per_square: int = PX_PER_SQUARE) -> np.ndarray:
    """The sheet as a ``(height, width)`` uint8 grey image: the board with its white margin."""
    across, down = board.squares
    margin = round(MARGIN_SQUARES * px_per_square)
    size = (across * px_per_square + 2 * margin, down * px_per_square + 2 * margin)
    image = board.charuco().generateImage(size, marginSize=margin, borderBits=1)
    return np.asarray(image, np.uint8)


def write_board(path: Path, board: Board = HUBCAM_BOARD) -> None:
    """The sheet as ``path``: a PNG (or any image OpenCV writes) or, for ``.pdf``, a page the sheet's
    size, so that printing at 100 % gives the board at ``board.size_mm``."""
    image = board_image(board)
    if path.suffix.lower() == ".pdf":
        path.write_bytes(pdf_of(image, board.size_mm))
        return
    if not cv2.imwrite(str(path), image):
        raise OSError(f"cannot write {path}: OpenCV writes no image of that kind (expected .png, .jpg or .pdf)")


def pdf_of(image: np.ndarray, size_mm: tuple[float, float]) -> bytes:
    """A one-page PDF whose page is ``size_mm`` and holds the grey ``image`` stretched over it
    (lossless, deflated): a minimal writer, so the board needs no PDF package."""
    height, width = image.shape
    points = [mm * 72 / 25.4 for mm in size_mm]
    page = f"{points[0]:.3f} 0 0 {points[1]:.3f} 0 0 cm /Board Do".encode()
    pixels = zlib.compress(np.ascontiguousarray(image).tobytes(), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {points[0]:.3f} {points[1]:.3f}] "
        "/Resources << /XObject << /Board 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n".encode()
        + pixels
        + b"\nendstream",
        f"<< /Length {len(page)} >>\nstream\n".encode() + page + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    table = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{table}\n%%EOF\n".encode()
    return bytes(out)
