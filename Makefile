# One entry point for humans and CI. Every target sets itself up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup serve cluster test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

serve: $(STAMP)
	$(BIN)/patience-server serve

# docker-compose.yml's deployment on this machine (needs haproxy); Ctrl-C stops it
cluster: $(STAMP)
	$(BIN)/patience-server cluster

lint: $(STAMP)
	$(BIN)/ruff check server client tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: lint
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python -m bench.engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
