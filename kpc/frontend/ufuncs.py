"""``@vectorize`` functions: the scalar kernel of a ufunc and the array kernels written around it.

Numba's ``@vectorize`` makes a NumPy ufunc of a scalar function. kpc keeps the function as
a kernel of its own (``f``, flagged ``options["vectorize"]``: called with arrays it works
element by element over the broadcast operands, as a ufunc called inside a kernel does) and
writes two kernels that call it over whole arrays: ``_kpc_ufunc_into_f(x, y, out)``
(``out[:] = f(x, y)``, the ufunc with ``out=`` or with the result allocated by the caller
in the loop's dtype) and ``_kpc_ufunc_f(x, y)`` (``return f(x, y)``, a new loop typed at the
call, Numba's ``DUFunc``). ``parallel=True`` for ``target='parallel'``; ``target='cpu'``
runs serially (``options["serial"]``). The runtime's ``kpc.runtime.ufunc.UFunc`` picks the
loop and calls them.

>>> import ast
>>> fdef = ast.parse("@vectorize(['f8(f8, f8)'], target='parallel')\\ndef f(x, y):\\n    return x + y").body[0]
>>> [ast.unparse(d) for d in array_kernels(fdef)]
['def _kpc_ufunc_into_f(x, y, out):\\n    out[:] = f(x, y)', 'def _kpc_ufunc_f(x, y):\\n    return f(x, y)']
"""

from __future__ import annotations

import ast

INTO = "_kpc_ufunc_into_{}"
NEW = "_kpc_ufunc_{}"


def into_name(name: str) -> str:
    """The kernel that writes ``name``'s ufunc into a given output array."""
    return INTO.format(name)


def new_name(name: str) -> str:
    """The kernel that returns ``name``'s ufunc of arrays as a new array (dtype typed at the call)."""
    return NEW.format(name)


def array_kernels(fdef) -> list:
    """The ``def``s of the two array kernels of the ``@vectorize`` function ``fdef``, located at
    its decorator (so that a diagnostic about them points at the ``@vectorize`` line)."""
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    out = "out"
    while out in params:
        out = "_" + out
    args = ", ".join(params)
    text = (f"def {into_name(fdef.name)}({args}, {out}):\n    {out}[:] = {fdef.name}({args})\n"
            f"def {new_name(fdef.name)}({args}):\n    return {fdef.name}({args})\n")
    anchor = fdef.decorator_list[0] if fdef.decorator_list else fdef
    defs = ast.parse(text).body
    for d in defs:
        for node in ast.walk(d):
            if "lineno" in node._attributes:
                node.lineno = node.end_lineno = anchor.lineno
                node.col_offset, node.end_col_offset = anchor.col_offset, anchor.end_col_offset
    return defs


def kernel_options(options: dict) -> dict:
    """The decorator options of the array kernels of a ufunc with ``options``."""
    parallel = options.get("target", "cpu") == "parallel"
    result = {"parallel": parallel}
    if not parallel:
        result["serial"] = True
    for key in ("fastmath", "error_model", "boundscheck"):
        if key in options:
            result[key] = options[key]
    return result
