"""Watching a round being played (``hubcam watch``): frames in, events out.

``motion`` says when the picture has settled into a new stable state and where it changed;
``watcher`` re-reads the table then, and turns what changed into plays, flags and take-backs
through the bridge to the rules (``vision.plays``)."""
