"""The NumPy functions that element lowering knows, by kind (ufuncs, reductions, allocations), and their short names.

>>> short_name("np.sqrt"), short_name(".sum"), REDUCTIONS["amax"]
('sqrt', 'sum', 'max')
"""

from __future__ import annotations

# NumPy ufuncs applied per element as a scalar math intrinsic: ``Call(kind="math",
# func="np.<ufunc>")``, the frontend's spelling of a NumPy ufunc on scalars.
MATH_UFUNCS = {
    "sqrt", "cbrt", "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "arctan2",
    "hypot", "fabs", "floor", "ceil", "trunc", "copysign", "isnan", "isinf", "isfinite", "fmod", "rint",
}
# np.round/np.around: rint of x scaled by 10**decimals (``rounding``).
ROUNDING = {"round", "around"}
# Element-wise ufuncs that are operators on scalars.
BINARY_UFUNCS = {
    "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/",
    "floor_divide": "//", "mod": "%", "remainder": "%", "power": "**", "pow": "**",
    "float_power": "**", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
    "left_shift": "<<", "right_shift": ">>",
}
COMPARE_UFUNCS = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
                  "equal": "==", "not_equal": "!="}
REDUCTIONS = {"sum": "sum", "prod": "prod", "product": "prod", "min": "min", "amin": "min",
              "max": "max", "amax": "max", "mean": "mean", "any": "any", "all": "all",
              "count_nonzero": "count", "var": "var", "std": "std", "argmin": "argmin",
              "argmax": "argmax"}
ALLOCATIONS = {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
               "full_like", "arange", "linspace", "eye", "identity", "hamming", "hanning", "bartlett",
               "blackman"}


def short_name(func: str) -> str:
    """``np.sqrt`` / ``numpy.sqrt`` / ``math.sqrt`` / ``.sum`` -> ``sqrt`` / ``sum``."""
    for prefix in ("numpy.", "np.", "math.", "."):
        if func.startswith(prefix):
            return func[len(prefix):]
    return func
