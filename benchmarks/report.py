"""Writing a benchmark's numbers: ``results/<name>.json`` and ``results/<name>.md`` (the README quotes them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def write_report(name: str, report: dict[str, Any], markdown_lines: list[str]) -> None:
    """Print the markdown, then write the report as JSON and the markdown beside it. A report of
    another benchmark under that name is not overwritten (a candidate's ``--name`` given to two
    benchmarks would keep only the last one's numbers): that is an error, after the numbers are
    printed."""
    print("\n".join(markdown_lines))
    RESULTS.mkdir(exist_ok=True)
    other = benchmark_at(RESULTS / f"{name}.json")
    ours = report.get("benchmark")
    if other is not None and ours is not None and other != ours:
        raise SystemExit(
            f"benchmarks/results/{name}.json holds {other}'s report: give --name a name of {ours}'s own "
            f"(e.g. {ours}-{name}); the numbers above were not written"
        )
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{name}.md").write_text("\n".join(markdown_lines) + "\n")


def benchmark_at(path: Path) -> str | None:
    """Which benchmark wrote the report at ``path`` (None: no report there, or one that does not say)."""
    try:
        written = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    benchmark = written.get("benchmark") if isinstance(written, dict) else None
    return benchmark if isinstance(benchmark, str) else None
