"""``@vectorize`` functions: the scalar kernel of a ufunc and the array kernels written around it.

Numba's ``@vectorize`` makes a NumPy ufunc of a scalar function. kpc keeps the function as
a kernel of its own (``f``, flagged ``options["vectorize"]``: called with arrays it works
element by element over the broadcast operands, as a ufunc called inside a kernel does) and
writes two kernels that call it over whole arrays: ``_kpc_ufunc_into_f(x, y, out)``
(``out[:] = f(x, y)``, the ufunc with ``out=`` or with the result allocated by the caller
in the loop's dtype) and ``_kpc_ufunc_f(x, y)`` (``return f(x, y)``, a new loop typed at the
call, Numba's ``DUFunc``); a ufunc of two inputs also gets ``_kpc_ufunc_reduce_f(x, out, n, inner)``
(``ufunc.reduce``: the flat C-contiguous ``x`` seen as ``(outer, n, inner)``, each ``out[i * inner + k]``
folded from ``x[i, 0, k]`` in order along ``n``, in ``out``'s dtype at each step, the ``(i, k)`` in
parallel by blocks of consecutive ``k``) and ``_kpc_ufunc_accumulate_f(x, out, n, inner)``
(``ufunc.accumulate``: the same fold, each partial result kept, ``out`` flat as ``x``).
``parallel=True`` for ``target='parallel'``; ``target='cpu'`` runs serially
(``options["serial"]``). The runtime's ``kpc.runtime.ufunc.UFunc`` picks the loop and calls them.

>>> import ast
>>> fdef = ast.parse("@vectorize(['f8(f8, f8)'], target='parallel')\\ndef f(x, y):\\n    return x + y").body[0]
>>> [ast.unparse(d) for d in array_kernels(fdef)][:2]
['def _kpc_ufunc_into_f(x, y, out):\\n    out[:] = f(x, y)', 'def _kpc_ufunc_f(x, y):\\n    return f(x, y)']
>>> print(ast.unparse(array_kernels(fdef)[2]))
def _kpc_ufunc_reduce_f(x, out, n, inner):
    _kpc_n = max(n, 1)
    _kpc_w = max(inner, 1)
    if _kpc_w == 1:
        for _kpc_r in _kpc_prange(x.shape[0] // _kpc_n):
            _kpc_row = _kpc_r * _kpc_n
            out[_kpc_r] = x[_kpc_row]
            _kpc_acc = out[_kpc_r]
            for _kpc_s in range(1, _kpc_n):
                out[_kpc_r] = f(_kpc_acc, x[_kpc_row + _kpc_s])
                _kpc_acc = out[_kpc_r]
        return
    _kpc_b = (_kpc_w + 63) // 64
    for _kpc_t in _kpc_prange(x.shape[0] // (_kpc_n * _kpc_w) * _kpc_b):
        _kpc_i = _kpc_t // _kpc_b
        _kpc_lo = _kpc_t % _kpc_b * 64
        _kpc_hi = min(_kpc_lo + 64, _kpc_w)
        _kpc_base = _kpc_i * _kpc_n * _kpc_w
        for _kpc_k in range(_kpc_lo, _kpc_hi):
            out[_kpc_i * _kpc_w + _kpc_k] = x[_kpc_base + _kpc_k]
        for _kpc_j in range(1, _kpc_n):
            for _kpc_q in range(_kpc_lo, _kpc_hi):
                out[_kpc_i * _kpc_w + _kpc_q] = f(out[_kpc_i * _kpc_w + _kpc_q], x[_kpc_base + _kpc_j * _kpc_w + _kpc_q])
>>> print(ast.unparse(array_kernels(fdef)[3]).splitlines()[-1].strip())  # the same fold, each result kept
out[_kpc_base + _kpc_j * _kpc_w + _kpc_q] = f(out[_kpc_base + (_kpc_j - 1) * _kpc_w + _kpc_q], x[_kpc_base + _kpc_j * _kpc_w + _kpc_q])
"""

from __future__ import annotations

import ast

