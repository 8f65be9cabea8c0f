"""The library functions a kernel may call, by family: what ``Call(kind=math|numpy|builtin)`` can name.

The frontend accepts exactly these names (anything else is an "unsupported ..."
diagnostic); ``infer-types`` types each family with Numba's rules; backends map
them. ``Call.func`` spells them canonically: ``math.sqrt``, ``np.sqrt``,
``np.linalg.norm``, and ``.sum`` for the array method.

>>> "sqrt" in MATH_FLOAT_UNARY and "floor" in MATH_INT_RESULT
True
>>> NUMPY_UFUNCS["abs"], NUMPY_UFUNCS["arctan2"]
('absolute', 'arctan2')
"""

from __future__ import annotations

# math.<f>(x): float32 stays float32, float64 stays float64, integers give float64.
MATH_FLOAT_UNARY = frozenset({
    "sqrt", "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc",
    "gamma", "lgamma", "radians", "degrees", "fabs",
})
# math.<f>(x, y): (float32, float32) -> float32, otherwise float64.
MATH_FLOAT_BINARY = frozenset({"atan2", "hypot", "pow", "copysign"})
# math.floor/ceil/trunc return int64 in Numba (not float as np.floor does).
MATH_INT_RESULT = frozenset({"floor", "ceil", "trunc"})
MATH_BOOL_RESULT = frozenset({"isnan", "isinf", "isfinite"})
MATH_OTHER = frozenset({"ldexp", "gcd"})
MATH_FUNCS = MATH_FLOAT_UNARY | MATH_FLOAT_BINARY | MATH_INT_RESULT | MATH_BOOL_RESULT | MATH_OTHER

BUILTINS = frozenset({"abs", "min", "max", "len", "round"})
CAST_BUILTINS = {"int": "int64", "float": "float64", "bool": "bool", "complex": "complex128"}

# NumPy scalar types usable as casts (np.float32(x)) and as dtypes (dtype=np.float32).
NUMPY_DTYPES = {
    "bool_": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float32": "float32", "float64": "float64", "complex64": "complex64",
    "complex128": "complex128", "intp": "int64", "uintp": "uint64", "double": "float64",
    "single": "float32", "int_": "int64", "float_": "float64", "byte": "int8", "ubyte": "uint8",
    "short": "int16", "ushort": "uint16", "intc": "int32", "uintc": "uint32",
    "longlong": "int64", "ulonglong": "uint64",
}
# numba.<type>(x) casts (numba.float32(x)).
NUMBA_SCALARS = {
    "boolean": "bool", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float32": "float32", "float64": "float64", "complex64": "complex64",
    "complex128": "complex128", "intp": "int64", "uintp": "uint64", "double": "float64",
    "f4": "float32", "f8": "float64", "i4": "int32", "i8": "int64",
}

# np.<name> element-wise functions -> the NumPy ufunc whose loops decide the result type.
NUMPY_UFUNCS = {name: name for name in (
    "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "floor", "ceil", "trunc", "rint", "absolute", "fabs", "sign", "square", "cbrt",
    "negative", "positive", "reciprocal", "deg2rad", "rad2deg", "degrees", "radians",
    "isnan", "isinf", "isfinite", "logical_not", "invert", "conjugate",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
    "float_power", "mod", "remainder", "fmod", "arctan2", "hypot", "minimum", "maximum", "fmin",
    "fmax", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor", "left_shift", "right_shift", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "copysign",
)}
NUMPY_UFUNCS.update({"abs": "absolute", "arcsin": "arcsin", "asin": "arcsin", "acos": "arccos",
                     "atan": "arctan", "atan2": "arctan2", "conj": "conjugate"})

# Python operators on arrays -> ufunc.
OPERATOR_UFUNCS = {
    "+": "add", "-": "subtract", "*": "multiply", "/": "true_divide", "//": "floor_divide",
    "%": "remainder", "**": "power", "<<": "left_shift", ">>": "right_shift", "&": "bitwise_and",
    "|": "bitwise_or", "^": "bitwise_xor", "<": "less", "<=": "less_equal", ">": "greater",
    ">=": "greater_equal", "==": "equal", "!=": "not_equal",
}
UNARY_OPERATOR_UFUNCS = {"-": "negative", "+": "positive", "~": "invert", "not": "logical_not"}

# Reductions: np.<f>(a, axis=None) and a.<f>(axis=None).
NUMPY_REDUCTIONS = frozenset({"sum", "prod", "min", "max", "amin", "amax", "mean", "std", "var",
                              "argmin", "argmax", "any", "all", "nansum", "nanmean", "nanmin",
                              "nanmax", "median", "count_nonzero"})
