"""Finding tiles: the OBB detector, run with onnxruntime (no torch at run time)."""