INTO = "_kpc_ufunc_into_{}"
NEW = "_kpc_ufunc_{}"
REDUCE = "_kpc_ufunc_reduce_{}"
ACCUMULATE = "_kpc_ufunc_accumulate_{}"
# reduce and accumulate: x a C-contiguous array seen flat as (outer, n, inner), each (i, k) folded
# along n in order; the (i, k) in parallel by blocks of FOLD_BLOCK consecutive k, a block folded row
# by row (contiguous reads of x, a loop over k that vectorizes, as NumPy's loop runs along a row);
# every partial result goes through ``out`` (of the loop's dtype), rounded there as NumPy's loop
# rounds it (a float32 loop whose function computes in float64 keeps no float64 accumulator). One
# position per row (inner == 1, a 1-D fold): each partial result is read back from ``out`` right
# after it is stored, a load the C++ compiler replaces by the stored value, so the fold's chain stays
# in a register (read from ``out`` at the next step, it would wait on the store: ``x`` may alias
# ``out``). Flat arrays: a 1-D array is passed as it is, a C-contiguous one as a view. Each local is
# assigned once and ``n``, ``inner`` are taken as at least 1 (they are), so that kpc proves every
# index non-negative and emits no negative-index wrap (which keeps GCC from vectorizing a block).
FOLD_BLOCK = 64
FOLD = ("def {name}(x, out, n, inner):\n"
        "    _kpc_n = max(n, 1)\n"
        "    _kpc_w = max(inner, 1)\n"
        "    if _kpc_w == 1:\n"
        "        for _kpc_r in _kpc_prange(x.shape[0] // _kpc_n):\n"
        "            _kpc_row = _kpc_r * _kpc_n\n"
        "            {first_one} = x[_kpc_row]\n"
        "            _kpc_acc = {first_one}\n"
        "            for _kpc_s in range(1, _kpc_n):\n"
        "                {each_one} = {f}(_kpc_acc, x[_kpc_row + _kpc_s])\n"
        "                _kpc_acc = {each_one}\n"
        "        return\n"
        f"    _kpc_b = (_kpc_w + {FOLD_BLOCK - 1}) // {FOLD_BLOCK}\n"
        "    for _kpc_t in _kpc_prange(x.shape[0] // (_kpc_n * _kpc_w) * _kpc_b):\n"
        "        _kpc_i = _kpc_t // _kpc_b\n"
        f"        _kpc_lo = _kpc_t % _kpc_b * {FOLD_BLOCK}\n"
        f"        _kpc_hi = min(_kpc_lo + {FOLD_BLOCK}, _kpc_w)\n"
        "        _kpc_base = _kpc_i * _kpc_n * _kpc_w\n"
        "        for _kpc_k in range(_kpc_lo, _kpc_hi):\n"
        "            {first} = x[_kpc_base + _kpc_k]\n"
        "        for _kpc_j in range(1, _kpc_n):\n"
        "            for _kpc_q in range(_kpc_lo, _kpc_hi):\n"
        "                {each} = {f}({previous}, x[_kpc_base + _kpc_j * _kpc_w + _kpc_q])\n")


def into_name(name: str) -> str:
    """The kernel that writes ``name``'s ufunc into a given output array."""
    return INTO.format(name)


def new_name(name: str) -> str:
    """The kernel that returns ``name``'s ufunc of arrays as a new array (dtype typed at the call)."""
    return NEW.format(name)


def reduce_name(name: str) -> str:
    """The kernel of ``name``'s ``ufunc.reduce`` over a ``(outer, n, inner)`` array."""
    return REDUCE.format(name)


def accumulate_name(name: str) -> str:
    """The kernel of ``name``'s ``ufunc.accumulate`` over a ``(outer, n, inner)`` array."""
    return ACCUMULATE.format(name)


def array_kernels(fdef) -> list:
    """The ``def``s of the array kernels of the ``@vectorize`` function ``fdef``, located at
    its decorator (so that a diagnostic about them points at the ``@vectorize`` line)."""
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    out = "out"
    while out in params:
        out = "_" + out
    args = ", ".join(params)
    text = (f"def {into_name(fdef.name)}({args}, {out}):\n    {out}[:] = {fdef.name}({args})\n"
            f"def {new_name(fdef.name)}({args}):\n    return {fdef.name}({args})\n")
    if len(params) == 2:
        at = "out[_kpc_i * _kpc_w + _kpc_q]"
        text += FOLD.format(name=reduce_name(fdef.name), f=fdef.name, first_one="out[_kpc_r]",
                            each_one="out[_kpc_r]", first="out[_kpc_i * _kpc_w + _kpc_k]", each=at, previous=at)
        text += FOLD.format(name=accumulate_name(fdef.name), f=fdef.name, first_one="out[_kpc_row]",
                            each_one="out[_kpc_row + _kpc_s]", first="out[_kpc_base + _kpc_k]",
                            each="out[_kpc_base + _kpc_j * _kpc_w + _kpc_q]",
                            previous="out[_kpc_base + (_kpc_j - 1) * _kpc_w + _kpc_q]")
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
