# The two set-up commands (see README.md):
#   make example   set up, check the environment, build examples/lennard_jones.py with kpc and
#                  run it beside Numba
#   make test      set up, run the test suite (pytest -n 2)
# And, once upstream PyKokkos is built (scripts/pykokkos/build_upstream.sh, see README.md):
#   make test-pykokkos   the tests that run kpc's PyKokkos output on upstream PyKokkos, in
#                        that environment; a skip there is a failure
#   make test-pykokkos-quick   the same on the seed kernels (float64), per-call types and a forked
#                        child: run it before every change to the PyKokkos target
# Both start with scripts/bootstrap.sh, which is quick when nothing changed.

KPC_VENV ?= .venv
PYKOKKOS_VENV ?= .venv-pykokkos
VENV_PYTHON := $(KPC_VENV)/bin/python
# .ci/run passes a file here to learn pytest's own exit status (make only reports 2).
PYTEST_STATUS_FILE ?= /dev/null

# What make test-pykokkos runs (pytest -k), and the quick subset: the goldens' seed kernels.
PYKOKKOS_SELECT ?= upstream
PYKOKKOS_QUICK_SELECT := upstream and (sum2d-float64 or sum3d-float64 or lennard_jones-float64 or star-float64 \
	or star2-float64 or np_logreg-float64 or takes_other_types or forked_child)

.PHONY: bootstrap doctor example test test-pykokkos test-pykokkos-quick

bootstrap:
	KPC_VENV=$(abspath $(KPC_VENV)) scripts/bootstrap.sh

doctor: bootstrap
	$(KPC_VENV)/bin/kpc doctor

example: doctor
	$(KPC_VENV)/bin/kpc cache prepare
	$(KPC_VENV)/bin/kpc build examples/lennard_jones.py --target kokkos -o examples/out \
		--signature 'potential(float64[:, :])'
	$(VENV_PYTHON) examples/beside_numba.py examples/lennard_jones.py examples/out potential 3000

test: bootstrap
	@status=0; $(VENV_PYTHON) -m pytest -q -n 2 tests/ || status=$$?; \
	echo $$status > $(PYTEST_STATUS_FILE); \
	if [ $$status -eq 5 ]; then echo "make test: pytest collected no tests (exit status 5); an empty suite is a failure" >&2; fi; \
	exit $$status

# Upstream PyKokkos compiles workunits into pk_cpp/ under the working directory: the tests
# run from $(PYKOKKOS_VENV)/work, so the checkout stays clean and compiled workunits are reused.
test-pykokkos:
	@if [ ! -f $(PYKOKKOS_VENV)/env.sh ]; then \
		echo "make test-pykokkos: no upstream PyKokkos in $(PYKOKKOS_VENV); build it with" >&2; \
		echo "  scripts/pykokkos/build_upstream.sh KOKKOS_SRC PYKOKKOS_BASE_SRC PYKOKKOS_SRC" >&2; \
		echo "(README.md, 'Running the PyKokkos output on upstream PyKokkos')" >&2; exit 2; fi
	mkdir -p $(PYKOKKOS_VENV)/work
	. $(abspath $(PYKOKKOS_VENV))/env.sh && cd $(PYKOKKOS_VENV)/work && KPC_REQUIRE_UPSTREAM=1 \
		python -m pytest -q -n $${JOBS:-2} --dist loadgroup -p no:cacheprovider --rootdir $(CURDIR) -c $(CURDIR)/pyproject.toml \
		$(CURDIR)/tests/corpus/test_corpus_pykokkos.py $(CURDIR)/tests/backend/pykokkos/test_per_call_types.py \
		$(CURDIR)/tests/backend/pykokkos/test_pykokkos_fork.py \
		-k "$(PYKOKKOS_SELECT)" $(PYTEST_ARGS)

test-pykokkos-quick:
	$(MAKE) test-pykokkos PYKOKKOS_SELECT='$(PYKOKKOS_QUICK_SELECT)'
