# The SDK side of the project (included by the main Makefile): the two wheels and the docs.
#
#   make dist   dist/krmlib-<v>-<tags>.whl (tagged for this machine when its C check is built)
#               and dist/krmfn-<v>-py3-none-any.whl, and
#               krmlib's HTML docs as a release artifact: dist/krmlib-<v>-docs.tar.gz
#   make docs-archive   that archive of the HTML `make docs` built: reproducible, its entries
#               sorted, owned by 0:0 and dated SOURCE_DATE_EPOCH (default: the last commit's time)
#   make docs   the krmlib API reference and guides (docs/), HTML under build/docs/html,
#               Sphinx warnings as errors, then packed by make docs-archive (CI builds both)
#
# The wheels are built from a copy of the sources: setuptools stages under build/ (and
# sdk/build/), where the editable install keeps its link trees.

.PHONY: dist docs docs-archive

DIST_SRC := .cache/dist-src

dist: install docs
	@rm -rf $(DIST_SRC) && mkdir -p $(DIST_SRC) dist
	@tar --exclude=./.git --exclude=./.venv --exclude=./.cache --exclude=./build \
		--exclude=./sdk/build --exclude=./dist --exclude='*.egg-info' --exclude=__pycache__ \
		-cf - . | tar -C $(DIST_SRC) -xf -
	@rm -f dist/krmlib-*.whl dist/krmfn-*.whl
	@$(PIP) wheel -q --disable-pip-version-check --no-deps -w dist \
		$(DIST_SRC)/sdk $(DIST_SRC)
	@rm -rf $(DIST_SRC)
	@ls dist/*.whl $(DOCS_ARCHIVE)

DOCS_STAMP := $(VENV)/.installed-docs

$(DOCS_STAMP): $(STAMP)
	@$(PIP) install -q --disable-pip-version-check -c constraints.txt -e ./sdk -e '.[dev,docs]' \
		--config-settings editable_mode=strict
	@touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	@start=$$(date +%s); \
	$(VENV)/bin/sphinx-build -E -q -W --keep-going -b html -d build/docs/doctrees docs build/docs/html; \
	rc=$$?; echo "make docs: build/docs/html/index.html ($$(( $$(date +%s) - start )) s)"; exit $$rc
	@$(MAKE) --no-print-directory docs-archive

# The HTML of `make docs` as one release artifact, byte for byte the same for the same HTML:
# entries sorted by name under krmlib-<v>-docs/, owner 0:0, every mtime SOURCE_DATE_EPOCH (default:
# the last commit's time), gzip without name or time (tests/test_sdk_docs_archive.py).
KRMLIB_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' sdk/pyproject.toml)
DOCS_ARCHIVE ?= dist/krmlib-$(KRMLIB_VERSION)-docs.tar.gz

docs-archive:
	@test -f build/docs/html/index.html || { echo "make docs-archive: run make docs first"; exit 1; }
	@mkdir -p $(dir $(DOCS_ARCHIVE)) && rm -f $(DOCS_ARCHIVE)
	@set -o pipefail; epoch=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)}; \
	LC_ALL=C tar --sort=name --mtime=@$$epoch --owner=0 --group=0 --numeric-owner \
		--format=gnu --exclude=.buildinfo \
		--transform 's,^html,krmlib-$(KRMLIB_VERSION)-docs,' -C build/docs -cf - html \
		| gzip -9n > $(DOCS_ARCHIVE)
	@echo "make docs-archive: $(DOCS_ARCHIVE)"
