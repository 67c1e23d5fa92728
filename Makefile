# One entry point for set-up, the demo and the tests. Every target builds .venv when it is missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

$(BIN)/hotato: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

.PHONY: demo test lint bench
demo: $(BIN)/hotato
	$(BIN)/hotato demo

test: $(BIN)/hotato
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/pytest

bench: $(BIN)/hotato
	$(BIN)/python bench/run.py
