"""Test-suite-wide setup. Fixtures for one layer belong in tests/<layer>/conftest.py."""

from kpc import __version__
from kpc.runtime.kokkos import KokkosNotFound, find_kokkos


def pytest_report_header(config):
    """Name the kpc and the Kokkos under test at the top of verbose runs."""
    try:
        install = find_kokkos()
    except KokkosNotFound:
        return f"kpc {__version__}; Kokkos: none found (run scripts/bootstrap.sh)"
    backends = ", ".join(install.backends)
    return f"kpc {__version__}; Kokkos {install.version} ({backends}) at {install.root}"
