"""Frontend: a Python module's source -> untyped IR ``Module``, statically (the module is never run).

``parse_module(source, path, signatures=None, strict=False)`` finds the Numba
kernels (``decorators``), reads the module's imports and constants (``scope``), lowers
each kernel (``lower``), and records what it rejects with a diagnostic (``unsupported``).
"""

from .parse import parse_module

__all__ = ["parse_module"]
