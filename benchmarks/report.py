"""Writing a benchmark's numbers: ``results/<name>.json`` and ``results/<name>.md`` (the README quotes them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def write_report(name: str, report: dict[str, Any], markdown_lines: list[str]) -> None:
    """Write the report as JSON and its markdown beside it, and print the markdown."""
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{name}.md").write_text("\n".join(markdown_lines) + "\n")
    print("\n".join(markdown_lines))
