# tieout — two commands: `make demo` and `make test`.
# Everything downloaded or built is cached outside the checkout (TIEOUT_CACHE, default ~/.cache/tieout).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export TIEOUT_CACHE ?= $(HOME)/.cache/tieout
export UV_CACHE_DIR ?= $(TIEOUT_CACHE)/uv
UV_VERSION := 0.13.9
# Where PYTHONDONTWRITEBYTECODE is set (as on the development machine CI is modelled on) no process keeps
# what it compiled, and each of the hundreds of Python processes of `make test` (services, restarted workers, pytest workers,
# vLLM servers, trainers) would compile every module it imports again: import vLLM's API server 23.9 s
# instead of 10.6 s. The recipes write .pyc files as they import (only the modules used, once).
unexport PYTHONDONTWRITEBYTECODE
OUT ?= out/demo

.PHONY: venv demo test setup lint typecheck unit integration faults schemas samples bench clean stack-up stack-down

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@test -x $(BIN)/uv || $(BIN)/pip install -q --disable-pip-version-check uv==$(UV_VERSION)
	$(BIN)/uv pip sync --no-config --python $(BIN)/python requirements.lock
	$(BIN)/uv pip install --no-config --python $(BIN)/python --no-deps -e .
	@touch $@

## demo: the embedded run over sample_docs/ (no servers needed)
demo: venv
	$(BIN)/tieout run sample_docs --out $(OUT)
	@echo "Results are in $(OUT)/ (facts.jsonl, flags.jsonl, chunks.jsonl, tables.jsonl, errors.jsonl)"

## test: everything on a fresh machine, each step timed (infra/test.sh): a one-line plan; all downloads and
## builds in parallel beside lint + mypy; the unit and corpus tiers on every core; the local stack (Kafka,
## S3 gateway, schema registry, PostgreSQL), Helm lint + kubeconform and the integration tier; the CPU vLLM
## servers only for the model group; a summary with each step's time and the 20 slowest tests
test: venv
	bash infra/test.sh

## setup: only what make test fetches and builds (and lint + mypy), in parallel, each timed
setup: venv
	bash infra/test.sh setup

stack-up:
	bash infra/stack.sh up

stack-down:
	bash infra/stack.sh down

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: venv
	$(BIN)/mypy

unit: venv
	$(BIN)/python -m pytest -q -n auto -m "not integration and not corpus"

## integration: the integration tier without the model group, against the local stack (left running)
integration: venv
	bash infra/browser.sh
	bash infra/stack.sh up
	bash infra/registry.sh up
	bash infra/postgres.sh up
	$(BIN)/python -m pytest -q -m "integration and not model"

## faults: the fault suite alone (kills, broker, registry, store and database outages; ~10 min)
faults: venv
	bash infra/stack.sh up
	bash infra/registry.sh up
	bash infra/postgres.sh up
	@set +e; $(BIN)/python -m pytest -q -s -m faults; rc=$$?; \
	  bash infra/postgres.sh down; bash infra/registry.sh down; bash infra/stack.sh down; exit $$rc

schemas: venv
	$(BIN)/tieout schemas --out schemas/json

samples: venv
	$(BIN)/python -m sample_docs.generate

bench: venv
	$(BIN)/python bench/parse_throughput.py
	$(BIN)/python bench/parse_throughput.py --whole
	$(BIN)/python bench/table_accuracy.py
	$(BIN)/python bench/planted_errors.py

clean:
	rm -rf $(VENV) out .mypy_cache .ruff_cache .pytest_cache
