# make run | test | lint | docs | bench. Every target installs what it needs into .venv first.
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

# --- install: everything comes from the hashed lock files in requirements/ ---
# requirements/dev.txt: pyproject.toml's dependencies, its dev extra and requirements/tools.in
# (the linters tests/ops uses); run.txt: the dependencies alone, at the same versions (the
# Dockerfile's); checkov.txt: checkov, in a venv of its own. `make lock` rewrites them.
UV := uv==0.13.8
CHECKOV_VENV := $(VENV)/checkov
OVERLAYS := dev prod

# The install is redone only when a lock (or pyproject.toml, for the editable install) changes.
KEY := $(shell cat pyproject.toml requirements/dev.txt requirements/checkov.txt | sha256sum | cut -c1-16)
RUN_KEY := $(shell cat pyproject.toml requirements/run.txt | sha256sum | cut -c1-16)
RUN_STAMP := $(VENV)/.installed-run-$(RUN_KEY)
DEV_STAMP := $(VENV)/.installed-dev-$(KEY)
# pip: exactly the locked files (every one hashed), then the project with the locked setuptools.
PIP_LOCKED := $(BIN)/pip install -q --require-hashes --no-deps --only-binary=:all:
PIP_PROJECT := $(BIN)/pip install -q --no-deps --no-build-isolation -e .

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export DEBIAN_FRONTEND := noninteractive
# redocly: no usage telemetry, no update check (nothing leaves the machine).
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true
# Python caches compiled modules and pytest its rewritten test modules in __pycache__
# (git-ignored), so a run compiles each file once, not once a process. A shell that sets
# PYTHONDONTWRITEBYTECODE would make every worker compile all of them again (seconds).
unexport PYTHONDONTWRITEBYTECODE

# Node tools of the contract checks (openapi-typescript, typescript, @redocly/cli), pinned in
# clients/typescript/package-lock.json; npm ci reruns only when the lock changes.
NODE_DIR := clients/typescript
NODE_KEY := $(shell sha256sum $(NODE_DIR)/package-lock.json 2>/dev/null | cut -c1-16)
NODE_STAMP := $(NODE_DIR)/node_modules/.installed-$(NODE_KEY)

.PHONY: help install install-dev node-tools redis-server chromium run test test-fast lint docs bench lock sbom spec

help:
	@echo "make run    install into $(VENV) and start the API on port $(PORT)"
	@echo "make test   install everything (Python packages, node tools, redis-server, chromium), then pytest on both cores with make docs and make lint beside it"
	@echo "make test-fast  the day-to-day loop: engine rules and in-memory session tests, no servers (about 40 s)"
	@echo "make lint   ruff (check, format), mypy (engine, service, tests, benchmarks, tools), hadolint, yamllint, kustomize + kubernetes-validate, bandit + checkov, openapi-spec-validator, redocly"
	@echo "make spec   bundle the API description's sources (spec/) into openapi.yaml (redocly)"
	@echo "make docs   the documentation site (mkdocs.yml), built in strict mode into $(SITE_DIR)/"
	@echo "make fuzz   a longer schemathesis run against openapi.yaml (FUZZ_EXAMPLES=300 per operation)"
	@echo "make bench  the benchmark suite (benchmarks/run.py; BENCH_ARGS=--quick)"
	@echo "make lock   re-resolve requirements/*.txt from pyproject.toml (UPGRADE=1: newest versions)"
	@echo "make sbom   a CycloneDX SBOM of the image's locked packages: $(SBOM)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): | $(BIN)/python
	$(PIP_LOCKED) -r requirements/run.txt
	$(PIP_PROJECT)
	rm -f $(VENV)/.installed-run-*
	touch $@

$(DEV_STAMP): | $(BIN)/python
	$(PIP_LOCKED) -r requirements/dev.txt
	$(PIP_PROJECT)
	[ -x $(CHECKOV_VENV)/bin/python ] || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install -q --require-hashes --no-deps --only-binary=:all: -r requirements/checkov.txt
	rm -f $(VENV)/.installed-*
	touch $@ $(RUN_STAMP)

install: $(RUN_STAMP)
install-dev: $(DEV_STAMP)

# Re-resolve the locks (uv, a few seconds); commit requirements/ afterwards.
lock: | $(BIN)/python
	$(BIN)/pip install -q "$(UV)"
	$(BIN)/python requirements/lock.py $(if $(UPGRADE),--upgrade)

