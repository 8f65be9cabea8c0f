"""kpc: compile Numba kernels to Kokkos (C++ or PyKokkos).

``kpc.build(path, target=..., out=...)`` builds a file as ``kpc build`` does (``kpc.build_file``);
``@kpc.jit`` replaces ``@numba.njit`` on a function of a normal module (``kpc.jit``). Both are
imported on first use, so ``import kpc`` stays cheap. ``kpc.api`` is the rest of the Python API,
a façade over ``kpc.pipeline``, the compiler pipeline. ``kpc.KpcFallbackWarning``: the
warning of a call that runs the Numba function because kpc cannot type or compile it.
"""

__version__ = "0.1.0"


def compiler():
    """The compiler a drop-in module uses for new specializations (``kpc.api``, over
    ``kpc.pipeline``), imported on first need: the generated module asks the package, so no
    layer imports the compiler."""
    import kpc.api

    return kpc.api


def __getattr__(name):
    if name == "build":
        from kpc.build_file import build

        return build
    if name == "jit":
        import importlib

        return importlib.import_module("kpc.jit")
    if name == "KpcFallbackWarning":  # a call that runs the Numba function (kpc.runtime.fallback)
        from kpc.runtime.fallback import KpcFallbackWarning

        return KpcFallbackWarning
    raise AttributeError(f"module 'kpc' has no attribute {name!r}")
