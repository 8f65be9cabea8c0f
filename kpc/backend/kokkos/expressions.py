"""C++ text of IR expressions with Numba's semantics.

Every operation is computed in the type ``infer-types`` gave it: operands are cast to
that type where C++ would promote differently (``int64 + float32`` is ``float64`` in
Numba, ``float`` in C++). Integer ``//`` and ``%`` become ``kpc::floordiv`` /
``kpc::mod`` (Python's floor semantics) unless both operands are provably
non-negative; a negative index counts from the end; powers with a constant integer
exponent become multiplications. Divisions ``error-model`` marked raise ZeroDivisionError
on a zero divisor (``kpc::truediv``, the raising ``floordiv``/``mod``), the others give
NumPy's inf, nan or 0; under ``boundscheck=True`` every index is checked
(``kpc::checked_index``), raising IndexError after the kernel.
"""

from __future__ import annotations

from kpc.ir import nodes as n
from kpc.ir.intrinsics import EMPTY_REDUCTION_ERRORS, FLAT_ELEMENT, HOST_ROUTINES, ORDER_READERS, ORDER_ROUTINES, VALUE_ERRORS
from kpc.ir.types import BOOL, FLOAT64, INT64, ArrayType, ScalarType, TupleType, Type, UNKNOWN, promote

from .cxx import BackendError, literal, scalar_type

# kpc_semantics.hpp's error codes of the empty reductions (EMPTY_REDUCTION_ERRORS) in device code
DEVICE_ERROR_CODES = {"min": "empty_minimum_error", "max": "empty_maximum_error", "argmin": "empty_argmin_error",
                      "argmax": "empty_argmax_error"}

# Python math / NumPy scalar functions -> the C++ function (in namespace kpc::math, i.e.
# Kokkos' math functions), applied in the call's floating-point type.
MATH_FUNCTIONS = {
    name: name
    for name in (
        "sqrt cbrt exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 sinh cosh tanh "
        "asinh acosh atanh erf erfc lgamma floor ceil trunc hypot fmod pow copysign fabs"
    ).split()
}
MATH_FUNCTIONS.update({
    "gamma": "tgamma", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "power": "pow",
    # Half to even under the default rounding mode, as LLVM's rint that Numba calls.
    "rint": "nearbyint",
})
# Functions of a complex argument that Kokkos_Complex.hpp defines (Kokkos 3.4 and 4.x).
COMPLEX_FUNCTIONS = frozenset(
    "sqrt exp log sin cos tan sinh cosh tanh asin acos atan asinh acosh atanh".split())
PREDICATES = {"isnan", "isinf", "isfinite"}
# Not in Kokkos 3.4's math functions: taken from std:: (host execution spaces only).
STD_ONLY = {"copysign", "tgamma"}

ARITHMETIC = {"+", "-", "*", "&", "|", "^", "<<", ">>"}
COMPARE = {"<", "<=", ">", ">=", "==", "!="}

# C++ precedence levels of what the emitter prints (lower binds tighter; 0 = an atom).
PREC = {"unary": 3, "*": 5, "/": 5, "%": 5, "+": 6, "-": 6, "<<": 7, ">>": 7, "<": 9, "<=": 9, ">": 9, ">=": 9,
        "==": 10, "!=": 10, "&": 11, "^": 12, "|": 13, "&&": 14, "||": 15, "?:": 16}
_BITWISE = {PREC["&"], PREC["^"], PREC["|"], PREC["<<"]}


class Code(str):
    """C++ text with the precedence of its outermost operator (0 for an atom)."""

    prec = 0

    @staticmethod
    def op(text: str, prec: int) -> "Code":
        code = Code(text)
        code.prec = prec
        return code