# Allocation from a shape (and a dtype), or like another array.
NUMPY_ALLOCATIONS = frozenset({"empty", "zeros", "ones", "full"})
NUMPY_LIKE = frozenset({"empty_like", "zeros_like", "ones_like", "full_like"})
NUMPY_OTHER = frozenset({
    "arange", "linspace", "eye", "identity", "dot", "vdot", "matmul", "outer", "where", "copy",
    "transpose", "cumsum", "cumprod", "clip", "linalg.norm", "ravel", "reshape", "sort",
    "argsort", "diff", "trace", "isclose", "allclose", "asarray", "ascontiguousarray", "array", "round",
    "around", "empty_like", "concatenate", "stack", "hstack", "vstack", "full_like",
    "triu", "tril", "flip", "fliplr", "flipud", "sinc",
}) | frozenset({"hamming", "hanning", "bartlett", "blackman"})
# Window functions: np.<f>(M), a float64 array of M points (none for M < 1), as Numba computes it.
NUMPY_WINDOWS = frozenset({"hamming", "hanning", "bartlett", "blackman"})
# Order statistics: sorts and the functions of sorted copies (``ORDER_ROUTINES``).
NUMPY_ORDER = frozenset({"percentile", "quantile", "corrcoef"})
# NumPy functions the frontend binds to their parameters in order, every default filled in:
# np.<f>(...) becomes Call("np.<f>", [one argument per parameter]) without keywords.
NUMPY_BOUND = {
    "linalg.solve": (("a", None), ("b", None)), "linalg.inv": (("a", None),),
    "linalg.cholesky": (("a", None),), "histogram": (("a", None), ("bins", 10), ("range", None)),
    "cov": (("m", None), ("y", None), ("rowvar", True), ("bias", False), ("ddof", None)),
    "corrcoef": (("x", None), ("y", None), ("rowvar", True)),
    # Array functions of issue 32; np.convolve's mode is a code of CONVOLVE_MODES.
    "roll": (("a", None), ("shift", None)), "convolve": (("a", None), ("v", None), ("mode", 0)),
    "bincount": (("x", None), ("weights", None), ("minlength", 0)), "diag": (("v", None), ("k", 0)),
    "fill_diagonal": (("a", None), ("val", None), ("wrap", False)), "nonzero": (("a", None),),
    "flatnonzero": (("a", None),),
    # Searches of sorted data; np.searchsorted's side is a code of SEARCH_SIDES.
    "searchsorted": (("a", None), ("v", None), ("side", 0)),
    "digitize": (("x", None), ("bins", None), ("right", False)), "interp": (("x", None), ("xp", None), ("fp", None)),
    "append": (("arr", None), ("values", None), ("axis", None)), "unique": (("ar", None),),
    "kron": (("a", None), ("b", None)),
}
# np.convolve(a, v, mode): the mode strings Numba accepts, as the integer the frontend binds.
CONVOLVE_MODES = {"full": 0, "same": 1, "valid": 2}
# np.searchsorted(a, v, side): the sides Numba accepts, as the integer the frontend binds.
SEARCH_SIDES = {"left": 0, "right": 1}
# String arguments of bound NumPy calls, bound as the integer codes of their table.
NUMPY_STRING_CODES = {("convolve", "mode"): CONVOLVE_MODES, ("searchsorted", "side"): SEARCH_SIDES}
# What ``lower-numpy`` makes of the NumPy functions above: a ``Call(kind="builtin")`` statement
# of a serial host routine (kpc_linalg.hpp) that writes its results into its last arguments,
# arrays allocated just before it: routine -> (the NumPy function it computes, how many results).
# ``histogram_edges`` is np.histogram given an array of bin edges (the edges are returned as given),
# ``cov_xy`` np.cov(m, y). ``bincount_length`` returns np.bincount's result length (and raises
# Numba's ValueErrors) before ``bincount`` fills the result.
# ``matmul`` is ``@``/np.dot with a 2-D operand at a kernel's host level
# (kpc_blas.hpp: BLAS, or a parallel loop nest; ``ta=True``/``tb=True``: that operand's transpose).
HOST_ROUTINES = {"linalg_solve": ("np.linalg.solve", 1), "linalg_inv": ("np.linalg.inv", 1),
                 "linalg_cholesky": ("np.linalg.cholesky", 1), "histogram": ("np.histogram", 2),
                 "histogram_edges": ("np.histogram", 1), "cov": ("np.cov", 1), "cov_xy": ("np.cov", 1),
                 "matmul": ("np.dot", 1), "bincount_length": ("np.bincount", 0), "bincount": ("np.bincount", 1)}
