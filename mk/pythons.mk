# The tests on the other Pythons we support (pyproject: requires-python >= 3.11).
#
#   make test-pythons   for 3.12 and 3.13 (pyenv's, or python3.X on PATH): a venv each
#                       (.venv-3.X, pinned by constraints.txt) and the tests that do not run kpt
#
# 3.11 runs everything in `make test`; kpt's round trips do not depend on the Python version,
# so the other two run the unit, golden, property and bad-input suites (`-m "not kpt"`; seen
# here: 3.12 and 3.13 pass them all). .ci/run calls it after `make test`.

PYTHONS ?= 3.12 3.13

.PHONY: test-pythons

test-pythons:
	@set -e; for v in $(PYTHONS); do \
	  py=$$(bash scripts/find-python.sh $$v); \
	  venv=.venv-$$v; \
	  if [ ! -f $$venv/.installed ] || [ pyproject.toml -nt $$venv/.installed ] \
	     || [ sdk/pyproject.toml -nt $$venv/.installed ] \
	     || [ sdk/src/_ccheck.c -nt $$venv/.installed ] \
	     || [ constraints.txt -nt $$venv/.installed ]; then \
	    rm -rf $$venv; $$py -m venv $$venv; bash scripts/install-apt-tool.sh libyaml-dev /usr/include/yaml.h "krmlib builds without its C check"; \
	    $$venv/bin/pip install -q --disable-pip-version-check -c constraints.txt -e ./sdk -e '.[dev]' \
	      --config-settings editable_mode=strict; \
	    touch $$venv/.installed; \
	  fi; \
	  echo "== Python $$v: $$($$venv/bin/python --version)"; \
	  PATH=$(CURDIR)/$$venv/bin:$$PATH $$venv/bin/pytest -n 2 -q -m "not kpt" -p no:cacheprovider --durations=10 tests; \
	done
