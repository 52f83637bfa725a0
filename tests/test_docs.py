"""What the repository tells a newcomer stays true: the rules copied into docs/ match the contract,
and the README's quick start prints what the README shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from api.cli import main

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT.parent / "shared" / "RULES.md"


@pytest.mark.skipif(not CONTRACT.exists(), reason="../shared/RULES.md is absent")
def test_the_rules_in_docs_are_the_contract():
    assert (ROOT / "docs" / "RULES.md").read_text() == CONTRACT.read_text(), "copy ../shared/RULES.md to docs/"


def test_the_readme_quick_start_prints_what_the_readme_shows(capsys, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    shown = re.search(r"\$ \.venv/bin/hubcam score docs/sample-hand\.jpg\n(.*?)\n\$", readme, re.S)
    assert shown, "the README's quick start scores docs/sample-hand.jpg"
    monkeypatch.chdir(ROOT)
    assert main(["score", "docs/sample-hand.jpg"]) == 0
    printed = capsys.readouterr().out.splitlines()
    for line in shown.group(1).splitlines():
        if line.strip() != "...":
            assert line in printed


def test_the_readme_says_what_the_sample_photo_holds(capsys, monkeypatch):
    """The sentence before the quick start names the face-up tiles and pips that are counted."""
    readme = (ROOT / "README.md").read_text()
    said = re.search(r"its label says (\d+) face-up tiles, (\d+) pips, and a face-down tile", readme)
    assert said, "the README says what the sample photo holds"
    monkeypatch.chdir(ROOT)
    assert main(["score", "docs/sample-hand.jpg", "--json"]) == 0
    seen = json.loads(capsys.readouterr().out)
    counted = [tile for tile in seen["tiles"] if "reason" not in tile]
    assert (len(counted), seen["total"]) == (int(said.group(1)), int(said.group(2)))
    assert len(seen["tiles"]) - len(counted) == 1, "one face-down tile, left out"