# What ``lower-numpy`` makes of np.sort / np.argsort / np.median / np.percentile / np.quantile: a
# fresh C-contiguous copy, ordered in place by a builtin ``ExprStmt`` that runs in any execution
# space (kpc_order.hpp, inside parallel loops too), then read: routine -> how many of its last
# arguments it writes. ``sort_rows(a)`` sorts each row (the last axis) of ``a``;
# ``argsort(keys, order, stable)`` writes the order of ``keys`` into ``order``.
# The searches of sorted data write the result for each value of a flat 1-D array, in order (as
# Numba, each search starting from the previous one's result): ``searchsorted_values(a, v, out,
# right)``, ``digitize_values(x, bins, out, right)``, ``interp_values(x, xp, fp, out)``.
# ``unique_values(s, out)`` writes the distinct values of the sorted copy ``s`` (NaNs as one).
# The statistics of one flat copy select instead of sorting it (Numba's _select): ``select_median(s)``,
# ``select_quantile(s, q, scale)`` order ``s`` just enough for ``median_sorted`` / ``quantile_sorted``;
# ``quantile_values(q, out, s, scale)`` selects and reads for each q in turn into ``out``.
ORDER_ROUTINES = {"sort_rows": 1, "argsort": 1, "searchsorted_values": 1, "digitize_values": 1, "interp_values": 1,
                  "unique_values": 1, "select_median": 1, "select_quantile": 1, "quantile_values": 2}
# Scalar functions of a sorted float64 copy (read only): ``median_sorted(s)``,
# ``quantile_sorted(s, q, scale)`` (q in [0, 100 / scale], checked); and the searches of one
# value: ``searchsorted(a, v, right)``, ``digitize(x, bins, right)``, ``interp(x, xp, fp)``;
# ``unique_count(s)``, how many distinct values the sorted copy ``s`` holds.
ORDER_READERS = frozenset({"median_sorted", "quantile_sorted", "searchsorted", "digitize", "interp", "unique_count"})
# ``flat_element(a, p)``: the element at C-order position ``p`` of the C-contiguous array ``a``
# (a reshape read without splitting ``p`` into indices; the Kokkos target only).
FLAT_ELEMENT = "flat_element"
# ``value_check(ok, k)``: a run-time check lower-numpy adds where NumPy raises ValueError
# VALUE_ERRORS[k] (``ok`` false); the Kokkos backend raises it once the kernel returns.
# The last four are the reductions of an empty array (EMPTY_REDUCTION_ERRORS), by reduction.
VALUE_ERRORS = ("'a' cannot be empty", "'v' cannot be empty", "slice step cannot be zero",
                "cannot unpack an array whose length is not the number of names",
                "zero-size array to reduction operation minimum which has no identity",
                "zero-size array to reduction operation maximum which has no identity",
                "attempt to get argmin of an empty sequence", "attempt to get argmax of an empty sequence")
EMPTY_REDUCTION_ERRORS = {"min": VALUE_ERRORS[4], "max": VALUE_ERRORS[5], "argmin": VALUE_ERRORS[6],
                          "argmax": VALUE_ERRORS[7]}
NUMPY_FUNCS = frozenset(NUMPY_UFUNCS) | NUMPY_REDUCTIONS | NUMPY_ALLOCATIONS | NUMPY_LIKE | NUMPY_OTHER \
    | frozenset(NUMPY_BOUND) | NUMPY_ORDER

# np.random.<f>: draws from the process-wide generator, ``Call(kind="random")``. Each name
# maps to its parameters in NumPy's order (``size`` last); ``rand``/``randn`` take the
# extents themselves (``np.random.rand(n, m)``).
NUMPY_RANDOM = {
    "seed": ("seed",), "random": ("size",), "random_sample": ("size",), "rand": None,
    "uniform": ("low", "high", "size"), "normal": ("loc", "scale", "size"),
    "standard_normal": ("size",), "randn": None, "randint": ("low", "high", "size"),
}
# random.<f>(...) of Python's random module -> (the np.random function of the same distribution,
# how many arguments Numba takes): kpc draws both from one set of Kokkos streams (Numba keeps two
# generators; kpc's streams differ from Numba's in any case).
PYTHON_RANDOM = {"random": ("random", 0), "uniform": ("uniform", 2), "gauss": ("normal", 2),
                 "normalvariate": ("normal", 2), "randint": ("randint", 2), "seed": ("seed", 1)}

# Array methods a.<m>(...), spelled ".m" in Call.func with the array as first argument.
ARRAY_METHODS = frozenset({
    "sum", "prod", "min", "max", "mean", "std", "var", "argmin", "argmax", "any", "all",
    "copy", "reshape", "ravel", "flatten", "astype", "fill", "transpose", "cumsum", "cumprod",
    "dot", "clip", "sort", "argsort", "item",
})
ARRAY_ATTRIBUTES = frozenset({"shape", "size", "ndim", "T", "dtype"})
# cmath functions of one complex number -> the NumPy function of a complex128 that computes them.
CMATH_FUNCS = {name: name for name in ("exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh")}
CMATH_FUNCS.update({"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
                    "atanh": "arctanh"})
# Those Numba implements for complex arguments only (cmath.phase(1.0) does not compile).
CMATH_COMPLEX_ONLY = frozenset({"sinh", "cosh", "tanh", "acosh", "phase"})

# Parts of a complex (or real) scalar, and its conjugate as a method (``z.conjugate()``).
COMPLEX_ATTRIBUTES = frozenset({"real", "imag"})
COMPLEX_METHODS = frozenset({"conjugate", "conj"})
