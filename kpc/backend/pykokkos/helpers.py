"""Fixed code the emitter adds to a module only when it is used.

- ``@pk.function`` helpers with Python's floor semantics for ``//`` and ``%``:
  upstream emits C's truncating ``/`` and ``%`` and casts ``//`` to a 32-bit ``int``
  (PYKOKKOS_CONTRACT.md §12). The integer quotient goes through a ``double``
  division of an exact multiple, which is exact below 2**53 (a 32-bit cast is not
  an option for int64 values).
- host helpers of the callers: argument checks/conversion and the write-back, in two
  versions: host spaces wrap NumPy arrays zero-copy; the Cuda space passes CuPy arrays,
  because upstream does not move NumPy arrays to the device (PYKOKKOS_CONTRACT.md §4).
- the fork guard of every module that imports PyKokkos (``PROCESS_GUARD``): upstream
  initializes Kokkos at import, and a child forked after that would wait forever for
  OpenMP threads that do not exist in it; each caller checks the process first.
"""

from __future__ import annotations

from .device_expressions import FLOORDIV_FLOAT, FLOORDIV_INT, MOD_FLOAT, MOD_INT
from .model import FunctionModel

_INT_REMAINDER = [
    (0, "r: pk.int64 = a % b"),
    (0, "if r != 0 and (r < 0) != (b < 0):"),
    (1, "r += b"),
]

DEVICE_HELPERS = {
    MOD_INT: FunctionModel(
        MOD_INT, ["a: pk.int64", "b: pk.int64"], "pk.int64",
        _INT_REMAINDER + [(0, "return r")],
        ["Python's a % b for integers: the remainder takes the sign of b (C's takes the sign of a)"],
    ),
    FLOORDIV_INT: FunctionModel(
        FLOORDIV_INT, ["a: pk.int64", "b: pk.int64"], "pk.int64",
        _INT_REMAINDER + [(0, "q: pk.int64 = (a - r) / b"), (0, "return q")],
        ["Python's a // b for integers: rounds toward -inf (C truncates; upstream also casts // to int32);",
         "a - r is an exact multiple of b, so the double division is exact below 2**53"],
    ),
    MOD_FLOAT: FunctionModel(
        MOD_FLOAT, ["a: pk.double", "b: pk.double"], "pk.double",
        [
            (0, "r: pk.double = math.fmod(a, b)"),
            (0, "if r != 0.0:"),
            (1, "if (r < 0.0) != (b < 0.0):"),
            (2, "r += b"),
            (0, "else:"),
            (1, "r = math.copysign(0.0, b)"),
            (0, "return r"),
        ],
        ["Python's a % b for floats (CPython float_rem, which Numba follows); C's % does not compile for doubles"],
    ),
    FLOORDIV_FLOAT: FunctionModel(
        FLOORDIV_FLOAT, ["a: pk.double", "b: pk.double"], "pk.double",
        [
            (0, "r: pk.double = math.fmod(a, b)"),
            (0, "q: pk.double = (a - r) / b"),
            (0, "result: pk.double = 0.0"),
            (0, "if r != 0.0 and (r < 0.0) != (b < 0.0):"),
            (1, "q -= 1.0"),
            (0, "if q != 0.0:"),
            (1, "result = math.floor(q)"),
            (1, "if q - result > 0.5:"),
            (2, "result += 1.0"),
            (0, "else:"),
            (1, "result = math.copysign(0.0, a / b)"),
            (0, "return result"),
        ],
        ["Python's a // b for floats (CPython float_floor_div, which Numba follows): 1.0 // 0.1 == 9.0"],
    ),
}

CHECK_PROCESS = "_check_process"
KOKKOS_PID = "_kokkos_pid"

