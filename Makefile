# The two commands of the README, and what they stand on.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev
CODE := proofgym proofgym_stack agent_server resources_servers model_interface sdg trainers interop

.PHONY: install system-deps run test lint unit validate bench tasks test-interop test-engine lock peer-table rg-table

# every dependency at the version the tests passed with (`make lock` moves them on purpose)
LOCK := constraints.txt

$(STAMP): pyproject.toml $(LOCK)
	@(command -v bwrap && command -v chromium) >/dev/null || $(MAKE) system-deps
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first, pinned: an unpinned one pulls a multi-gigabyte CUDA build
	$(PY) -m pip install -q torch==2.13.0
	# rg: reasoning-gym's datasets (tests/test_reasoning_gym.py); pycosat, one of its
	# dependencies, builds from source (a C compiler)
	$(PY) -m pip install -q -c $(LOCK) -e '.[dev,local,rg]'
	touch $(STAMP)

install: $(STAMP)

# bubblewrap: the sandbox of the code environment (which refuses to run code without it);
# chromium: the viewer's tests drive a real headless browser
SYSTEM_PACKAGES := bubblewrap chromium
system-deps:
	@if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; \
	else echo "install as root: apt-get install $(SYSTEM_PACKAGES)" >&2; exit 1; fi; \
	if command -v apt-get >/dev/null; then $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $(SYSTEM_PACKAGES); \
	elif command -v dnf >/dev/null; then $$SUDO dnf install -y $(SYSTEM_PACKAGES); \
	else echo "install $(SYSTEM_PACKAGES) with your package manager" >&2; exit 1; fi

## make run: start the three services, run the example tasks with the reference and no-op policies.
run: install
	$(VENV)/bin/proofgym demo

## make test: lint, type-check, every test, and the validation of every environment.
test: install lint unit validate

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy $(CODE)
	$(VENV)/bin/lint-imports

# pytest exits 5 when it collected no test: that is a broken suite, not a pass. The tests run
# on every core (pytest-xdist; `make unit PYTEST_WORKERS=0` runs them in one process); a module
# marked `xdist_group` (the Ray cluster's) runs whole on one worker. The 15 slowest are listed
# at the end, so a test that grew shows in the CI's log.
PYTEST_WORKERS ?= auto
unit: install
	$(VENV)/bin/pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadgroup --durations=15; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "no test ran: the suite is broken"; exit 1; fi; exit $$rc

## make validate: prove every shipped environment (controls, negatives, isolation, determinism).
validate: install
	$(VENV)/bin/proofgym validate

## make test-interop: the real peers (OpenEnv 0.10.0, NeMo Gym 0.7.0, skyrl-gym 0.4.0), every
## direction of interop, with their own clients and servers on loopback (opt-in; not in CI).
INTEROP ?= .interop
# the first Python 3.13 that runs (a pyenv shim is found on PATH even where 3.13 is not active)
PY313 ?= $(shell for p in $$(command -v python3.13) $$HOME/.pyenv/versions/3.13*/bin/python; do \
	"$$p" -c 'import sys' 2>/dev/null && echo "$$p" && break; done)
test-interop: install
	$(PY) -m pip install -q -c $(LOCK) -e '.[skyrl]'
	test -x $(INTEROP)/openenv/bin/openenv || (python3 -m venv $(INTEROP)/openenv && \
		$(INTEROP)/openenv/bin/pip install -q openenv==0.10.0)
	@test -n "$(PY313)" || (echo "NeMo Gym needs Python 3.13 (set PY313=/path/to/python3.13)" >&2; exit 1)
	test -x $(INTEROP)/nemo/bin/python || ($(PY313) -m venv $(INTEROP)/nemo && \
		$(INTEROP)/nemo/bin/pip install -q --ignore-requires-python nemo-gym==0.7.0)
	$(PY) tests/interop_real/run.py --peers $(INTEROP)

## make rg-table: `proofgym validate` on every reasoning-gym dataset (`rg_*`); appends each
## dataset's row to bench/RG_TABLE.jsonl (a new run skips the rows there), then writes
## bench/PEER_TABLE_REASONING_GYM.md (about 20 minutes from empty).
rg-table: install
	$(PY) bench/rg_table.py --retry-errors
	$(PY) bench/rg_table.py --markdown bench/PEER_TABLE_REASONING_GYM.md

## make peer-table: `proofgym validate` through the bridge on every resources server of the
## NeMo Gym 0.7.0 wheel; writes bench/NEMO_GYM_TABLE.json and docs/peers.md (about an hour),
## with the reasoning-gym table (rg-table) in it.
peer-table: install rg-table
	@test -n "$(PY313)" || (echo "NeMo Gym needs Python 3.13 (set PY313=/path/to/python3.13)" >&2; exit 1)
	test -x $(INTEROP)/nemo/bin/python || ($(PY313) -m venv $(INTEROP)/nemo && \
		$(INTEROP)/nemo/bin/pip install -q --ignore-requires-python nemo-gym==0.7.0)
	$(PY) bench/nemo_gym_table.py --install --peers $(INTEROP)
	$(PY) bench/nemo_gym_table.py --markdown docs/peers.md

## make lock: resolve the newest versions of every dependency into a fresh venv, write them to
## constraints.txt (what `make install` installs), reinstall from it, and run the real-peer
## tests with them: the lock moves on purpose, never by itself.
LOCK_VENV ?= .lock-venv
lock:
	rm -rf $(LOCK_VENV)
	python3 -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q --upgrade pip
	$(LOCK_VENV)/bin/pip install -q torch==2.13.0
	$(LOCK_VENV)/bin/pip install -q -e '.[dev,local,skyrl,rg]'
	{ sed -n '1,4p' $(LOCK); $(LOCK_VENV)/bin/pip freeze --exclude-editable | grep -v -i '^torch==' | grep -v '^-e'; } > $(LOCK).new
	mv $(LOCK).new $(LOCK)
	rm -rf $(LOCK_VENV)
	$(MAKE) install test-interop

## make test-engine: compose.yaml started for real on a Docker engine (installs docker.io and
## builds a local base image with debootstrap where missing; opt-in, needs root; not in CI).
test-engine: install
	$(PY) tests/engine/run.py

bench: install
	$(PY) bench/rollouts.py

tasks: install
	$(VENV)/bin/proofgym sdg file_edit --n 8 --seed 7 --split example
	$(VENV)/bin/proofgym sdg code --n 6 --seed 5 --split example
	$(VENV)/bin/proofgym sdg math --n 8 --seed 3 --split example
	$(VENV)/bin/proofgym sdg workflow --n 6 --seed 4 --split example
	$(VENV)/bin/proofgym sdg game --n 6 --seed 2 --split example
	$(VENV)/bin/proofgym sdg letters --n 6 --seed 1 --split example
	$(VENV)/bin/proofgym sdg support --n 6 --seed 1 --split example
