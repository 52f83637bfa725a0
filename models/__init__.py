"""The bundled models, each a folder holding ``model.onnx`` and the ``card.json`` that says how it was
trained and measured. Installed with the package (package data), so a wheel scores photos too.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent
DETECTOR = FOLDER / "tile-detector" / "model.onnx"
"""Finds tiles (face up, face down, standing) as oriented boxes: the hand scorer's."""
TABLE_DETECTOR = FOLDER / "table-detector" / "model.onnx"
"""Finds tiles, train markers and the hub on tables: the table reader's."""
COUNTER = FOLDER / "pip-counter" / "model.onnx"
"""Counts the pips on one half of a tile: the hand scorer's."""
TABLE_COUNTER = FOLDER / "table-counter" / "model.onnx"
"""Counts the pips on one half of a tile, taught tables too (their tiles are smaller): the table reader's."""
WATCH_COUNTER = FOLDER / "watch-counter" / "model.onnx"
"""The table counter taught video frames too (a watched table's tiles are 20-50 px, blurred, blocky): the
watcher's."""
PIP_PEAKS = FOLDER / "pip-heatmap" / "model.onnx"
"""Counts the pips on one half as the peaks of a pip-centre heatmap: it overrules the counters where
``vision.read.fusion`` says (layouts they never learnt)."""
REFINER = FOLDER / "box-refiner" / "model.onnx"
"""Moves a box onto its tile's corners, and says whether it holds one tile."""
VERIFIER = FOLDER / "tile-verifier" / "model.onnx"
"""Says whether a box holds one tile; kept to compare with the refiner's verdict (``hubcam eval --verifier``)."""
