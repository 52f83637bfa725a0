# hubcam: `make run` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test check bench clean

# The run time: the package and its (light) dependencies.
$(BIN)/hubcam: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# Tests and checks on top of the run time.
$(VENV)/.dev: $(BIN)/hubcam
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# The main job so far: play a 4-player double-12 game and referee its first round.
run: $(BIN)/hubcam
	mkdir -p out
	$(BIN)/hubcam simulate --players 4 --set 12 --seed 1 --logs out/logs --csv out/scoresheet.csv --json out/scoresheet.json
	$(BIN)/hubcam referee out/logs/round-00.json --compact > out/referee-round-00.json
	@echo "referee report: out/referee-round-00.json; logs: out/logs/; scoresheet: out/scoresheet.csv"

test: $(VENV)/.dev
	$(BIN)/ruff check engine api tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest

bench: $(BIN)/hubcam
	$(BIN)/python -m benchmarks.referee_bench

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache .hypothesis
