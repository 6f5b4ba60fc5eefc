# krmfn: two commands do everything on a fresh machine: `make demo` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: help install lint test test-fast golden demo bench clean

help:
	@echo "make demo    render the example packages with real kpt and show what changed"
	@echo "make test    lint (ruff, mypy --strict) and every test"
	@echo "make bench   benchmark table (bench/RESULTS.md)"
	@echo "make images / e2e-images   container images and the image-mode end-to-end"

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || python3 -m venv $(VENV)
	@$(PIP) install -q --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

# mypy sees the functions under their import name krmfn through this link.
.cache/mypy-path/krmfn:
	@mkdir -p .cache/mypy-path
	@ln -sfn ../../functions .cache/mypy-path/krmfn

lint: install .cache/mypy-path/krmfn
	$(VENV)/bin/ruff check krmlib functions tests bench examples
	$(VENV)/bin/ruff format --check krmlib functions tests bench
	$(VENV)/bin/mypy krmlib tests bench .cache/mypy-path/krmfn

test: lint
	$(VENV)/bin/pytest -n 2 tests

test-fast: install
	$(VENV)/bin/pytest -n 2 -m "not kpt" tests

# Rewrite expected golden files from the actual output; review `git diff` before committing.
golden: install
	KRMFN_UPDATE_GOLDEN=1 $(VENV)/bin/pytest -p no:randomly tests -k golden -q || true
	@git status --short testdata

demo: install
	@bash examples/demo.sh

bench: install
	@$(PY) bench/run.py

clean:
	rm -rf $(VENV) .cache .mypy_cache .ruff_cache .pytest_cache

-include mk/*.mk
