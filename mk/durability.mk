# Durability (included by the main Makefile; docs/durability.md).
#
#   make strace       strace for the fault-injection tests (apt-get, idempotent); make test runs it
#   make test-faults  the full fault sweep (KRMFN_FAULTS=full): every rename and fsync kill point,
#                     every signal case, every provisioning and create rename (test_durability*.py)

.PHONY: strace test-faults

strace:
	@bash scripts/durability/install-strace.sh

test: strace

test-faults: install strace
	KRMFN_FAULTS=full $(VENV)/bin/pytest -n 2 -p no:randomly $(wildcard tests/test_durability*.py)