# A CycloneDX SBOM of what the image installs: a venv built from requirements/run.txt as
# the Dockerfile builds its own, the project (pyproject.toml) as the root component.
# Scan it with grype, trivy or osv-scanner (docs/security.md, "Software bill of materials").
SBOM ?= artifacts/sbom.cdx.json
sbom: install-dev
	rm -rf $(VENV)/sbom-env && $(PYTHON) -m venv $(VENV)/sbom-env
	$(VENV)/sbom-env/bin/pip install -q --require-hashes --no-deps --only-binary=:all: -r requirements/run.txt
	mkdir -p $(dir $(SBOM))
	$(BIN)/cyclonedx-py environment --pyproject pyproject.toml --output-reproducible \
	  --of JSON --output-file $(SBOM) $(VENV)/sbom-env/bin/python
	@echo "wrote $(SBOM)"
# --- end of install ---

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

# The documentation site (mkdocs.yml: docs/, and the API reference from openapi.yaml),
# strict: a broken link or anchor, or a page missing from the nav, fails the build.
SITE_DIR ?= site
docs: install-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir $(SITE_DIR)

# The docs site, every linter (make lint) and pytest run; any failing fails the target.
# pytest runs on TEST_WORKERS processes (pytest-xdist; 0: in this one). --dist loadgroup
# keeps each xdist_group on one worker (tests/conftest.py: a module's tests in order, the
# browser tests together, so two Chromiums never run at once); the few modules that
# measure time a heartbeat run after it, alone. make docs and make lint run beside it, in
# the time its tests spend waiting on servers; their output is printed after pytest's.
TEST_WORKERS ?= 2
test: install-dev node-tools redis-server chromium
	@status=0; checks_log=$$(mktemp); trap 'rm -f "$$checks_log"' EXIT; \
	( st=0; $(MAKE) --no-print-directory docs || st=1; \
	  $(MAKE) --no-print-directory lint || st=1; exit $$st ) >"$$checks_log" 2>&1 & checks=$$!; \
	UNO_TEST_SLICE=parallel timeout --signal=INT --kill-after=60 $(TEST_TIMEOUT) \
	  $(BIN)/python -m pytest -ra --durations=15 -n $(TEST_WORKERS) --dist loadgroup \
	  tests $(PYTEST_ARGS) || status=1; \
	echo "--- the tests that run alone (tests/conftest.py, SERIAL_MODULES):"; \
	UNO_TEST_SLICE=serial timeout --signal=INT --kill-after=60 $(TEST_TIMEOUT) \
	  $(BIN)/python -m pytest -ra tests $(PYTEST_ARGS) || [ $$? -eq 5 ] || status=1; \
	checks_status=0; wait $$checks || checks_status=1; \
	echo "--- make docs and make lint (beside pytest):"; cat "$$checks_log"; \
	[ $$checks_status -eq 0 ] || { echo "make docs or make lint FAILED"; status=1; }; \
	exit $$status

# The day-to-day loop: the engine's rule, path and record tests and the session tests on
# the in-memory store, on both cores; nothing that starts Redis, Chromium or a server.
FAST_TESTS := tests/engine/rules tests/engine/paths tests/engine/records tests/sessions
test-fast: install-dev
	$(BIN)/python -m pytest -q -n 2 -p no:schemathesis \
	  -m "not redis and not cluster and not browser and not slow" $(FAST_TESTS) $(PYTEST_ARGS)

# Every linter runs; any failing fails the target. security/scan.py: bandit on engine/ and
# service/, checkov on the rendered overlays and the Dockerfile; exceptions are written
# down in security/accepted.toml.
lint: install-dev node-tools
	@status=0; \
	for cmd in "ruff check ." "ruff format --check ." "mypy engine service tests benchmarks tools" "hadolint Dockerfile" \
	           "yamllint --strict k8s .yamllint.yaml" "python security/scan.py" \
	           "openapi-spec-validator openapi.yaml"; do \
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

# openapi.yaml is generated: spec/ holds its sources (tests/service/test_openapi.py fails
# while the bundle is stale).
spec: node-tools | $(BIN)/python
	$(BIN)/python -m tools.gen_spec_enums
	$(BIN)/python -m tools.gen_spec_unions
	$(BIN)/python -m tools.bundle_spec

# A longer schemathesis run than the test suite's (FUZZ_EXAMPLES per operation).
fuzz: install-dev
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-300} $(BIN)/python -m pytest -q tests/service/test_fuzz.py

# The anchors: RLCard's UNO game API (engine), wrk (HTTP) and valgrind (instruction counts), installed only here.
bench: install-dev
	$(BIN)/pip install -q rlcard==1.2.0 granian==2.8.9
	@command -v wrk >/dev/null 2>&1 && command -v valgrind >/dev/null 2>&1 || { \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo="sudo"; $$sudo apt-get update -qq; \
	  $$sudo apt-get install -y -qq --no-install-recommends wrk valgrind >/dev/null; }
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)
