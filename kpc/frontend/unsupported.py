"""The catalogue of constructs kpc does not translate: the name a diagnostic gives each, and the hint.

A rejected construct keeps its function as Numba in the output module (or stops
``--strict`` builds). The names are what users see after "unsupported construct";
the hints say what to write instead.
"""

from __future__ import annotations

HINTS = {
    "class": "kernels work on scalars, tuples and NumPy arrays; pass an object's fields as arguments",
    "list": "a list of numbers or tuples built in the kernel translates when it is only appended to, popped, "
            "sorted, iterated, tested, measured with len() and turned into an array with np.array(); otherwise use a "
            "NumPy array (np.empty(n), np.zeros(n)) or a tuple of a few fixed values",
    "dict": "use NumPy arrays indexed by integers instead of a dict",
    "set": "use a boolean NumPy array as a membership mask instead of a set",
    "string": "kernels compute on numbers; move string handling to the Python caller",
    "bytes": "kernels compute on numbers; move bytes handling to the Python caller",
    "f-string": "move formatting and printing to the Python caller",
    "raise": "raise a builtin exception class with at most one string constant: raise ValueError(\"text\")",
    "try": "kernels cannot catch exceptions; check the condition before the operation",
    "with": "remove the with block (Numba's objmode/parallel contexts are not translated)",
    "generator": "write the values into an output array instead of yielding them",
    "await": "kernels are synchronous; remove await",
    "async": "kernels are synchronous; remove async",
    "lambda": "write the lambda as a separate @njit function at module level",
    "nested function": "move the inner function to module level and decorate it with @njit",
    "global statement": "pass the value as an argument and return the new value",
    "nonlocal statement": "pass the value as an argument and return the new value",
    "recursion": "rewrite the recursion as a loop (with an explicit stack array if needed)",
    "print": "remove print from the kernel or move it to the Python caller",
    "call to a non-jitted function": "decorate the function with @njit, or call it from the Python caller",
    "call into another library": "kernels may call math, NumPy and @njit functions of this module only",
    "call to a Python builtin": "kernels may call abs, min, max, len, round, int, float and bool",
    "call of a local variable": "call @njit functions by their module-level name",
    "first-class function": "call @njit functions directly; functions cannot be stored or passed",
    "list comprehension": "allocate the result with np.empty(n) and fill it in a for loop",
    "set comprehension": "use a boolean NumPy array as a mask filled in a for loop",
    "dict comprehension": "use NumPy arrays filled in a for loop",
    "generator expression": "accumulate in a for loop (e.g. total += a[i])",
    "del": "remove the del statement (arrays are freed when unused)",
    "assert": "return an error flag and check it in the Python caller",
    "import in a kernel": "move the import to the top of the module",
    "star-args": "pass the arguments one by one",
    "**kwargs": "pass the arguments one by one",
    "keyword-only parameter": "make the parameter an ordinary positional parameter",
    "non-constant default": "use a number, True/False or None as the default value",
    "is operator": "compare values with == (kernels have no object identity)",
    "in operator": "test membership with explicit comparisons or a loop",
    "walrus": "assign the value in its own statement before using it",
    "match": "use if/elif/else",
    "object mode": "remove forceobj=True: only nopython kernels are translated",
    "iteration over a non-array": "loop over range(...), an array, enumerate(array) or zip(array, ...)",
    "tuple loop target": "unpack only enumerate(a), zip(a, b) or the rows of a tuple of constant tuples "
                         "(for di, dj in ((0, 1), (1, 0))); otherwise loop over an index and unpack inside the body",
    "range outside a for loop": "range/prange are only allowed as the iterable of a for loop",
    "ellipsis": "write the indices out: a[i, :, :] instead of a[i, ...]",
    "starred expression": "unpack into a fixed number of names",
    "starred assignment target": "name every element (x, y, z = t), or index the rest (first = t[0]; rest = a[1:])",
    "attribute assignment": "kernels cannot set attributes; assign array elements instead",
    "attribute": "kernels may use .shape, .size, .ndim, .T and .dtype of arrays, .real and .imag of numbers",
    "math function": "use another math function or write the formula out",
    "NumPy function": "write the operation as explicit loops",
    "array method": "write the operation as explicit loops or with a supported NumPy function",
    "undefined name": "define the name at module level as a number, or pass it as an argument",
    "module-level variable": "pass the value as an argument (only numeric module constants are frozen)",
    "decorator": "kpc translates functions decorated only with @njit/@jit",
    "numba decorator": "only @njit, @jit(nopython=True), @vectorize and @stencil functions are translated",
    "stencil": "index the stencil's arrays with constant relative indices, or give neighborhood=",
    "ufunc target": "use target='cpu' or target='parallel'",
    "decorator option": "use a constant (True/False, a number or a string) for the option",
    "eager signature": "write the signature as Numba does, e.g. 'f8(f8[:, :], i8)'",
    "keyword argument": "pass the argument positionally",
    "sort kind": "write kind='quicksort' (the default), 'mergesort' or 'stable' in the call, as Numba takes it",
    "call": "call functions by name",
    "syntax": "fix the syntax error",
    "complex slicing": "index with integers, slices and np.newaxis",
    "annotation": "remove the annotation",
}


def hint(construct: str) -> str:
    """The hint for ``construct`` (empty if the catalogue has none)."""
    return HINTS.get(construct, "")
