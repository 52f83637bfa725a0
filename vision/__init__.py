"""hubcam's vision: a frame in, an Observation out (tiles, pips, hub, trains).

Nothing is here yet: issues 3 and 4 build it. Uses engine's value types, never its game state.
"""
