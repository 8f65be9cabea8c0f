"""The argument type of a Python value as Numba's dispatcher types it, and Numba's spelling of it.

Argument types are plain tuples (``("array", "float64", 2, "C")``, ``("scalar", "int64")``):
the runtime does not depend on the compiler's IR.

>>> import numpy as np
>>> typeof(np.zeros((3, 4))), typeof(np.zeros((3, 4))[:, ::2]), typeof(np.zeros((3, 4), order="F"))
(('array', 'float64', 2, 'C'), ('array', 'float64', 2, 'A'), ('array', 'float64', 2, 'F'))
>>> typeof(3), typeof(2.5), typeof(True), typeof(np.float32(1))
(('scalar', 'int64'), ('scalar', 'float64'), ('scalar', 'bool'), ('scalar', 'float32'))
>>> format_type(("array", "float32", 2, "A")), format_type(("scalar", "int64"))
('float32[:, :]', 'int64')
>>> typeof(np.float32), format_type(typeof(np.dtype("int16")))
(('dtype', 'float32'), 'class(int16)')
"""

from __future__ import annotations

import numpy as np


_DTYPE_NAMES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
                "float64", "complex64", "complex128"}


def layout_of(array) -> str:
    flags = array.flags
    if flags.c_contiguous:
        return "C"
    if flags.f_contiguous:
        return "F"
    return "A"


def typeof(value):
    """The argument type of a value as Numba's dispatcher would type it, or None if unsupported."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.name, value.ndim, layout_of(value))
    if isinstance(value, bool):
        return ("scalar", "bool")
    if isinstance(value, int):
        return ("scalar", "int64") if -(2 ** 63) <= value < 2 ** 63 else ("scalar", "uint64")
    if isinstance(value, float):
        return ("scalar", "float64")
    if isinstance(value, complex):
        return ("scalar", "complex128")
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.name)
    if isinstance(value, type) and issubclass(value, np.number | np.bool_) or isinstance(value, np.dtype):
        name = np.dtype(value).name  # np.float32 (Numba: class(float32)) or np.dtype("float32")
        return ("dtype", name) if name in _DTYPE_NAMES else None
    if hasattr(value, "__cuda_array_interface__"):
        from . import device_arrays  # CUDA arrays (CuPy): imported only when one shows up

        if device_arrays.is_cuda_array(value):
            return device_arrays.cuda_array_type(value)
    return None


def format_type(t) -> str:
    """Numba's spelling of an argument type (``float64[:, ::1]`` for a C-contiguous 2-D array)."""
    if t[0] in ("scalar", "python"):  # "python": a value kpc does not type (a list): its class
        return t[1]
    if t[0] == "dtype":
        return f"class({t[1]})"
    _, dtype, ndim, layout = t
    dims = [":"] * ndim
    if ndim and layout == "C":
        dims[-1] = "::1"
    elif ndim and layout == "F":
        dims[0] = "::1"
    return f"{dtype}[{', '.join(dims)}]"
