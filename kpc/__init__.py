"""kpc: compile Numba kernels to Kokkos (C++ or PyKokkos)."""

__version__ = "0.1.0"
