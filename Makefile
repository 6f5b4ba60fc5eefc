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
	@echo "make demo    render the example packages with real kpt, a summary of what changed (V=1: diffs)"
	@echo "make test    lint (ruff, mypy --strict, import-linter) and every test"
	@echo "make test-fast   the tests that do not run kpt (a minute or two)"
	@echo "make test-pythons   the tests that do not run kpt on Python 3.12 and 3.13 (CI runs it)"
	@echo "make bench   benchmark table (bench/RESULTS.md)"
	@echo "make images / e2e-images   container images and the image-mode end-to-end"
	@echo "make dist    the krmlib and krmfn wheels in dist/;  make docs   krmlib's docs (build/docs/html)"
	@echo "             make docs also packs them as dist/krmlib-<version>-docs.tar.gz (make docs-archive)"

install: $(STAMP)
	@$(PY) -m compileall -q build/__editable__* sdk/build/__editable__*

# An editable install without an import hook (setuptools' strict mode): the packages krmfn and
# krmlib are linked under build/ and sdk/build/ and put on the path by .pth files, so start-up
# skips the hook. A new or removed module changes PACKAGE_FILES and re-links on the next make.
# The linked tree is compiled (its __pycache__ sits under build/, not in the sources): this
# sandbox sets PYTHONDONTWRITEBYTECODE, so without it every run compiled krmlib and krmfn from
# source (~45 ms of CPU per run). compileall rewrites only what changed; an edited file newer than
# its .pyc is recompiled in memory by Python, never run stale.
PACKAGE_FILES := $(sort $(wildcard krmlib/*.py krmlib/*/*.py krmfn/*.py krmfn/*/*.py krmfn/*/*.md \
	krmfn/*/schemas/*.json) \
	$(shell find krmlib/_io/templates -type f -not -path '*/__pycache__/*' 2>/dev/null))
FILE_LIST := $(VENV)/.package-files
$(shell mkdir -p $(VENV) && (echo '$(PACKAGE_FILES)' | cmp -s - $(FILE_LIST) || echo '$(PACKAGE_FILES)' > $(FILE_LIST)))

# Two distributions, one source tree: krmlib (sdk/pyproject.toml, the folder krmlib/, linked
# under sdk/build/) and krmfn (pyproject.toml, the folder krmfn/, linked under build/).
$(STAMP): pyproject.toml sdk/pyproject.toml sdk/setup.py sdk/src/_ccheck.c constraints.txt $(FILE_LIST)
	@test -x $(PY) || python3 -m venv $(VENV)
	@bash scripts/install-apt-tool.sh libyaml-dev /usr/include/yaml.h "krmlib builds without its C check"
	@bash scripts/install-apt-tool.sh gcc gcc "krmlib builds without its C check"
	@bash scripts/install-apt-tool.sh python3-dev "$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("include"))')/Python.h" \
		"krmlib builds without its C check"
	@$(PIP) install -q --disable-pip-version-check -c constraints.txt -e ./sdk -e '.[dev]' \
		--config-settings editable_mode=strict
	@touch $(STAMP)

lint: install
	$(VENV)/bin/ruff check krmlib krmfn tests bench examples
	$(VENV)/bin/ruff format --check krmlib krmfn tests bench
	$(VENV)/bin/mypy krmlib krmfn tests bench
	$(VENV)/bin/lint-imports

# The 15 slowest tests are listed at the end: CI's time budget is watched from its log.
test: lint
	$(VENV)/bin/pytest -n 2 --durations=15 tests

test-fast: install
	$(VENV)/bin/pytest -n 2 -m "not kpt" tests

# Rewrite expected golden files from the actual output; review `git diff` before committing.
golden: install
	$(VENV)/bin/pytest --update-golden -p no:randomly tests -k golden -q || true
	@git status --short testdata

# Short by default (a summary per example); `make demo V=1` for kpt's output and the full diffs.
demo: install
	@V="$(V)" bash examples/demo.sh

bench: install
	@$(PY) bench/run.py
	@$(PY) bench/prepare_all.py $(if $(FULL),--full,)

clean:
	rm -rf $(VENV) .venv-3.* .cache .mypy_cache .ruff_cache .pytest_cache

-include mk/*.mk