# The generated module stands alone (kpc may not be installed where it runs): it carries its own
# message, worded as kpc.runtime.kokkos_session.FORKED_CHILD_MESSAGE (the Kokkos C++ target's).
PROCESS_GUARD = f'''# Upstream PyKokkos initializes Kokkos when it is imported: remember which process did, on the
# pykokkos module itself, so that a module imported later in a forked child sees it too.
{KOKKOS_PID} = vars(pk).setdefault("_kpc_kokkos_pid", os.getpid())


def {CHECK_PROCESS}():
    """Raise RuntimeError, before any PyKokkos call, in a process forked after Kokkos started.

    Kokkos' OpenMP threads (and a CUDA context) do not survive fork(): a kernel called in the
    child would wait for them forever. Where kpc is installed the error is its ``ForkedChild``,
    which kpc's Kokkos C++ target raises in the same case.
    """
    if os.getpid() != {KOKKOS_PID}:
        try:
            from kpc.runtime.kokkos_session import ForkedChild as error
        except ImportError:
            error = RuntimeError
        raise error(
            "kpc: this process was forked from one that had imported PyKokkos, which initializes "
            "Kokkos at import, and Kokkos (its OpenMP threads, a CUDA context) does not survive "
            "fork(); start worker processes with the 'spawn' or 'forkserver' method instead "
            "(multiprocessing.get_context('spawn'), or "
            "concurrent.futures.ProcessPoolExecutor(mp_context=...))"
        )'''

AS_VIEW = "_as_view"
WRITE_BACK = "_write_back"
PASSED_CUPY = "_passed_cupy"
RETURNED = "_returned"
READ = "_read"
BROADCAST = "_broadcast"
VALUE_CHECK = "_value_check"
WITH_ADDRESS = "_with_address"
ON_HOST = "_on_host"

# lower-numpy's broadcast check of an array expression, run on the host in either space.
BROADCAST_HELPER = f'''def {BROADCAST}(target, *shapes):
    """NumPy's check of an element-wise expression: ValueError when the operands' shapes do not
    broadcast together or, for a store (``target`` not None), into the stored shape.

    A slice's computed extent below 0 (``x[2:]`` of a 1-element axis) is an empty axis.
    """
    shapes = [tuple(max(extent, 0) for extent in shape) for shape in shapes]
    result = np.broadcast_shapes(*shapes)
    if target is not None:
        np.broadcast_to(np.broadcast_to(np.empty(()), result), tuple(max(extent, 0) for extent in target))'''

# lower-numpy's value_check(ok, k): NumPy's ValueError VALUE_ERRORS[k], raised by host code.
VALUE_CHECK_HELPER = f'''def {VALUE_CHECK}(ok, message):
    """Raise NumPy's ValueError ``message`` where ``ok`` is false (an empty array's min, ...)."""
    if not ok:
        raise ValueError(message)'''

HOST_HELPERS = {
    AS_VIEW: f'''def {AS_VIEW}(name, array, dtype, ndim):
    """``array`` as upstream PyKokkos can take it: C-contiguous, of the dtype this module was built for.

    Upstream ignores strides (a non-contiguous array is silently mis-indexed) and
    copies bool arrays, so such arguments travel as C-contiguous copies.
    """
    if not isinstance(array, np.ndarray) or array.dtype != dtype or array.ndim != ndim:
        got = f"{{array.ndim}}-d {{array.dtype}} array" if isinstance(array, np.ndarray) else type(array).__name__
        raise TypeError(
            f"{{name}}: this module was built for a {{ndim}}-d {{np.dtype(dtype).name}} array, got a {{got}}; "
            "rebuild it with kpc for other types"
        )
    return np.ascontiguousarray(array)''',
    WRITE_BACK: f'''def {WRITE_BACK}(original, used):
    """Copy what the kernel wrote into a converted argument back into the caller's array."""
    if used is not original:
        original[...] = used''',
    BROADCAST: BROADCAST_HELPER,
    VALUE_CHECK: VALUE_CHECK_HELPER,
}


