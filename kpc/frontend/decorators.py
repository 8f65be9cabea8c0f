"""Which top-level functions are Numba kernels, and what their decorators say.

Recognized spellings (with ``import numba``, ``import numba as nb`` or
``from numba import njit, jit``): ``@njit``, ``@njit(...)``, ``@numba.njit``,
``@nb.njit(...)``, ``@jit``, ``@jit(nopython=True)``, ``@numba.jit(...)``; and kpc's own
``@kpc.jit`` / ``from kpc import jit`` (its options ``strict``, ``space`` are kept as written). ``@jit``
without ``nopython`` is nopython too (the default since Numba 0.59, and what a
0.57/0.58 ``@jit`` that compiles without fallback does); ``forceobj=True`` is object
mode and is rejected. ``@vectorize`` (``numba.vectorize``, with or without a list of signatures,
``target='cpu'|'parallel'``) makes the function the scalar kernel of a ufunc
(``kpc.frontend.ufuncs``). Options read: ``parallel``, ``fastmath``, ``cache``, ``nogil``,
``boundscheck``, ``error_model`` (``python`` or ``numpy``: whether a zero divisor raises)
(and the rest Numba accepts, kept as written); ``locals={...}``
becomes declared local types; eager signatures (a string, a type object such as
``float64(float64[:])``, or a list of those) are parsed with ``kpc.ir.signature``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from kpc.ir.diagnostics import KpcError
from kpc.ir.nodes import Loc
from kpc.ir.signature import SignatureError, parse_signature, parse_type
from kpc.ir.types import ScalarType

from .scope import ModuleScope, NotConstant
from .unsupported import hint

JIT_DECORATORS = {"numba.njit": "njit", "numba.jit": "jit",
                  "numba.core.decorators.njit": "njit", "numba.core.decorators.jit": "jit",
                  "kpc.jit": "njit", "kpc.jit.jit": "njit"}
# Numba's ufunc decorator: the function is the scalar kernel of a NumPy ufunc (``kpc.frontend.ufuncs``).
UFUNC_DECORATORS = {"numba.vectorize": "vectorize", "numba.np.ufunc.vectorize": "vectorize",
                    "numba.np.ufunc.decorators.vectorize": "vectorize", "numba.guvectorize": "guvectorize",
                    "numba.np.ufunc.guvectorize": "guvectorize",
                    "numba.np.ufunc.decorators.guvectorize": "guvectorize"}
STENCIL_DECORATORS = {"numba.stencil": "stencil", "numba.stencils.stencil.stencil": "stencil"}
STENCIL_OPTIONS = {"neighborhood", "cval", "standard_indexing"}
UFUNC_OPTIONS = {"target", "identity", "cache", "nopython", "fastmath", "forceobj", "boundscheck", "error_model",
                 "writable_args"}
OTHER_NUMBA = ("vectorize", "guvectorize", "stencil", "cfunc", "generated_jit", "jitclass",
               "experimental.jitclass", "overload", "extending.overload")
KNOWN_OPTIONS = {"parallel", "fastmath", "cache", "nogil", "boundscheck", "nopython", "forceobj",
                 "error_model", "inline", "looplift", "debug", "no_rewrites", "no_cpython_wrapper",
                 "no_cfunc_wrapper", "_nrt", "locals", "signature_or_function", "target",
                 "pipeline_class", "_dbg_optnone", "_dbg_extend_lifetimes"}


@dataclass
class JitSpec:
    """What the decorator of a kernel says: ``options``, eager ``signatures`` (text as
    written) and their parsed forms."""

    spelling: str
    options: dict = field(default_factory=dict)
    signatures: list = field(default_factory=list)
    parsed: list = field(default_factory=list)
    loc: Loc | None = None


class DecoratorReader:
    """Reads the decorators of one module's functions against its scope."""

    def __init__(self, scope: ModuleScope, path: str, source: str):
        self.scope = scope
        self.path = path
        self.source = source

    def loc(self, node) -> Loc:
        return Loc(self.path, node.lineno, node.col_offset)

    def error(self, node, message: str, construct: str) -> KpcError:
        end = node.end_col_offset if getattr(node, "end_lineno", None) == node.lineno else -1
        return KpcError.at(self.loc(node), message, construct, hint(construct), self.source, end)

    def resolved(self, decorator):
        """The decorator as written, or the call a top-level name stands for (``pjit = njit(parallel=True)``
        ... ``@pjit``); ``pjit(...)`` of such a name keeps the bound call's options under its own."""
        if isinstance(decorator, ast.Name) and decorator.id in self.scope.decorator_calls:
            return self.scope.decorator_calls[decorator.id]
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name) \
                and decorator.func.id in self.scope.decorator_calls:
            bound = self.scope.decorator_calls[decorator.func.id]
            merged = ast.Call(bound.func, list(decorator.args) or list(bound.args),
                              list(bound.keywords) + list(decorator.keywords))
            return ast.copy_location(merged, decorator)
        return decorator

    def numba_decorator(self, decorator) -> str | None:
        """``njit``/``jit`` for a Numba JIT decorator, ``numba.<x>`` for another Numba one, else None."""
        decorator = self.resolved(decorator)
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        qualified = self.scope.qualify(target)
        if qualified is None:
            return None
        if qualified in JIT_DECORATORS:
            return JIT_DECORATORS[qualified]
        if qualified in UFUNC_DECORATORS:
            return UFUNC_DECORATORS[qualified]
        if qualified in STENCIL_DECORATORS:
            return STENCIL_DECORATORS[qualified]
        if qualified.startswith("numba."):
            return qualified
        return None

    def read(self, fdef) -> JitSpec | None:
        """The ``JitSpec`` of a Numba kernel, None for a plain Python function.

        Raises ``KpcError`` for Numba functions kpc does not translate (object mode,
        ``@vectorize`` and other Numba decorators, extra decorators, bad signatures).
        """
        found = [(d, self.numba_decorator(d)) for d in fdef.decorator_list]
        numba_ones = [(d, kind) for d, kind in found if kind is not None]
        if not numba_ones:
            return None
        decorator, kind = numba_ones[0]
        decorator = self.resolved(decorator)
        name = fdef.name
        if kind not in ("njit", "jit", "vectorize", "guvectorize", "stencil"):
            raise self.error(decorator, f"unsupported construct 'numba decorator' @{kind} on '{name}'",
                             "numba decorator")
        for other, other_kind in found:
            if other is not numba_ones[0][0]:
                raise self.error(other, f"unsupported construct 'decorator' {ast.unparse(other)} on "
                                        f"kernel '{name}'", "decorator")
        if isinstance(fdef, ast.AsyncFunctionDef):
            raise self.error(fdef, f"unsupported construct 'async' kernel '{name}'", "async")
        spec = JitSpec(kind, loc=self.loc(decorator))
        if kind == "stencil":
            self._read_stencil(decorator, spec, name)
            return spec
        if kind == "guvectorize":
            self._read_gufunc(decorator, spec, name)
            spec.options["error_model"] = "numpy"  # as for @vectorize, below
            return spec
        if isinstance(decorator, ast.Call):
            self._read_call(decorator, spec, name)
        if spec.options.get("error_model", "python") not in ("python", "numpy"):
            raise self.error(decorator, f"unsupported construct 'decorator option' "
                                        f"error_model={spec.options['error_model']!r} on '{name}': Numba takes "
                                        f"'python' (a zero divisor raises) or 'numpy'", "decorator option")
        if spec.options.get("forceobj") is True:
            raise self.error(decorator, f"unsupported construct 'object mode' (forceobj=True) on '{name}'",
                             "object mode")
        if kind == "vectorize":
            self._check_ufunc(decorator, spec, name)
            # Numba compiles a ufunc's (and a gufunc's) function with error_model='numpy' whatever
            # the decorator says: a zero divisor gives inf, nan or 0, also where a kernel calls it
            spec.options["error_model"] = "numpy"
        return spec

    def _read_stencil(self, decorator, spec: JitSpec, name: str) -> None:
        """``@stencil``'s options (``neighborhood``, ``cval``, ``standard_indexing``; the mode
        ``'constant'``, Numba's only one), constants as other decorator options are."""
        if not isinstance(decorator, ast.Call):
            return
        for arg in decorator.args:
            if not (isinstance(arg, ast.Constant) and arg.value == "constant"):
                raise self.error(arg, f"unsupported construct 'decorator option' {ast.unparse(arg)} of @stencil "
                                      f"on '{name}'", "decorator option")
        for keyword in decorator.keywords:
            if keyword.arg not in STENCIL_OPTIONS:
                raise self.error(keyword.value, f"unsupported construct 'decorator option' {keyword.arg}= of "
                                                f"@stencil on '{name}'", "decorator option")
            spec.options[keyword.arg] = self._option_value(keyword, name)

    def _read_gufunc(self, decorator, spec: JitSpec, name: str) -> None:
        """``@guvectorize(signatures, layout, target=...)``: the layout string is kept as
        ``options["layout"]`` (``kpc.frontend.gufuncs`` parses it), each signature's types as for
        ``@vectorize`` (arrays of the core ranks, scalars)."""
        args = list(decorator.args) if isinstance(decorator, ast.Call) else []
        keywords = {k.arg: k.value for k in decorator.keywords} if isinstance(decorator, ast.Call) else {}
        signatures = args[0] if len(args) == 2 else keywords.pop("ftylist", None)
        layout = args[1] if len(args) == 2 else (args[0] if len(args) == 1 else keywords.pop("signature", None))
        if layout is None or len(args) > 2:
            raise self.error(decorator, f"unsupported construct 'decorator option' @guvectorize on '{name}' "
                                        "without a layout string", "decorator option")
        try:
            spec.options["layout"] = self.scope.evaluate(layout)
        except NotConstant:
            spec.options["layout"] = None
        if not isinstance(spec.options["layout"], str):
            raise self.error(layout, f"unsupported construct 'decorator option' layout {ast.unparse(layout)} of "
                                     f"@guvectorize on '{name}': not a string constant", "decorator option")
        for key, value in keywords.items():
            if key is None or key not in UFUNC_OPTIONS:
                raise self.error(value, f"unsupported construct 'decorator option' {key}= of @guvectorize on "
                                        f"'{name}'", "decorator option")
            spec.options[key] = self._option_value(ast.keyword(key, value), name)
        if signatures is not None:
            self._read_signatures(signatures, spec, name)
        target = spec.options.get("target", "cpu")
        if target not in ("cpu", "parallel"):
            raise self.error(decorator, f"unsupported construct 'ufunc target' target={target!r} on '{name}': "
                                        "kpc translates target='cpu' and 'parallel'", "ufunc target")
        writable = spec.options.get("writable_args")
        if writable is not None and not (isinstance(writable, (tuple, list)) and all(
                isinstance(w, (str, int)) and not isinstance(w, bool) for w in writable)):
            raise self.error(decorator, f"unsupported construct 'decorator option' writable_args={writable!r} of "
                                        f"@guvectorize on '{name}': expected a tuple of argument names or positions",
                             "decorator option")

    def _check_ufunc(self, decorator, spec: JitSpec, name: str) -> None:
        """``@vectorize``'s options as Numba reads them: ``target`` ``cpu``/``parallel`` (``cuda``
        kernels stay Numba), each eager signature ``ret(scalar, ...)`` of scalars."""
        unknown = sorted(set(spec.options) - UFUNC_OPTIONS)
        if unknown:
            raise self.error(decorator, f"unsupported construct 'decorator option' {unknown[0]}= of @vectorize "
                                        f"on '{name}'", "decorator option")
        target = spec.options.get("target", "cpu")
        if target not in ("cpu", "parallel"):
            raise self.error(decorator, f"unsupported construct 'ufunc target' target={target!r} on '{name}': "
                                        "kpc translates target='cpu' and 'parallel'", "ufunc target")
        for text, parsed in zip(spec.signatures, spec.parsed):
            if parsed.return_type is None or any(not isinstance(t, ScalarType) for t in
                                                 (*parsed.args, parsed.return_type)):
                raise self.error(decorator, f"unsupported construct 'eager signature' {text!r} of @vectorize on "
                                            f"'{name}': a ufunc's signature is 'ret(arg, ...)' of scalar types",
                                 "eager signature")

    def _read_call(self, call: ast.Call, spec: JitSpec, name: str) -> None:
        signature_node = call.args[0] if call.args else None
        if len(call.args) > 1:
            raise self.error(call.args[1], f"unsupported construct 'decorator option' on '{name}': "
                                           "a second positional argument", "decorator option")
        for keyword in call.keywords:
            if keyword.arg is None:
                try:
                    spread = self.scope.evaluate_dict(keyword.value)
                except NotConstant:
                    raise self.error(keyword.value, f"unsupported construct 'decorator option' "
                                                    f"**{ast.unparse(keyword.value)} on '{name}': not a dict of "
                                                    f"constants", "decorator option") from None
                spec.options.update(spread)
                continue
            if keyword.arg == "signature_or_function":
                signature_node = keyword.value
                continue
            if keyword.arg == "locals":
                spec.options["locals"] = self._read_locals(keyword.value, name)
                continue
            value = self._option_value(keyword, name)
            spec.options[keyword.arg] = value
        spec.options.pop("nopython", None)
        if signature_node is not None:
            self._read_signatures(signature_node, spec, name)

    def _option_value(self, keyword: ast.keyword, name: str):
        node = keyword.value
        if isinstance(node, ast.Set):
            try:
                return sorted(self.scope.evaluate(e) for e in node.elts)
            except (NotConstant, TypeError):
                pass
        else:
            try:
                return self.scope.evaluate(node)
            except NotConstant:
                pass
        raise self.error(node, f"unsupported construct 'decorator option' {keyword.arg}={ast.unparse(node)} on "
                               f"'{name}': the value is not a constant", "decorator option")

    def _read_locals(self, node, name: str) -> dict:
        if not isinstance(node, ast.Dict):
            raise self.error(node, f"unsupported construct 'decorator option' locals= on '{name}': "
                                   "expected a dict literal", "decorator option")
        declared = {}
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise self.error(key or node, "unsupported construct 'decorator option' locals= key "
                                              "must be a string", "decorator option")
            text = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) \
                else ast.unparse(value)
            try:
                declared[key.value] = parse_type(text)
            except SignatureError as err:
                raise self.error(value, f"unsupported construct 'eager signature' in locals= of '{name}': "
                                        f"{err}", "eager signature") from None
        return declared

    def _read_signatures(self, node, spec: JitSpec, name: str) -> None:
        items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
        for item in items:
            text = None
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                text = item.value
            elif isinstance(item, ast.Name) and isinstance(self.scope.constants.get(item.id), str):
                text = self.scope.constants[item.id]
            elif isinstance(item, (ast.Call, ast.Subscript, ast.Attribute, ast.Name)):
                text = ast.unparse(item)
            elif isinstance(item, ast.Tuple) and item.elts:  # argument types alone: (float64[:], float64[:])
                text = "(" + ", ".join(ast.unparse(e) for e in item.elts) + ")"
            if text is None:
                raise self.error(item, f"unsupported construct 'eager signature' {ast.unparse(item)} on '{name}'",
                                 "eager signature")
            try:
                parsed = parse_signature(text)
            except SignatureError as err:
                raise self.error(item, f"unsupported construct 'eager signature' on '{name}': {err}",
                                 "eager signature") from None
            if parsed.name is not None:
                raise self.error(item, f"unsupported construct 'eager signature' on '{name}': "
                                       f"{parsed.name!r} is not a type", "eager signature")
            spec.signatures.append(text)
            spec.parsed.append(parsed)
