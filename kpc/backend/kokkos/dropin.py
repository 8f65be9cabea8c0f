"""The drop-in Python module of a Kokkos build: same function names, signatures and docstrings.

``sys.path.insert(0, out); import <stem>`` replaces the user's Numba module: every
translated function dispatches to compiled Kokkos specializations
(``kpc.runtime.dispatch``); every other top-level name of the user's file (functions kpc
could not translate, plain Python functions, constants, classes, imports, ``__all__``)
resolves, through the module's ``__getattr__``, to the user's module's own object. That
module is imported on first use only, so a warm import of the drop-in module loads neither
Numba nor the compiler, and does not compile the source's eager Numba signatures.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass

from kpc import __version__
from kpc.backend.source_names import source_dunders
from kpc.ir import python_source
from kpc.ir.intrinsics import NUMPY_DTYPES

from .emitter import _ENV


@dataclass
class DropinFunction:
    """One translated function as the drop-in module defines it."""

    name: str
    params: tuple
    signature: str
    call_args: str
    docstring: str | None
    eager: bool
    # @vectorize: {"nin", "target", "loops", "into", "new", "reduce", "accumulate"} (kpc.runtime.ufunc.UFunc;
    # "reduce", "accumulate" None where the ufunc has no such kernel); None otherwise
    ufunc: dict | None = None
    # an array kernel of a ufunc or a stencil: a dispatcher only, no function of its own
    hidden: bool = False
    # @stencil: {"name", "into", "new"} (kpc.runtime.stencil.Stencil, no dispatcher of its own)
    stencil: dict | None = None
    # @guvectorize: {"layout", "loops", "target", "loop"} (kpc.runtime.gufunc.GUFunc)
    gufunc: dict | None = None


def python_signature(source: str, name: str, params: list) -> tuple:
    """``(parameter list text, call arguments)`` of the top-level function ``name`` as written.

    Defaults are kept when they are literals or NumPy scalar types (``dtype=np.float64``, written
    ``_kpc_numpy.float64``: the drop-in module imports NumPy under that name when one is used);
    otherwise every parameter is required.

    >>> python_signature("def f(a, k=2):\\n    pass\\n", "f", ["a", "k"])
    ('a, k=2', 'a, k')
    >>> python_signature("def f(n, dtype=np.float32):\\n    pass\\n", "f", ["n", "dtype"])
    ('n, dtype=_kpc_numpy.float32', 'n, dtype')
    """
    call_args = ", ".join(params)
    try:
        tree = python_source.parse(source)
    except SyntaxError:
        return call_args, call_args
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            args = node.args
            plain = not (args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs)
            literal = True
            for k, default in enumerate(args.defaults):
                if isinstance(default, ast.Attribute) and isinstance(default.value, ast.Name) \
                        and default.attr in NUMPY_DTYPES:
                    args.defaults[k] = ast.Attribute(ast.Name("_kpc_numpy", ast.Load()), default.attr, ast.Load())
                    continue
                try:
                    ast.literal_eval(default)
                except ValueError:
                    literal = False
            if plain and literal and [a.arg for a in args.args] == list(params):
                return ast.unparse(args), call_args
    return call_args, call_args


def emit_dropin(*, source_path: str, source_text: str, name: str, docstring: str | None, space: str,
                options: dict, cache_root: str, functions: list, prebuilt: list, rejected: dict) -> str:
    """The text of the drop-in module.

    ``source_text``: the source module's text; ``functions``: ``DropinFunction``s; ``prebuilt``:
    ``(function, argument types, cache key, symbol)`` of the ahead-of-time specializations (for
    ``--space cuda``: the host build's key and symbol, then the device build's; None for a
    build that does not exist);
    ``rejected``: name -> reason.
    """
    header = f"kpc drop-in for {source_path} (Kokkos C++, execution space {space})."
    if docstring:
        header = docstring.rstrip() + "\n\n" + header
    text = _ENV.get_template("dropin.py.j2").render(
        docstring=_docstring_literal(header),
        version=__version__,
        source_name=source_path.rsplit("/", 1)[-1],
        source=source_path,
        name=name,
        space=space,
        options=repr(dict(sorted(options.items()))),
        cache_root=cache_root,
        prebuilt=[{"function": f, "types": repr(tuple(tuple(t) for t in types)),
                   "builds": ", ".join(_literal(value) for value in builds)}
                  for f, types, *builds in prebuilt],
        rejected={name: reason.splitlines()[0] if reason else "" for name, reason in rejected.items()},
        functions=[_template_function(f) for f in functions],
        any_lazy=any(not f.eager for f in functions),
        any_ufunc=any(f.ufunc for f in functions),
        any_stencil=any(f.stencil for f in functions),
        any_gufunc=any(f.gufunc for f in functions),
        any_dtype_default=any("_kpc_numpy." in f.signature for f in functions),
        source_dunders=source_dunders(source_text),
    )
    return text


def _template_function(f: DropinFunction) -> dict:
    return {
        "name": f.name,
        "params": repr(tuple(f.params)),
        "signature": f.signature,
        "call_args": f.call_args,
        "docstring": _docstring_literal(f.docstring) if f.docstring else None,
        "eager": f.eager,
        "hidden": f.hidden,
        "stencil": f.stencil,
        "gufunc": None if f.gufunc is None else {
            "loop": f.gufunc["loop"], "target": f.gufunc["target"], "layout": repr(f.gufunc["layout"]),
            "loops": repr(f.gufunc["loops"])},
        "ufunc": None if f.ufunc is None else {
            "into": f.ufunc["into"], "new": f.ufunc["new"], "reduce": f.ufunc.get("reduce"),
            "accumulate": f.ufunc.get("accumulate"), "nin": f.ufunc["nin"],
            "target": f.ufunc["target"],
            "loops": repr([(tuple(ins), out) for ins, out in f.ufunc["loops"]]) if f.ufunc["loops"] else "None"},
    }


def _docstring_literal(text: str) -> str:
    """A triple-quoted literal of ``text`` that Python reads back unchanged."""
    if '"""' in text or text.endswith("\\") or "\\" in text:
        return json.dumps(text)
    return f'"""{text}"""'


def _literal(value) -> str:
    """A cache key or symbol (or None) as Python source."""
    return "None" if value is None else json.dumps(value)
