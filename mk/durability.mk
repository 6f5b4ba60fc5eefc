# Durability (included by the main Makefile; docs/durability.md).
#
#   make strace       strace for the fault-injection tests (apt-get, idempotent); make test runs it
#   make test-faults  the full fault sweep (KRMFN_FAULTS=full): every rename and fsync kill point,
#                     every signal case, every provisioning and create rename (test_durability*.py);
#                     41 min in one process on 2 shared cores: FAULTS_JOBS=0 for one process

.PHONY: strace test-faults

FAULTS_JOBS ?= 2

strace:
	@bash scripts/install-apt-tool.sh strace strace "the fault-injection tests skip"

test: strace

test-faults: install strace
	KRMFN_FAULTS=full $(VENV)/bin/pytest -n $(FAULTS_JOBS) -p no:randomly $(wildcard tests/test_durability*.py)
