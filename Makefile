# One entry point for humans and CI. Every target sets itself up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# The install compiles the rules core (server/game/) with mypyc in place, and with
# it the server's modules on the move path (SERVER_COMPILED in server/ops/corebuild.py)
# (setup.py; pure Python without a C compiler or with PATIENCE_PURE=1). An edit
# to any of them must rebuild, or the old compiled modules would keep running.
SERVER_SRC := ${shell sed -n '/^SERVER_COMPILED/,/^)/p' server/ops/corebuild.py | grep -o '"server[.a-z_]*"' | tr -d '"' | sed 's|\.|/|g; s|$$|.py|'}
CORE_SRC := $(shell find server/game -name '*.py') $(SERVER_SRC)
# The tests of the pure core: run a second time on the pure-Python source, so
# the compiled and the pure core can never drift apart; with them the unit tests
# of the compiled server modules that need no server (a few seconds: the view's
# bytes, the framing, the codec's errors, the outbox and the progress throttle).
# The longest exhaustive cross-checks (marked compiled_pass) run on the compiled
# pass only: the code they check runs on the pure core in the tests beside them.
PURE_TESTS := tests/game tests/test_cli.py tests/test_corebuild.py tests/competition/test_daily_pure.py \
	tests/server/test_viewcodec.py tests/server/test_sansio_fast_frames.py tests/test_protocol.py \
	tests/server/test_outbox.py tests/server/test_progress_throttle.py tests/server/test_aio.py \
	tests/server/test_progress_bytes.py

.PHONY: setup serve cluster test lint bench clean

$(STAMP): pyproject.toml setup.py server/ops/corebuild.py $(CORE_SRC)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/patience-server --version
	touch $(STAMP)

setup: $(STAMP)

serve: $(STAMP)
	$(BIN)/patience-server serve

# docker-compose.yml's deployment on this machine (needs haproxy); Ctrl-C stops it
cluster: $(STAMP)
	$(BIN)/python -m tools.localcluster

lint: $(STAMP)
	$(BIN)/ruff check server client tests bench tools setup.py
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: lint
	$(BIN)/pytest
	PATIENCE_PURE=1 $(BIN)/pytest -m "not compiled_pass" $(PURE_TESTS)

bench: $(STAMP)
	$(BIN)/python -m bench.engine --both
	$(BIN)/python -m bench.instructions
	$(BIN)/python -m bench.server_instructions

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build *.egg-info
	find server -name '*.so' -delete
	rm -f patience_core__mypyc.*.so patience_server__mypyc.*.so
