# The layout oracle (included by the main Makefile; tests/test_layout_oracle.py).
#
#   make test          a fixed sample: every function and every layout at least once per route
#   make test-layouts  every golden case in every layout, on every route (KRMFN_LAYOUTS=full)

.PHONY: test-layouts

test-layouts: install
	KRMFN_LAYOUTS=full $(VENV)/bin/pytest -n 2 -p no:randomly tests/test_layout_oracle.py
	KRMLIB_LAYOUT_EXAMPLES=10000 $(VENV)/bin/pytest -p no:randomly -q tests/test_layout_properties.py
