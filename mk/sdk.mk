# The SDK side of the project (included by the main Makefile): the two wheels and the docs.
#
#   make dist   krmlib's two wheels: dist/krmlib-<v>-py3-none-any.whl (pure: the Python input
#               check) and dist/krmlib-<v>-cp3XX-cp3XX-linux_<arch>.whl (with its C check,
#               krmlib._yaml.ccheck, for this machine's interpreter and architecture: it fails
#               if the extension does not build; gcc, python3-dev and libyaml-dev are installed
#               when missing), dist/krmfn-<v>-py3-none-any.whl, and
#               krmlib's HTML docs as a release artifact: dist/krmlib-<v>-docs.tar.gz
#   make wheels the three wheels alone (DIST_DIR=folder: elsewhere than dist/)
#   make docs-archive   that archive of the HTML `make docs` built: reproducible, its entries
#               sorted, owned by 0:0 and dated SOURCE_DATE_EPOCH (default: the last commit's time)
#   make docs   the krmlib API reference and guides (docs/), HTML under build/docs/html,
#               Sphinx warnings as errors, then packed by make docs-archive (CI builds both)
#
# The wheels are built from a copy of the sources: setuptools stages under build/ (and
# sdk/build/), where the editable install keeps its link trees. The pure krmlib wheel is built
# first and its staging removed, so no compiled file reaches it. The images carry the wheels
# of linux/amd64 and linux/arm64 (the Dockerfile's wheel-build stage; make images copies them
# to .cache/krmlib-wheels/<arch>/).

.PHONY: dist wheels docs docs-archive

DIST_SRC := .cache/dist-src
# Where `make wheels` (the wheel part of `make dist`) writes (tests/test_images_recipe.py: a folder of its own).
DIST_DIR ?= dist

dist: install docs wheels
	@ls $(DOCS_ARCHIVE)

wheels: install
	@rm -rf $(DIST_SRC) && mkdir -p $(DIST_SRC) $(DIST_DIR)
	@tar --exclude=./.git --exclude=./.venv --exclude=./.cache --exclude=./build \
		--exclude=./sdk/build --exclude=./dist --exclude='*.egg-info' --exclude=__pycache__ \
		-cf - . | tar -C $(DIST_SRC) -xf -
	@rm -f $(DIST_DIR)/krmlib-*.whl $(DIST_DIR)/krmfn-*.whl
	@bash scripts/install-apt-tool.sh gcc gcc "make dist fails: krmlib's C check needs it"
	@bash scripts/install-apt-tool.sh python3-dev "$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("include"))')/Python.h" \
		"make dist fails: krmlib's C check needs it"
	@KRMLIB_BUILD_EXTENSION=0 $(PIP) wheel -q --disable-pip-version-check --no-deps -w $(DIST_DIR) \
		$(DIST_SRC)/sdk $(DIST_SRC)
	@rm -rf $(DIST_SRC)/sdk/build $(DIST_SRC)/sdk/*.egg-info
	@KRMLIB_BUILD_EXTENSION=1 $(PIP) wheel -q --disable-pip-version-check --no-deps -w $(DIST_DIR) \
		$(DIST_SRC)/sdk
	@$(PY) -c 'import glob, sys, zipfile; w = [p for p in glob.glob("$(DIST_DIR)/krmlib-*.whl") if not p.endswith("-py3-none-any.whl")]; \
		ok = len(w) == 1 and any(n.startswith("krmlib/_yaml/ccheck.") for n in zipfile.ZipFile(w[0]).namelist()); \
		sys.exit(0 if ok else "make dist: the C check of krmlib (krmlib._yaml.ccheck) did not build: gcc, python3-dev and libyaml-dev?")'
	@rm -rf $(DIST_SRC)
	@ls $(DIST_DIR)/*.whl

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