CUDA_HOST_HELPERS = {
    AS_VIEW: f'''def {AS_VIEW}(name, array, dtype, ndim):
    """``array`` as upstream PyKokkos takes it in the Cuda space: a C-contiguous CuPy array of the built dtype.

    Upstream does not move NumPy arrays to the device and ignores strides, so a NumPy
    argument travels as a device copy, and so does a non-contiguous CuPy argument; a
    C-contiguous CuPy argument is used in place (zero copy).
    """
    if not isinstance(array, (np.ndarray, cp.ndarray)) or array.dtype != dtype or array.ndim != ndim:
        got = f"{{array.ndim}}-d {{array.dtype}} array" if hasattr(array, "ndim") else type(array).__name__
        raise TypeError(
            f"{{name}}: this module was built for a {{ndim}}-d {{np.dtype(dtype).name}} array (NumPy or CuPy), "
            f"got a {{got}}; rebuild it with kpc for other types"
        )
    if isinstance(array, cp.ndarray) and array.flags.c_contiguous:
        return {WITH_ADDRESS}(array)
    return {WITH_ADDRESS}(cp.ascontiguousarray(cp.asarray(array)))''',
    WITH_ADDRESS: f'''def {WITH_ADDRESS}(array):
    """``array``; an empty one with no device address becomes a view of its shape into a 1-element
    allocation.

    Upstream PyKokkos reads a CuPy array's device pointer through ctypes
    (``pykokkos.interface.views.from_array``), which raises "ValueError: NULL pointer access"
    for the null pointer CuPy gives empty arrays; a kernel over an empty axis runs no iteration.
    """
    if array.size or array.data.ptr:
        return array
    return cp.empty(1, dtype=array.dtype)[:0].reshape(array.shape)''',
    ON_HOST: f'''def {ON_HOST}(kernel):
    """A kernel kept as Numba, taking CuPy arrays too: Numba reads only host memory, so CuPy
    arguments travel as NumPy copies, each is copied back after the call (what the kernel wrote
    into it), and array results are CuPy arrays when any argument was.

    Unlike a call on NumPy arrays, a returned argument comes back as a new CuPy array, and one
    CuPy array passed twice becomes two host copies (a write through one is not seen through
    the other).
    """
    def on_host(*args, **kwargs):
        on_device = any(isinstance(a, cp.ndarray) for a in (*args, *kwargs.values()))
        if not on_device:
            return kernel(*args, **kwargs)
        host_args = [a.get() if isinstance(a, cp.ndarray) else a for a in args]
        host_kwargs = {{k: v.get() if isinstance(v, cp.ndarray) else v for k, v in kwargs.items()}}
        try:
            result = kernel(*host_args, **host_kwargs)
        finally:
            for a, h in [*zip(args, host_args), *((kwargs[k], host_kwargs[k]) for k in kwargs)]:
                if isinstance(a, cp.ndarray):
                    a[...] = cp.asarray(h)
        if isinstance(result, np.ndarray):
            return cp.asarray(result)
        if isinstance(result, tuple):
            return tuple(cp.asarray(r) if isinstance(r, np.ndarray) else r for r in result)
        return result

    on_host.__name__, on_host.__qualname__, on_host.__doc__ = kernel.__name__, kernel.__name__, kernel.__doc__
    on_host.__wrapped__ = kernel
    return on_host''',
    WRITE_BACK: f'''def {WRITE_BACK}(original, used):
    """Copy what the kernel wrote into a converted argument back into the caller's array (NumPy or CuPy)."""
    if used is not original:
        original[...] = used.get() if isinstance(original, np.ndarray) else used''',
    PASSED_CUPY: f'''def {PASSED_CUPY}(*arrays):
    """Whether the caller passed any CuPy array: array results then stay on the device."""
    return any(isinstance(array, cp.ndarray) for array in arrays)''',
    RETURNED: f'''def {RETURNED}(array, on_device):
    """An array result as the caller passed its arrays: CuPy if any was CuPy, else NumPy."""
    return array if on_device else cp.asnumpy(array)''',
    READ: f'''def {READ}(element):
    """An element of a device array read by serial host code, as the NumPy scalar Numba's code sees."""
    return element.get()[()]''',
    BROADCAST: BROADCAST_HELPER,
    VALUE_CHECK: VALUE_CHECK_HELPER,
}

CUPY_IMPORT = '''try:
    import cupy as cp
except ImportError as error:
    raise ImportError(
        "this module was built by kpc for the PyKokkos Cuda space, where arguments travel as CuPy "
        "arrays: it needs the cupy package (CuPy for your CUDA version)"
    ) from error'''
