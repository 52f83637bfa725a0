"""The runnable examples in the vision package's docstrings (engine/'s run as doctests directly)."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "vision.leave_out",
        "benchmarks.eval.metrics",
        "datasets.synth.pips",
        "vision.pipeline",
        "vision.geometry",
        "vision.observation",
        "vision.plays",
        "vision.watch.looks",
        "vision.watch.motion",
        "vision.watch.places",
        "vision.read.fusion",
    ],
)
def test_a_modules_docstring_examples_run_as_written(module):
    failed, tried = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0
