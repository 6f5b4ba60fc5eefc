# Benchmark checks (included by the main Makefile; bench/README.md).
#
#   make valgrind            valgrind for the instruction-count check (apt-get, idempotent)
#   make bench-instructions  instruction counts at 1 and 1,000 items against bench/instructions.json,
#                            (exit 1 on a count more than 5% above it); make test runs a small size

.PHONY: valgrind bench-instructions

valgrind:
	@bash scripts/install-apt-tool.sh valgrind valgrind "the instruction-count check skips"

test: valgrind

bench-instructions: install valgrind
	@$(PY) bench/instructions.py --sizes 1,1000 --check --results
