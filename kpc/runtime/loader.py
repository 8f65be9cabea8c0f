"""Import compiled kpc modules from the build cache.

A cache entry's extension is imported under its own unique name (``kpc_<key>``),
outside ``sys.modules``' package tree, once per process, and initializes Kokkos
on first use through ``kokkos_session``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys

from . import kokkos_session

_loaded: dict = {}


def load_library(name: str, path) -> object:
    """Import the extension module ``name`` from the file ``path`` (once per process)."""
    key = (name, str(path))
    module = _loaded.get(key)
    if module is not None:
        return module
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules.setdefault(name, module)
    kokkos_session.ensure_initialized(module)
    _loaded[key] = module
    return module


def load_entry(entry) -> object:
    """Import the extension of a verified cache entry (``kpc.runtime.cache.Entry``)."""
    return load_library(entry.module_name, entry.library)
