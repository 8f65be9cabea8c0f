"""kpc: compile Numba kernels to Kokkos (C++ or PyKokkos).

``kpc.build(path, target=..., out=...)`` builds a file as ``kpc build`` does;
``@kpc.jit`` replaces ``@numba.njit`` on a function of a normal module. Both are
imported on first use, so ``import kpc`` stays cheap.
"""

__version__ = "0.1.0"


def __getattr__(name):
    if name == "build":
        from kpc.driver import build

        return build
    if name == "jit":
        import importlib

        return importlib.import_module("kpc.jit")
    raise AttributeError(f"module 'kpc' has no attribute {name!r}")
