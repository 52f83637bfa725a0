"""The house's shape (STYLE.md): run time imports neither training, rendering, evaluation nor
datasets; each of those may use run time but not the parts after it; no module imports upward."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PARTS = {
    "run time": ("engine", "calibration", "models", "vision"),
    "data": ("datasets",),
    "rendering": ("datasets.synth",),
    "evaluation": ("benchmarks.eval",),
    "training": ("models.train",),
    "shell": ("api",),
    "lab verbs": ("api.cli.lab", "api.cli.lab_train"),
    "measuring": ("benchmarks",),
}
"""Each part by the packages it holds (the longest prefix names a module's part). The lab (data, rendering,
evaluation, training, measuring) sits beside the run time, in datasets/, models/train/ and benchmarks/."""
MAY_USE = {
    "run time": {"run time"},
    "data": {"run time", "data"},
    "rendering": {"run time", "data", "rendering"},
    "evaluation": {"run time", "data", "evaluation"},
    "training": {"run time", "data", "rendering", "training"},
    "shell": {"run time", "shell", "lab verbs"},
    "lab verbs": set(PARTS) - {"measuring"},
    "measuring": set(PARTS),
}
"""No arrow runs back up: the run time uses no lab module, data making no training, training no evaluation;
of api/, only the CLI's lab verbs (synth, export, train, eval) reach the lab."""
HEAVY = ("torch", "torchvision", "ultralytics")
"""Training's packages (the train extra): the run time never imports them, not even inside a function."""


def part_of(module: str) -> str | None:
    best = max(
        ((prefix, part) for part, prefixes in PARTS.items() for prefix in prefixes
         if module == prefix or module.startswith(prefix + ".")),
        key=lambda found: len(found[0]), default=None,
    )  # fmt: skip
    return None if best is None else best[1]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module imported anywhere in the file (functions' own imports too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


TOPS = ("engine", "calibration", "models", "vision", "api", "datasets", "benchmarks")
SOURCES = sorted(path for top in TOPS for path in (ROOT / top).rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_module_imports_a_part_it_may_not_use(path):
    own = part_of(module_name(path))
    assert own is not None
    crossing = sorted(
        name for name in imports_of(path) if (part := part_of(name)) is not None and part not in MAY_USE[own]
    )
    assert not crossing, f"{own} imports {crossing}"


RUN_TIME_SOURCES = [path for path in SOURCES if part_of(module_name(path)) == "run time"]


@pytest.mark.parametrize("path", RUN_TIME_SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_run_time_imports_no_training_package(path):
    heavy = sorted(name for name in imports_of(path) if name.split(".")[0] in HEAVY)
    assert not heavy, f"{path.relative_to(ROOT)} imports {heavy}"


def test_vision_holds_no_lab_folder():
    """vision/ holds what runs on a photo or a frame: no rendering, training, evaluation or data folder."""
    lab = ("synth", "train", "eval", "data")
    lab_folders = sorted(path.name for path in (ROOT / "vision").iterdir() if path.name in lab)
    assert not lab_folders, f"lab folders in vision/: {lab_folders}"


def test_no_source_imports_the_tests_and_the_product_tests_import_no_benchmark():
    """Test helpers stay in tests; the product's tests (tests/) import no measuring script, whose own
    tests live beside it (benchmarks/tests/); the evaluation harness (benchmarks/eval/) is tested here."""
    for path in SOURCES:
        assert not any(name == "tests" or name.startswith("tests.") for name in imports_of(path)), path
    for path in (ROOT / "tests").rglob("*.py"):
        assert not any(part_of(name) == "measuring" for name in imports_of(path)), path


def test_the_engine_imports_nothing_else_of_the_repository():
    for path in (ROOT / "engine").rglob("*.py"):
        assert all(part_of(name) in (None, "run time") and not name.startswith(("vision", "calibration", "models"))
                   for name in imports_of(path)), path  # fmt: skip


MOST_PARAMETERS = 8
"""More than this many and a function wants a config value (``vision.pipeline.ScorerConfig``)."""


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_function_takes_more_than_a_few_parameters(path):
    crowded = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            given = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            count = len([arg for arg in given if arg.arg not in ("self", "cls")])
            if count > MOST_PARAMETERS:
                crowded.append(f"{node.name} ({count})")
    assert not crowded, f"{path.name}: {crowded}"
