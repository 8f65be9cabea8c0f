"""Import compiled kpc modules from the build cache.

A cache entry's extension is imported under its own unique name (``kpc_<key>``),
outside ``sys.modules``' package tree, once per process (a lock makes that hold when
several threads make their first calls at once), and joins the process's Kokkos
session (``kokkos_session``), starting it on first use.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading

from . import kokkos_session

_loaded: dict = {}
_lock = threading.Lock()


def load_library(name: str, path) -> object:
    """Import the extension module ``name`` from the file ``path`` (once per process)."""
    key = (name, str(path))
    with _lock:
        module = _loaded.get(key)
        if module is None:
            module = _import(name, path)
            _loaded[key] = module
    return module


def _import(name: str, path):
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules.setdefault(name, module)
    kokkos_session.ensure_initialized(module)
    return module


def loaded_modules() -> list:
    """The compiled modules this process imported, in order."""
    with _lock:
        return list(_loaded.values())


def load_entry(entry) -> object:
    """Import the extension of a verified cache entry (``kpc.runtime.cache.Entry``)."""
    return load_library(entry.module_name, entry.library)
