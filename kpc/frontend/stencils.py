"""``@stencil`` kernels: the kernel's body at one point, and the kernels that run it over an array.

Numba's ``@stencil`` writes a kernel in relative indices (``a[-1, 0] + a[1, 0]``); calling it
on arrays computes every point whose neighbourhood lies inside the first array, as Numba's
generated code does. kpc writes, from the syntax tree:

- ``_kpc_stencil_at_k(_kpc_i0, _kpc_i1, a, ...)``: the body, each relative index of an array
  argument made absolute (``a[_kpc_i0 - 1, _kpc_i1 + 0]``; ``standard_indexing`` arguments
  untouched), a device function;
- ``_kpc_stencil_into_k(a, ..., out)``: ``out[:] = cval`` when the decorator gives ``cval``, then
  the loop nest over the interior (an MDRange once ``parallelize`` collapses it);
- ``_kpc_stencil_k(a, ...)``: a new array of the shape of ``a`` and the body's result type, its
  border set to ``cval`` (0 by default) with the slices Numba writes, the same loop nest.

They spell NumPy and ``prange`` as ``_kpc_np`` and ``_kpc_prange`` (``SCOPE_NAMES``), whatever the
module imports. The neighbourhood is the decorator's ``neighborhood`` or, without one, the extremes of the
constant relative indices (a non-constant one needs ``neighborhood``, as in Numba). Calls of the
stencil inside other kernels are renamed to these kernels (``rename_calls``).

>>> import ast
>>> fdef = ast.parse("@stencil\\ndef k(a):\\n    return a[-1, 0] + a[1, 1]").body[0]
>>> spec = StencilSpec.read(fdef, {})
>>> spec.ndim, spec.neighborhood
(2, ((-1, 1), (0, 1)))
>>> print(ast.unparse(spec.kernels()[1]))
def _kpc_stencil_into_k(a, out):
    for _kpc_i0 in _kpc_prange(1, a.shape[0] - 1):
        for _kpc_i1 in range(0, a.shape[1] - 1):
            out[_kpc_i0, _kpc_i1] = _kpc_stencil_at_k(_kpc_i0, _kpc_i1, a)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

AT, INTO, NEW = "_kpc_stencil_at_{}", "_kpc_stencil_into_{}", "_kpc_stencil_{}"
# The same three for a stencil called inside an ``@njit(parallel=True)`` kernel, where Numba makes the
# call a parfor, compiled with error_model='numpy' (a zero divisor gives inf, nan or 0; called from
# Python or from a kernel without parallel=True, it raises ZeroDivisionError)
PARFOR_AT, PARFOR_INTO, PARFOR_NEW = "_kpc_parfor_stencil_at_{}", "_kpc_parfor_stencil_into_{}", "_kpc_parfor_stencil_{}"
SCOPE_NAMES = {"_kpc_np": "numpy", "_kpc_prange": "numba.prange"}


class StencilError(Exception):
    """A ``@stencil`` kpc cannot write (``node``: where)."""

    def __init__(self, message: str, node):
        super().__init__(message)
        self.node = node


@dataclass
class StencilSpec:
    """One ``@stencil`` function: its ``def``, the relative-indexed parameters, rank, neighbourhood
    (per axis ``(lowest, highest)`` relative index) and ``cval`` (None: not given)."""

    fdef: ast.FunctionDef
    params: list
    relative: list
    ndim: int
    neighborhood: tuple
    cval: object = None
    options: dict = field(default_factory=dict)

    @classmethod
    def read(cls, fdef, options: dict) -> "StencilSpec":
        params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
        if not params:
            raise StencilError(f"stencil '{fdef.name}' takes no array", fdef)
        if "out" in params:
            raise StencilError("Numba reserves the name 'out' in stencil kernels", fdef)
        standard = set(options.get("standard_indexing") or ())
        relative = [p for p in params if p not in standard]
        if params[0] not in relative:
            raise StencilError(f"the first argument '{params[0]}' of stencil '{fdef.name}' is the input "
                               "array and is indexed relatively", fdef)
        offsets: list = []
        for node in ast.walk(fdef):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in relative:
                items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                offsets.append((node, [_constant_int(i) for i in items]))
        if not offsets:
            raise StencilError(f"stencil '{fdef.name}' indexes no array relatively", fdef)
        ranks = {len(o) for _, o in offsets}
        if len(ranks) != 1:
            raise StencilError(f"stencil '{fdef.name}' indexes its arrays with {sorted(ranks)} indices", fdef)
        ndim = ranks.pop()
        given = options.get("neighborhood")
        if given is not None:
            if len(given) != ndim or any(len(pair) != 2 for pair in given):
                raise StencilError(f"neighborhood of stencil '{fdef.name}' needs {ndim} (low, high) pairs", fdef)
            neighborhood = tuple((int(lo), int(hi)) for lo, hi in given)
        else:
            for node, values in offsets:
                if None in values:
                    raise StencilError(f"stencil '{fdef.name}' has a relative index that is not a constant "
                                       "(give neighborhood=, as Numba requires)", node)
            neighborhood = tuple((min(v[d] for _, v in offsets), max(v[d] for _, v in offsets))
                                 for d in range(ndim))
        return cls(fdef, params, relative, ndim, neighborhood, options.get("cval"), dict(options))

    @property
    def name(self) -> str:
        return self.fdef.name

    def kernels(self, parfor: bool = False) -> list:
        """The ``def``s of ``at``, ``into`` and ``new`` (see the module docstring), located at the
        decorator; ``parfor``: those named for calls inside ``parallel=True`` kernels (``PARFOR_AT``...)."""
        at_name, into_name, new_name = (PARFOR_AT, PARFOR_INTO, PARFOR_NEW) if parfor else (AT, INTO, NEW)
        index = [f"_kpc_i{d}" for d in range(self.ndim)]
        args = ", ".join(self.params)
        at = _RelativeToAbsolute(set(self.relative), index).visit(_copy(self.fdef))
        at.name, at.decorator_list = at_name.format(self.name), []
        at.args.args = [ast.copy_location(ast.arg(i), self.fdef) for i in index] + list(at.args.posonlyargs) \
            + list(at.args.args)
        at.args.posonlyargs = []
        first = self.params[0]
        loops = ""
        for d, (lo, hi) in enumerate(self.neighborhood):
            loop = "_kpc_prange" if d == 0 else "range"
            loops += "    " * (d + 1) + f"for {index[d]} in {loop}({-min(0, lo)}, {first}.shape[{d}] - {max(0, hi)}):\n"
        call = f"{at_name.format(self.name)}({', '.join(index)}, {args})"
        loops += "    " * (self.ndim + 1) + f"out[{', '.join(index)}] = {call}\n"
        into = f"def {into_name.format(self.name)}({args}, out):\n"
        if self.cval is not None:
            into += f"    out[:] = {self.cval!r}\n"
        into += loops
        origin = ", ".join("0" for _ in index)
        new = (f"def {new_name.format(self.name)}({args}):\n"
               f"    out = _kpc_np.empty({first}.shape, dtype={at_name.format(self.name)}({origin}, {args}).dtype)\n")
        cval = 0 if self.cval is None else self.cval
        every = [":"] * self.ndim
        for d, (lo, hi) in enumerate(self.neighborhood):
            start, end = list(every), list(every)
            start[d], end[d] = f":{-lo}", f"-{hi}:"
            new += f"    out[{', '.join(start)}] = {cval!r}\n    out[{', '.join(end)}] = {cval!r}\n"
        new += loops + "    return out\n"
        defs = [at] + ast.parse(into + new).body
        anchor = self.fdef.decorator_list[0] if self.fdef.decorator_list else self.fdef
        for d in defs[1:]:
            for node in ast.walk(d):
                if "lineno" in node._attributes:
                    node.lineno = node.end_lineno = anchor.lineno
                    node.col_offset, node.end_col_offset = anchor.col_offset, anchor.end_col_offset
        return defs


def rename_calls(fdef, stencils: set, parfor: bool = False) -> None:
    """Calls of ``@stencil`` functions in ``fdef`` call their kernels: ``k(a)`` -> ``_kpc_stencil_k(a)``,
    ``k(a, out=b)`` -> ``_kpc_stencil_into_k(a, b)``; ``parfor`` (``fdef`` is ``parallel=True``): the
    ``PARFOR_`` ones."""
    into_name, new_name = (PARFOR_INTO, PARFOR_NEW) if parfor else (INTO, NEW)
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in stencils:
            out = [k for k in node.keywords if k.arg == "out"]
            if out and len(node.keywords) == 1:
                node.func = ast.copy_location(ast.Name(into_name.format(node.func.id), ast.Load()), node.func)
                node.args = list(node.args) + [out[0].value]
                node.keywords = []
            elif not node.keywords:
                node.func = ast.copy_location(ast.Name(new_name.format(node.func.id), ast.Load()), node.func)


class _RelativeToAbsolute(ast.NodeTransformer):
    def __init__(self, relative: set, index: list):
        self.relative = relative
        self.index = index

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id in self.relative:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            absolute = [ast.BinOp(ast.Name(i, ast.Load()), ast.Add(), item) for i, item in zip(self.index, items)]
            node.slice = ast.Tuple(absolute, ast.Load()) if len(absolute) > 1 else absolute[0]
            ast.fix_missing_locations(ast.copy_location(node.slice, node))
            for sub in ast.walk(node.slice):
                if "lineno" in sub._attributes and not hasattr(sub, "lineno"):
                    ast.copy_location(sub, node)
                elif "lineno" in sub._attributes:
                    sub.lineno, sub.col_offset = node.lineno, node.col_offset
                    sub.end_lineno, sub.end_col_offset = node.end_lineno, node.end_col_offset
        return node


def _copy(fdef):
    import copy

    return copy.deepcopy(fdef)


def _constant_int(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant_int(node.operand)
        return None if inner is None else -inner
    return None
