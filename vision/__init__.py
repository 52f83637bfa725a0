"""hubcam's vision, the run time: a photo or a frame in, an Observation out.

Hands: ``pipeline.HandScorer`` (detect/ finds the tiles, read/ counts their pips, leave_out.py
says which readings are unsure). Tables: ``table_reader.TableReader`` (the hub and engine, trains
followed by ``trains.py``, flags by ``reconcile.py``, the one bridge to engine/'s rules). Uses
engine's value types, never its game; imports nothing of the lab (datasets/, models/train/,
benchmarks/).
"""
