# One entry point for set-up, the demo and the tests. Every target builds .venv when it is missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

$(BIN)/hotato: pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'
	touch $@

.PHONY: demo test check bench bench-quick
demo: $(BIN)/hotato
	$(BIN)/hotato demo

# The whole gate: lint, format, types, the layer contract, every test on both cores.
test: $(BIN)/hotato
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts docs README.md
	$(BIN)/mypy
	$(BIN)/lint-imports
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto

# The edit loop (30 s on two cores): lint and the tests not marked slow, stopping at the first
# failure. pytest keeps its rewritten test modules as bytecode even where the environment sets
# PYTHONDONTWRITEBYTECODE, so a worker collects in seconds, not tens of them.
check: $(BIN)/hotato
	$(BIN)/ruff check src tests bench scripts
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto -x -m "not slow"

bench: $(BIN)/hotato
	$(BIN)/python bench/run.py

bench-quick: $(BIN)/hotato
	$(BIN)/python bench/run.py --quick
