# Every target bootstraps .venv itself; only python3 and make are needed.
# Stamp files make (re)installs happen only when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1
# Python writes its bytecode caches (__pycache__, ignored by git) even where the environment says
# not to: uv installs no .pyc files, so with PYTHONDONTWRITEBYTECODE set every process (a server's
# workers, each test's subprocess) compiled flask, marshmallow and the rest from source again:
# importing the app took 1.1 s instead of 0.45, starting a two-worker server 6.8 s instead of 2.7.
unexport PYTHONDONTWRITEBYTECODE

.DEFAULT_GOAL := help
.PHONY: help serve test test-lowest lint bench lock clean

help:
	@echo "make serve  - run the HTTP service on http://127.0.0.1:8000 (docs at /docs)"
	@echo "make test   - ruff, mypy and the test suite"
	@echo "make test-lowest - the tests (but slow, contract and engine-only ones) on the lowest versions pyproject.toml allows"
	@echo "make lint   - ruff, mypy and hadolint (when a Dockerfile exists)"
	@echo "make bench  - run the benchmarks in bench/"
	@echo "make lock   - regenerate constraints.txt and build-constraints.txt (hash-pinned, for the image)"
	@echo "make clean  - remove .venv, build output and caches"

$(PY):
	$(PYTHON) -m venv $(VENV)

# pip installs uv only; uv installs the rest (a fresh .venv's dev extra: about 4 s with an empty
# cache, where pip took 60 s).
UV := $(BIN)/uv
$(UV): | $(PY)
	$(PY) -m pip install --quiet 'uv>=0.5'

$(VENV)/.stamp-serve: pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) -e '.[serve]'
	touch $@

# The dev extra includes the serve extra, so it satisfies both stamps.
$(VENV)/.stamp-dev: pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) -e '.[dev]'
	touch $@ $(VENV)/.stamp-serve

serve: $(VENV)/.stamp-serve
	$(PY) -m service.server

# Two workers (CI has 2 cores), each test to whichever worker is free: a module's fixtures (a live
# server, a Dask cluster) may start once on each worker. Whole files per worker (--dist loadfile)
# left one worker idle for a minute behind the longest files; --dist loadgroup does not group on
# pytest 9.2 (pytest-dev/pytest-xdist#1386). PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= 2

test: $(VENV)/.stamp-dev
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist load

# The lowest versions of the direct dependencies that pyproject.toml allows (uv's lowest-direct
# resolution), in a venv of their own; test tools at their newest. Left to `make test`: contract
# tests (they need the dev extra's schemathesis and generator), slow ones (sweeps), the image's
# command (the image installs constraints.txt's pinned versions, never the lowest), and the files
# of ENGINE_ONLY, whose tests run no dependency at all (tests/test_architecture.py checks that).
# Since session 35 the verdicts reach HiGHS (the opening value's integer programme), so only
# the vectors' copy check is left out.
LOWEST := .venv-lowest
ENGINE_ONLY := vectors_copy
test-lowest: $(VENV)/.stamp-dev
	rm -rf $(LOWEST)
	$(UV) venv --quiet --python $(PY) $(LOWEST)
	$(UV) pip install --quiet --python $(LOWEST)/bin/python --resolution lowest-direct -e '.[serve]'
	$(UV) pip install --quiet --python $(LOWEST)/bin/python pytest pytest-xdist hypothesis pyyaml jsonschema
	$(UV) pip list --python $(LOWEST)/bin/python
	$(LOWEST)/bin/pytest -q -n 2 --dist load -m "not slow and not contract" \
		--ignore=tests/test_contract.py --ignore=tests/test_contract_live.py --ignore=tests/test_docker_cmd.py \
		$(foreach name,$(ENGINE_ONLY),--ignore=tests/test_$(name).py)

lint: $(VENV)/.stamp-dev
	$(BIN)/ruff check .
	$(BIN)/mypy
	@if [ -f Dockerfile ]; then echo "$(BIN)/hadolint Dockerfile"; $(BIN)/hadolint Dockerfile; fi

bench: $(VENV)/.stamp-dev
	$(PY) bench/bench_engine.py
	$(PY) bench/bench_turn_worst.py --runs 50
	$(PY) bench/bench_svg.py
	$(PY) bench/bench_solver.py --quick
	$(PY) bench/bench_http.py
	$(PY) bench/bench_cli.py --rounds 2000 --games 200

# The image's hash-pinned locks: the serve extra's whole closure, and the build backend. Linux,
# Python 3.11 (the image's); every wheel's hash of each pinned version is listed (amd64 and arm64).
LOCK_FLAGS := --generate-hashes --python-version 3.11 --python-platform x86_64-unknown-linux-gnu --no-header --quiet
lock: $(VENV)/.stamp-dev
	@echo "# Hash-pinned lock of everything '.[serve]' installs (Linux, Python 3.11): the Dockerfile installs" > constraints.txt
	@echo "# it with 'pip install --require-hashes -r constraints.txt', then the package with --no-deps." >> constraints.txt
	@echo "# Regenerate with 'make lock' after changing the serve dependencies in pyproject.toml." >> constraints.txt
	$(BIN)/uv pip compile pyproject.toml --extra serve $(LOCK_FLAGS) >> constraints.txt
	@echo "# Hash-pinned build backend (pyproject.toml's build-system) for the Dockerfile's wheel build." > build-constraints.txt
	@echo "# Regenerate with 'make lock'." >> build-constraints.txt
	echo "hatchling>=1.25" | $(BIN)/uv pip compile - $(LOCK_FLAGS) >> build-constraints.txt

clean:
	rm -rf $(VENV) $(LOWEST) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis .benchmarks .coverage htmlcov
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
