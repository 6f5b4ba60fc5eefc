# The SDK side of the project (included by the main Makefile): the two wheels and the docs.
#
#   make dist   dist/krmlib-<v>-py3-none-any.whl and dist/krmfn-<v>-py3-none-any.whl
#   make docs   the krmlib API reference and guides (docs/), HTML under build/docs/html,
#               Sphinx warnings as errors
#
# The wheels are built from a copy of the sources: setuptools stages under build/ (and
# sdk/build/), where the editable install keeps its link trees.

.PHONY: dist docs

DIST_SRC := .cache/dist-src

dist: install
	@rm -rf $(DIST_SRC) && mkdir -p $(DIST_SRC) dist
	@tar --exclude=./.git --exclude=./.venv --exclude=./.cache --exclude=./build \
		--exclude=./sdk/build --exclude=./dist --exclude='*.egg-info' --exclude=__pycache__ \
		-cf - . | tar -C $(DIST_SRC) -xf -
	@rm -f dist/krmlib-*.whl dist/krmfn-*.whl
	@$(PIP) wheel -q --disable-pip-version-check --no-deps -w dist \
		$(DIST_SRC)/sdk $(DIST_SRC)
	@rm -rf $(DIST_SRC)
	@ls dist/*.whl

DOCS_STAMP := $(VENV)/.installed-docs

$(DOCS_STAMP): $(STAMP)
	@$(PIP) install -q --disable-pip-version-check -c constraints.txt -e ./sdk -e '.[dev,docs]' \
		--config-settings editable_mode=strict
	@touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	@start=$$(date +%s); \
	$(VENV)/bin/sphinx-build -E -q -W --keep-going -b html -d build/docs/doctrees docs build/docs/html; \
	rc=$$?; echo "make docs: build/docs/html/index.html ($$(( $$(date +%s) - start )) s)"; exit $$rc
