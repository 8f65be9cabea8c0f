# The two set-up commands (see README.md):
#   make example   set up, check the environment, build examples/lennard_jones.py with kpc and
#                  run it beside Numba
#   make test      set up, run the test suite (pytest -n 2)
# Both start with scripts/bootstrap.sh, which is quick when nothing changed.

KPC_VENV ?= .venv
VENV_PYTHON := $(KPC_VENV)/bin/python
# .ci/run passes a file here to learn pytest's own exit status (make only reports 2).
PYTEST_STATUS_FILE ?= /dev/null

.PHONY: bootstrap doctor example test

bootstrap:
	KPC_VENV=$(abspath $(KPC_VENV)) scripts/bootstrap.sh

doctor: bootstrap
	$(KPC_VENV)/bin/kpc doctor

example: doctor
	$(KPC_VENV)/bin/kpc build examples/lennard_jones.py --target kokkos -o examples/out \
		--signature 'potential(float64[:, :])'
	$(VENV_PYTHON) examples/beside_numba.py examples/lennard_jones.py examples/out potential 3000

test: bootstrap
	@status=0; $(VENV_PYTHON) -m pytest -q -n 2 tests/ || status=$$?; \
	echo $$status > $(PYTEST_STATUS_FILE); \
	if [ $$status -eq 5 ]; then echo "make test: pytest collected no tests (exit status 5); an empty suite is a failure" >&2; fi; \
	exit $$status
