"""``@guvectorize`` functions: the layout string, and the kernel that runs the function over a loop axis.

Numba's ``@guvectorize(signatures, "(n),()->(n)")`` makes a generalized ufunc: the function
works on the core dimensions of each argument (``(n)``: a vector, ``()``: a scalar; an output
``()`` is a 1-element array the function writes ``res[0]`` of) and NumPy loops it over the
broadcast of the other, leading, dimensions. kpc keeps the function as a device kernel and
writes ``_kpc_gufunc_g(x, a, out)``: the arguments with their loop dimensions flattened into one
leading axis (``kpc.runtime.gufunc.GUFunc`` broadcasts and reshapes them), a ``prange`` over it
calling ``g(x[l], a[l], out[l])`` (``out[l:l + 1]`` for a scalar output). ``target='cpu'`` runs
it serially.

>>> layout = parse_layout("(m,n),(n)->(m)")
>>> layout.inputs, layout.outputs
([['m', 'n'], ['n']], [['m']])
>>> import ast
>>> fdef = ast.parse("def g(x, a, out):\\n    pass").body[0]
>>> print(ast.unparse(loop_kernel(fdef, parse_layout("(n),()->(n)"))))
def _kpc_gufunc_g(x, a, out):
    for _kpc_l in _kpc_prange(x.shape[0]):
        g(x[_kpc_l], a[_kpc_l], out[_kpc_l])
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

LOOP = "_kpc_gufunc_{}"
_DIMS = re.compile(r"\(\s*(?:\w+\s*(?:,\s*\w+\s*)*)?\)")


class LayoutError(ValueError):
    """A layout string Numba rejects (its message says why)."""


@dataclass
class Layout:
    """The core dimensions of each input and output (lists of names; ``[]`` for a scalar)."""

    inputs: list
    outputs: list

    @property
    def nin(self) -> int:
        return len(self.inputs)

    def as_dict(self) -> dict:
        return {"inputs": self.inputs, "outputs": self.outputs}


def parse_layout(text: str) -> Layout:
    """``"(m,n),(n)->(m)"`` as Numba reads it: comma-separated groups of dimension names on both
    sides of ``->``; every output dimension must be an input dimension (kpc has no way to size it)."""
    if not isinstance(text, str) or text.count("->") != 1:
        raise LayoutError(f"not a gufunc layout: {text!r} (expected '(n),()->(n)')")
    sides = [side.strip() for side in text.split("->")]
    groups = []
    for side in sides:
        found = _DIMS.findall(side)
        if not found or _DIMS.sub("", side).replace(",", "").strip():
            raise LayoutError(f"not a gufunc layout: {text!r}")
        groups.append([[d.strip() for d in g.strip("() ").split(",") if d.strip()] for g in found])
    inputs, outputs = groups
    known = {d for group in inputs for d in group}
    for group in outputs:
        for d in group:
            if d not in known:
                raise LayoutError(f"output dimension {d!r} of layout {text!r} is not an input dimension")
    return Layout(inputs, outputs)


def loop_kernel(fdef, layout: Layout):
    """The ``def`` of the kernel that calls ``fdef`` for each index of the flattened loop axis."""
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    groups = layout.inputs + layout.outputs
    if len(params) != len(groups):
        raise LayoutError(f"'{fdef.name}' takes {len(params)} arguments but its layout has {len(groups)}")
    args = []
    for k, (param, group) in enumerate(zip(params, groups)):
        scalar_output = k >= layout.nin and not group
        args.append(f"{param}[_kpc_l:_kpc_l + 1]" if scalar_output else f"{param}[_kpc_l]")
    text = (f"def {LOOP.format(fdef.name)}({', '.join(params)}):\n"
            f"    for _kpc_l in _kpc_prange({params[0]}.shape[0]):\n"
            f"        {fdef.name}({', '.join(args)})\n")
    kernel = ast.parse(text).body[0]
    anchor = fdef.decorator_list[0] if fdef.decorator_list else fdef
    for node in ast.walk(kernel):
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = anchor.lineno
            node.col_offset, node.end_col_offset = anchor.col_offset, anchor.end_col_offset
    return kernel