def _short(name: str) -> str:
    for prefix in ("math.", "np.", "numpy.", "cmath."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


class ExprEmitter:
    """Emit expressions of one function body.

    ``scope`` answers: ``type_of(name)``, ``intervals``, ``name_text(name)`` (the C++
    text of a variable, possibly overridden), ``call_text(call)`` for kernel calls.
    """

    def __init__(self, scope):
        self.scope = scope

    # ------------------------------------------------------------ types
    def type_of(self, expr) -> Type:
        t = getattr(expr, "type", UNKNOWN)
        if t is UNKNOWN or t is None:
            if isinstance(expr, n.Name):
                return self.scope.type_of(expr.id)
            if isinstance(expr, n.Const):
                v = expr.value
                if isinstance(v, bool):
                    return BOOL
                if isinstance(v, int):
                    return INT64
                if isinstance(v, float):
                    return FLOAT64
            raise BackendError(f"expression {expr} has no type (run infer-types first)", getattr(expr, "loc", None))
        return t

    # ------------------------------------------------------------ entry points
    def emit(self, expr, want: Type | None = None) -> Code:
        """The C++ text of ``expr``; converted to ``want`` when given and different."""
        text = self._emit(expr)
        if not isinstance(text, Code):
            text = Code(text)
        if want is None:
            return text
        converted = self.convert(expr, text, want)
        return converted if converted is text else Code(converted)

    def operand(self, expr, want: Type | None = None, parent: str = "unary", right: bool = False) -> str:
        """``emit``, parenthesized as the operand of the C++ operator ``parent`` needs."""
        text = self.emit(expr, want)
        outer = PREC[parent]
        if text.prec == 0:
            if text.startswith("-") and parent == "unary":
                return f"({text})"
            return text
        if text.prec > outer or (right and text.prec == outer) or (text.prec in _BITWISE and text.prec != outer):
            return f"({text})"
        if parent == "||" and text.prec == PREC["&&"]:
            return f"({text})"
        return text

    def convert(self, expr, text: str, want: Type) -> str:
        have = self.type_of(expr)
        if have == want or not isinstance(want, ScalarType) or not isinstance(have, ScalarType):
            return text
        if isinstance(expr, n.Const) and not isinstance(expr.value, bool) and isinstance(expr.value, (int, float)):
            if want.is_float or (want.is_int and isinstance(expr.value, int) and abs(expr.value) < 2 ** 31):
                return literal(expr.value if want.is_int else float(expr.value), want)
        if want.is_bool:
            return f"static_cast<bool>({text})"
        return f"static_cast<{scalar_type(want)}>({text})"

    # ------------------------------------------------------------ dispatch
    def _emit(self, e) -> str:
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:
            raise BackendError(f"the Kokkos backend cannot emit {type(e).__name__} expressions", getattr(e, "loc", None))
        return method(e)

    def _Const(self, e) -> str:
        if e.value is None:
            raise BackendError("None is not a value in a kernel expression", e.loc)
        return literal(e.value, self.type_of(e))

    def _GlobalConst(self, e) -> str:
        return literal(e.value, self.type_of(e))

    def _Name(self, e) -> str:
        return self.scope.name_text(e.id)

    def _UnaryOp(self, e) -> str:
        t = self.type_of(e)
        if e.op == "not":
            return Code.op(f"!{self.operand(e.operand)}", PREC["unary"])
        inner = self.operand(e.operand, t if isinstance(t, ScalarType) else None)
        if e.op == "-":
            return Code.op(f"-{inner}", PREC["unary"])
        if e.op == "+":
            return self.emit(e.operand, t if isinstance(t, ScalarType) else None)
        if e.op == "~":
            if t.is_bool:
                return Code.op(f"!{inner}", PREC["unary"])
            return Code.op(f"~{inner}", PREC["unary"])
        raise BackendError(f"unary operator {e.op!r} is not supported", e.loc)

    def _BinOp(self, e) -> str:
        t = self.type_of(e)
        lt, rt = self.type_of(e.left), self.type_of(e.right)
        if not isinstance(t, ScalarType):
            raise BackendError(f"array expression {e} must be lowered to loops before the Kokkos backend "
                               "(lower-numpy)", e.loc)
        op = e.op
        if op == "**":
            return self._power(e, t, lt, rt)
        if op == "/":
            if e.checked and not self._nonzero(e.right):
                return f"kpc::truediv<{scalar_type(t)}>({self.emit(e.left, t)}, {self.emit(e.right, t)})"
            if t.is_complex:
                return f"kpc::quotient({self.emit(e.left, t)}, {self.emit(e.right, t)})"
            return self._binary(e.left, "/", e.right, t)
        if op in ("//", "%"):
            if t.is_int or t.is_bool:
                t = INT64 if t.is_bool else t
                left, right = self.scope.intervals.of(e.left), self.scope.intervals.of(e.right)
                if left.nonnegative and right.positive:
                    return self._binary(e.left, "/" if op == "//" else "%", e.right, t)
            helper = "floordiv" if op == "//" else "mod"
            # Unchecked (NumPy's semantics): no ZeroDivisionError, 0 / inf / nan instead.
            arguments = scalar_type(t) if e.checked else f"{scalar_type(t)}, false"
            return f"kpc::{helper}<{arguments}>({self.emit(e.left, t)}, {self.emit(e.right, t)})"
        if op in ARITHMETIC:
            if op in ("<<", ">>", "&", "|", "^") and t.is_bool:
                return self._binary(e.left, op, e.right, None)
            return self._binary(e.left, op, e.right, t)
        raise BackendError(f"operator {op!r} is not supported by the Kokkos backend", e.loc)

    def _nonzero(self, expr) -> bool:
        """Whether ``expr`` is provably not 0: a nonzero constant or an integer of known sign."""
        if isinstance(expr, (n.Const, n.GlobalConst)) and isinstance(expr.value, (int, float)):
            return expr.value != 0
        interval = self.scope.intervals.of(expr)
        return interval.positive or (interval.hi is not None and interval.hi < 0)

    def _binary(self, left, op: str, right, t) -> Code:
        first = self.operand(left, t, op)
        if op == "<<" and isinstance(left, (n.Const, n.GlobalConst)) and isinstance(t, ScalarType) and t.is_int:
            # a literal is a C++ int: 1 << 60 would shift 32 bits (Numba's integers are 64-bit)
            first = f"{scalar_type(t)}({first})"
        text = f"{first} {op} {self.operand(right, t, op, right=True)}"
        return Code.op(text, PREC[op])

    def _power(self, e, t, lt, rt) -> str:
        if t.is_complex:
            raise BackendError(f"** of complex numbers ({lt} ** {rt}) is not supported by the Kokkos backend; "
                               "write the product out (z * z)", e.loc)
        ct = scalar_type(t)
        exponent = e.right
        if isinstance(exponent, (n.Const, n.GlobalConst)) and isinstance(exponent.value, int) \
                and not isinstance(exponent.value, bool) and abs(exponent.value) <= 64:
            k = exponent.value
            if t.is_float or k >= 0:
                return f"kpc::pow_n<{k}>({self.emit(e.left, t)})"
        if isinstance(exponent, (n.Const, n.GlobalConst)) and isinstance(exponent.value, float) and t.is_float:
            if exponent.value == 0.5:
                return f"kpc::math::sqrt({self.emit(e.left, t)})"
            if exponent.value.is_integer() and abs(exponent.value) <= 64:
                return f"kpc::pow_n<{int(exponent.value)}>({self.emit(e.left, t)})"
        if t.is_int:
            return f"kpc::ipow<{ct}>({self.emit(e.left, t)}, {self.emit(e.right, t)})"
        if isinstance(rt, ScalarType) and (rt.is_int or rt.is_bool):
            return f"kpc::powi({self.emit(e.left, t)}, {self.emit(e.right, INT64)})"
        return f"kpc::math::pow({self.emit(e.left, t)}, {self.emit(e.right, t)})"

    def _Compare(self, e) -> str:
        lt, rt = self.type_of(e.left), self.type_of(e.right)
        if not (isinstance(lt, ScalarType) and isinstance(rt, ScalarType)):
            raise BackendError(f"comparison of {lt} and {rt} is not supported", e.loc)
        common = lt if lt == rt else promote(lt, rt)
        if lt.is_bool and rt.is_bool:
            common = BOOL
        return self._binary(e.left, e.op, e.right, common)

    def _BoolOp(self, e) -> str:
        t = self.type_of(e)
        if isinstance(t, ScalarType) and t.is_bool:
            op = "&&" if e.op == "and" else "||"
            parts = [self.operand(v, BOOL, op, right=k > 0) for k, v in enumerate(e.values)]
            return Code.op(f" {op} ".join(parts), PREC[op])
        # `a or b` on numbers is the first truthy value (the last one for `and`).
        text = self.operand(e.values[-1], t)
        for value in reversed(e.values[:-1]):
            v = self.operand(value, t)
            text = f"({v} ? {v} : {text})" if e.op == "or" else f"({v} ? {text} : {v})"
        return text

    def _IfExp(self, e) -> str:
        t = self.type_of(e)
        if e.branchless:
            return f"kpc::select<{scalar_type(t)}>({self.emit(e.test, BOOL)}, {self.emit(e.body, t)}, " \
                   f"{self.emit(e.orelse, t)})"
        text = f"{self.operand(e.test, BOOL, '?:', True)} ? {self.operand(e.body, t, '?:', True)} : " \
               f"{self.operand(e.orelse, t, '?:')}"
        return Code.op(text, PREC["?:"])

    def _Cast(self, e) -> str:
        to = e.to if isinstance(e.to, ScalarType) else self.type_of(e)
        inner = self.emit(e.value)
        if self.type_of(e.value) == to:
            return inner
        if to.is_bool:
            return f"static_cast<bool>({inner})"
        return f"static_cast<{scalar_type(to)}>({inner})"

    def _Attribute(self, e) -> str:
        base_t = self.type_of(e.value)
        if e.attr in ("real", "imag") and isinstance(base_t, ScalarType):
            if not base_t.is_complex:
                return self.emit(e.value) if e.attr == "real" else literal(0, base_t)
            return f"{self.operand(e.value)}.{e.attr}()"
        if not isinstance(base_t, ArrayType):
            raise BackendError(f"attribute .{e.attr} of {base_t} is not supported", e.loc)
        base = self.operand(e.value)
        if e.attr == "shape":
            extents = ", ".join(f"kpc::extent({base}, {k})" for k in range(base_t.ndim))
            return f"std::make_tuple({extents})"
        if e.attr == "size":
            return f"kpc::size({base})"
        if e.attr == "ndim":
            return str(base_t.ndim)
        raise BackendError(f"array attribute .{e.attr} is not supported by the Kokkos backend", e.loc)

    def _TupleExpr(self, e) -> str:
        t = self.type_of(e)
        elements = t.elements if isinstance(t, TupleType) else [self.type_of(x) for x in e.elements]
        inner = ", ".join(self.emit(x, et) for x, et in zip(e.elements, elements))
        return f"std::make_tuple({inner})"

    # ------------------------------------------------------------ indexing
    def _Index(self, e) -> str:
        base_t = self.type_of(e.base)
        if isinstance(e.base, n.Attribute) and e.base.attr == "shape":
            array_t = self.type_of(e.base.value)
            k = self._constant_int(e.indices[0], e)
            if k < 0:
                k += array_t.ndim
            return f"kpc::extent({self.operand(e.base.value)}, {k})"
        if isinstance(base_t, TupleType):
            k = self._constant_int(e.indices[0], e)
            if k < 0:
                k += len(base_t.elements)
            return f"std::get<{k}>({self.emit(e.base)})"
        if not isinstance(base_t, ArrayType):
            raise BackendError(f"cannot index a value of type {base_t}", e.loc)
        base = self.operand(e.base)
        if len(e.indices) > base_t.ndim:
            raise BackendError(f"too many indices for a {base_t.ndim}-D array", e.loc)
        function = getattr(self.scope, "function", None)
        boundscheck = function is not None and function.options.get("boundscheck") is True
        parts, is_view = [], False
        for axis, index in enumerate(e.indices):
            if isinstance(index, n.Slice):
                is_view = True
                parts.append(self._slice(base, axis, index))
            elif boundscheck:
                parts.append(f"kpc::checked_index({self.emit(index, INT64)}, kpc::extent({base}, {axis}))")
            else:
                parts.append(self._index(base, axis, index))
        if len(e.indices) < base_t.ndim:
            is_view = True
            parts += ["Kokkos::ALL"] * (base_t.ndim - len(e.indices))
        if is_view:
            return f"Kokkos::subview({base}, {', '.join(parts)})"
        return f"{base}({', '.join(parts)})"

    def _constant_int(self, expr, where) -> int:
        if isinstance(expr, (n.Const, n.GlobalConst)) and isinstance(expr.value, int):
            return expr.value
        if isinstance(expr, n.UnaryOp) and expr.op == "-" and isinstance(expr.operand, n.Const):
            return -expr.operand.value
        raise BackendError("a tuple index must be a constant integer", where.loc)

    def _index(self, base: str, axis: int, index) -> str:
        t = self.type_of(index)
        if isinstance(t, ScalarType) and t.is_float:
            raise BackendError("array index must be an integer", getattr(index, "loc", None))
        if isinstance(t, ScalarType) and not t.is_signed:
            return self.emit(index)
        interval = self.scope.intervals.of(index)
        if interval.nonnegative:
            return self.emit(index, INT64) if t.is_bool else self.emit(index)
        if interval.hi is not None and interval.hi < 0:
            return f"kpc::extent({base}, {axis}) + {self.operand(index, None, '+', right=True)}"
        return f"kpc::wrap({self.emit(index, INT64)}, kpc::extent({base}, {axis}))"

    def _slice(self, base: str, axis: int, s) -> str:
        if s.step is not None and not (isinstance(s.step, n.Const) and s.step.value == 1):
            raise BackendError("slices with a step must be lowered to loops before the Kokkos backend", s.loc)
        if s.lower is None and s.upper is None:
            return "Kokkos::ALL"
        extent = f"kpc::extent({base}, {axis})"
        lower = "0" if s.lower is None else self.emit(s.lower, INT64)
        upper = extent if s.upper is None else self.emit(s.upper, INT64)
        return f"kpc::slice({lower}, {upper}, {extent})"

    # ------------------------------------------------------------ calls
    def _Call(self, e) -> str:
        if e.kind == "kernel":
            return self.scope.call_text(e, self)
        if e.kind == "random":
            return self._random(e)
        name = _short(e.func)
        t = self.type_of(e)
        if e.kind == "builtin" or name in ("abs", "absolute", "min", "max", "minimum", "maximum", "sign"):
            return self._builtin(e, name, t)
        if e.kind == "math" or name in MATH_FUNCTIONS or name in PREDICATES:
            return self._math(e, name, t)
        if e.kind == "numpy":
            raise BackendError(f"NumPy call {e.func} must be lowered before the Kokkos backend (lower-numpy)", e.loc)
        raise BackendError(f"call of {e.func} is not supported by the Kokkos backend", e.loc)

    def _random(self, e) -> str:
        """``np.random.<f>(...)`` on scalars: a draw from the process's pool (``kpc_random.hpp``)."""
        name = e.func[len("np.random."):]
        t = self.type_of(e)
        args = [a for a in e.args if not (isinstance(a, n.Const) and a.value is None)]
        if name == "seed":
            return f"kpc::random::seed<kpc_exec_space>({self.emit(args[0], INT64)})"
        if name == "randint":
            bounds = [self.emit(a, INT64) for a in args]
            if len(bounds) == 1:
                bounds.insert(0, "0")
            text = f"kpc::random::randint<kpc_exec_space>({', '.join(bounds)})"
            return text if t == INT64 else f"static_cast<{scalar_type(t)}>({text})"
        if name in ("random", "random_sample", "rand"):
            return "kpc::random::uniform01<kpc_exec_space>()"
        params = [self.emit(a, FLOAT64) for a in args]  # none for standard_normal(), randn()
        params += ["0.0", "1.0"][len(params):]
        function = "uniform" if name == "uniform" else "normal"
        return f"kpc::random::{function}<kpc_exec_space>({', '.join(params)})"

    def _builtin(self, e, name, t) -> str:
        args = e.args
        if name == "len":
            return f"kpc::extent({self.emit(args[0])}, 0)"
        if name == "complex":
            return f"{scalar_type(t)}({self.emit(args[0], FLOAT64)}, {self.emit(args[1], FLOAT64)})"
        arg_t = self.type_of(args[0]) if args else None
        if name in ("abs", "absolute") and isinstance(arg_t, ScalarType) and arg_t.is_complex:
            return self.convert(e, f"Kokkos::abs({self.emit(args[0])})", t)
        if name in ("abs", "absolute", "fabs"):
            if isinstance(t, ScalarType) and t.is_float:
                return f"kpc::math::fabs({self.emit(args[0], t)})"
            return f"kpc::abs<{scalar_type(t)}>({self.emit(args[0], t)})"
        if name in ("min", "max", "minimum", "maximum"):
            helper = "min" if name in ("min", "minimum") else "max"
            if len(args) == 1:
                raise BackendError(f"{name}() of an array must be lowered before the Kokkos backend", e.loc)
            text = self.emit(args[0], t)
            for arg in args[1:]:
                text = f"kpc::{helper}<{scalar_type(t)}>({text}, {self.emit(arg, t)})"
            return text
        if name == "sign":
            return f"kpc::sign<{scalar_type(t)}>({self.emit(args[0], t)})"
        if name in ("int", "float", "bool"):
            return self.convert(args[0], self.emit(args[0]), t) if args else literal(0, t)
        if name == "value_check":
            if VALUE_ERRORS[args[1].value] in EMPTY_REDUCTION_ERRORS.values() and self._on_cuda_device():
                # CUDA device code flags an error code (kpc_semantics.hpp), raised once the call's kernels end
                code = {v: k for k, v in EMPTY_REDUCTION_ERRORS.items()}[VALUE_ERRORS[args[1].value]]
                return f"kpc::device_check({self.emit(args[0], BOOL)}, kpc::{DEVICE_ERROR_CODES[code]})"
            in_kernel = self._host_check(e, "a NumPy argument check")
            message = VALUE_ERRORS[args[1].value].replace('"', '\\"')
            return f'kpc::value_check<{"true" if in_kernel else "false"}>({self.emit(args[0], BOOL)}, "{message}")'
        if name in ("broadcast_operands", "broadcast_into"):
            in_kernel = self._host_check(e, "a NumPy shape check")
            shapes = ", ".join(
                f"std::array<int64_t, {len(a.elements)}>{{{', '.join(self.emit(x, INT64) for x in a.elements)}}}"
                for a in args)
            return f"kpc::{name}<{'true' if in_kernel else 'false'}>({shapes})"
        if name == FLAT_ELEMENT:
            return f"kpc::flat_element({self.emit(args[0])}, {self.emit(args[1], INT64)})"
        if name in HOST_ROUTINES:
            return self._host_routine(e, name)
        if name in ORDER_ROUTINES or name in ORDER_READERS:
            # kpc_order.hpp: any execution space, on arrays lower-numpy allocated (arrays first).
            flag = {"argsort": BOOL, "quantile_sorted": FLOAT64, "select_quantile": FLOAT64,
                    "quantile_values": FLOAT64}.get(name)
            texts = [self.emit(a) if isinstance(self.type_of(a), ArrayType) else self.emit(a, flag) for a in args]
            return f"kpc::order::{name}({', '.join(texts)})"
        if name == "round" and len(args) == 1:
            if not (isinstance(arg_t, ScalarType) and arg_t.is_float):
                return self.convert(args[0], self.emit(args[0]), t)
            return f"static_cast<{scalar_type(t)}>(kpc::math::nearbyint({self.emit(args[0])}))"
        raise BackendError(f"builtin {name}() is not supported by the Kokkos backend", e.loc)

    def _host_check(self, e, what: str) -> bool:
        """Whether a NumPy check (host code that raises) is emitted in a kernel body, where it
        cannot throw: it flags, and the binding raises after. Refused on a CUDA device."""
        in_kernel = getattr(self.scope, "in_region", False) or getattr(self.scope, "variant", "host") != "host"
        if self._on_cuda_device():
            # The check is host code: called from a CUDA kernel it never ran and the statement
            # after it was lost (found by the corpus's rows_through_helper).
            raise BackendError(f"{what} inside code that runs on a CUDA device (an array "
                               "expression in a function called from a parallel loop) is not translated "
                               "for CUDA; the kernel stays Numba", e.loc)
        return in_kernel

    def _on_cuda_device(self) -> bool:
        """Whether the code being emitted runs on a CUDA device (a region or a device function)."""
        unit = getattr(self.scope, "unit", None)
        on_device = getattr(self.scope, "in_region", False) \
            or self.scope.function.name in getattr(unit, "device_functions", ())
        return on_device and getattr(unit, "space", None) == "cuda"

    def _host_routine(self, e, name) -> str:
        """A routine of ``kpc_linalg.hpp`` (``np.linalg.*``, ``np.histogram``, ``np.cov``: serial
        host code that raises) or ``kpc_blas.hpp`` (``matmul``: launches its own parallel loop):
        not inside a parallel region or a device function."""
        if getattr(self.scope, "in_region", False) or getattr(self.scope, "variant", "host") != "host":
            raise BackendError(f"{HOST_ROUTINES[name][0]}() runs on the host only, outside parallel loops and "
                               "functions called in them; the kernel stays Numba", e.loc)
        args = [self.emit(a) for a in e.args]
        if name == "matmul":
            flags = ", ".join("true" if name in e.kwargs else "false" for name in ("ta", "tb"))
            if "alpha" in e.kwargs:
                args.append(self.emit(e.kwargs["alpha"], self.type_of(e.args[2]).dtype))
            return f"kpc::blas::matmul<kpc_exec_space, {flags}>({', '.join(args)})"
        if name == "histogram" and len(args) == 6:
            # Numba computes v - lo in the promoted type of the elements and the range.
            diff = promote(self.type_of(e.args[0]).dtype, self.type_of(e.args[2]))
            return f"kpc::linalg::histogram<{scalar_type(diff)}>({', '.join(args)})"
        if name == "histogram_edges":
            compared = promote(self.type_of(e.args[0]).dtype, self.type_of(e.args[1]).dtype)
            return f"kpc::linalg::histogram_edges<{scalar_type(compared)}>({', '.join(args)})"
        if name == "histogram":
            args[1] = self.emit(e.args[1], INT64)
        if name == "cov":
            args[-1] = self.emit(e.args[-1], INT64)
        return f"kpc::linalg::{name.removeprefix('linalg_')}({', '.join(args)})"

    def _complex_math(self, e, name, t) -> str:
        """A NumPy function of a complex number: Kokkos' overload for ``Kokkos::complex``."""
        if name in ("conj", "conjugate"):
            return f"Kokkos::conj({self.emit(e.args[0], t)})" if t.is_complex else self.emit(e.args[0], t)
        name = MATH_FUNCTIONS.get(name, name)  # np.arctan -> atan
        if name not in COMPLEX_FUNCTIONS or len(e.args) != 1:
            raise BackendError(f"{e.func}() of a complex number is not supported by the Kokkos backend "
                               f"(supported: {', '.join(sorted(COMPLEX_FUNCTIONS))})", e.loc)
        return f"Kokkos::{name}({self.emit(e.args[0], t)})"

    def _math(self, e, name, t) -> str:
        if name in PREDICATES:
            arg_t = self.type_of(e.args[0])
            ft = arg_t if isinstance(arg_t, ScalarType) and arg_t.is_float else FLOAT64
            return f"kpc::math::{name}({self.emit(e.args[0], ft)})"
        if name in ("abs", "fabs"):
            return self._builtin(e, "abs", t)
        if isinstance(t, ScalarType) and t.is_complex or name in ("conj", "conjugate"):
            return self._complex_math(e, name, t)
        if name == "degrees":
            return Code.op(f"{self.operand(e.args[0], t, '*')} * {literal(57.29577951308232, t)}", PREC["*"])
        if name == "radians":
            return Code.op(f"{self.operand(e.args[0], t, '*')} * {literal(0.017453292519943295, t)}", PREC["*"])
        if name not in MATH_FUNCTIONS:
            raise BackendError(f"math function {e.func} is not supported by the Kokkos backend", e.loc)
        cxx = MATH_FUNCTIONS[name]
        # floor/ceil/trunc return int64 in Numba's math module: compute in float, then cast.
        ft = t if isinstance(t, ScalarType) and t.is_float else None
        if ft is None:
            arg_types = [self.type_of(a) for a in e.args]
            ft = arg_types[0] if arg_types and isinstance(arg_types[0], ScalarType) and arg_types[0].is_float \
                else FLOAT64
        namespace = "std" if cxx in STD_ONLY else "kpc::math"
        text = f"{namespace}::{cxx}({', '.join(self.emit(a, ft) for a in e.args)})"
        if isinstance(t, ScalarType) and not t.is_float:
            return f"static_cast<{scalar_type(t)}>({text})"
        return text
