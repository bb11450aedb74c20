# ccsim build plumbing (GNU make).
#
#   make demo    set up .venv, build ccsim (release) and run the keshav-s1 reproduction
#   make test    set up, then cargo test (engine, optimised with debug assertions) and pytest
#   make lint    the gates CI runs first: cargo fmt --check, clippy (warnings are errors),
#                ruff, the stub check of _ccsim.pyi, the comment gate and the import gate
#                (docs/testing.md)
#   make bench   the speed benchmark (docs/performance.md)
#   make bench-growth   whether any component's cost per event grows over a run:
#                instructions per event (valgrind's callgrind) early and late in runs of
#                4T for every qdisc, element, congestion control and sender kind;
#                flags a ratio above 1.05 and then fails (minutes; not in make test;
#                GROWTH_ARGS="--jobs 2 --filter fq" passes options; docs/performance.md)
#   make build   only set up .venv and build
#   make reproductions   rerun every reproduction: figures, CSVs, the numbers and
#                scoreboards in docs/reproductions/*.md, then the golden digests and
#                the regression snapshots
#   make snapshots   accept the regression snapshots (tests/snapshots/*.txt): print
#                the table of values moved, then rewrite them (docs/testing.md)
#   make validate-ns3    the ns-3 comparison (validation/ns3/, own venv; not in make test)
#   make report-screenshot   the screenshot of an HTML report in docs/report.png
#
# Everything the project needs is installed here, into .venv at the repository root.
# Re-running is incremental: the venv's dependencies are reinstalled only when
# pyproject.toml changes, and maturin runs only when a file under crates/ or python/
# (or a Cargo/pyproject manifest) changes; cargo's own target/ keeps that rebuild quick.

SHELL := /bin/bash
.DEFAULT_GOAL := build

PYTHON ?= python3
VENV   := $(CURDIR)/.venv
BIN    := $(VENV)/bin
DEPS_STAMP  := $(VENV)/.ccsim-deps.stamp
BUILD_STAMP := $(VENV)/.ccsim-build.stamp

# Inputs of the native build and the package (for the build stamp).
SOURCES := $(shell find crates python -type f \
              -not -path '*/__pycache__/*' -not -name '*.pyc' -not -name '*.so' 2>/dev/null) \
           Cargo.toml $(wildcard Cargo.lock) pyproject.toml

# maturin must see the venv as the active environment to install into it.
VENV_ENV := VIRTUAL_ENV=$(VENV) PATH=$(BIN):$$PATH

.PHONY: build demo test lint bench bench-growth clean venv debian-packages reproductions \
        validate-ns3 report-screenshot snapshots

venv: $(DEPS_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Dependencies come from pyproject.toml itself (build-system requires, runtime
# dependencies and the `test` extra), so there is one list to keep.
$(DEPS_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); \
	  print("\n".join(p["build-system"]["requires"] + p["project"]["dependencies"] \
	                  + p["project"]["optional-dependencies"]["test"]))' > $(VENV)/requirements.txt
	$(BIN)/pip install --quiet -r $(VENV)/requirements.txt
	touch $@

$(BUILD_STAMP): $(DEPS_STAMP) $(SOURCES)
	$(VENV_ENV) $(BIN)/maturin develop --release --quiet
	touch $@

build: $(BUILD_STAMP)

demo: $(BUILD_STAMP)
	$(BIN)/ccsim reproduce keshav-s1 --out out/keshav-s1 --force
	@echo
	@echo "Plots and tables are in $(CURDIR)/out/keshav-s1/"

# Debian packages the tests use (tshark reads the pcap files ccsim writes; headless
# chromium draws the pages of `ccsim report`; valgrind counts the run loop's
# instructions, tests/test_instructions.py). CI runs as root on Debian; elsewhere
# install them yourself or the tests that need them skip.
DEBIAN_PACKAGES := tshark chromium valgrind
debian-packages:
	@missing=""; for p in $(DEBIAN_PACKAGES); do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "not installed:$$missing (tests that need them will skip)"; fi; \
	fi

test: $(BUILD_STAMP) debian-packages
	# Optimised as release, without its link-time optimisation, with debug assertions
	# and overflow checks (Cargo.toml's test-release profile): the assertions check
	# every channel's conservation identity; the doctests of docs/extending.md run too.
	cargo test -p ccsim-engine --profile test-release
	# One pytest worker per core (pytest-xdist), tests handed out one at a time: the
	# golden runs (one test of about 3.5 minutes) go alongside the rest.
	$(BIN)/python -m pytest -q -n auto

# The gates (`.ci/run` runs them before the tests). rustfmt.toml and Cargo.toml's
# [workspace.lints] configure the Rust ones, pyproject.toml's [tool.ruff] ruff.
lint: $(BUILD_STAMP)
	cargo fmt --all --check
	PYO3_PYTHON=$(BIN)/python cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests validation examples
	$(BIN)/python -m mypy.stubtest ccsim._ccsim --allowlist tests/lint/stubtest-allowlist.txt
	$(BIN)/python tests/lint/comments.py
	$(BIN)/python tests/lint/imports.py

reproductions: $(BUILD_STAMP)
	$(BIN)/python -m ccsim.reproduce.regenerate
	$(BIN)/python tests/golden.py --update
	$(BIN)/python tests/snapshots.py --update

snapshots: $(BUILD_STAMP)
	$(BIN)/python tests/snapshots.py --update

# The screenshot of a `ccsim report` page in docs/cli.md (needs chromium).
report-screenshot: $(BUILD_STAMP) debian-packages
	$(BIN)/python -m ccsim.report --screenshot docs/report.png

validate-ns3: $(BUILD_STAMP)
	$(MAKE) -C validation/ns3 CCSIM_PYTHON=$(BIN)/python

bench: $(BUILD_STAMP)
	$(BIN)/ccsim bench --flows 100 --bottleneck 100Mbps --time 60s --repeat 8

# Engine only (no venv): the example runs itself under valgrind, case by case.
GROWTH_ARGS ?=
bench-growth:
	cargo run --release -p ccsim-engine --example cost_growth -- $(GROWTH_ARGS)

clean:
	rm -rf $(VENV) out python/ccsim/*.so
	cargo clean
