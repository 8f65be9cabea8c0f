"""Concrete, deterministic arguments for a corpus kernel case.

``make_inputs(case, dtype, sizes, layout)`` draws every argument once from a
``numpy.random.default_rng`` seeded by the kernel name, dtype and sizes (not
the layout: the C, F and strided variants of a case hold the same values), and
hands out fresh copies on every ``args()`` call, so that kernels that write
their arguments can be run once per implementation and compared:

>>> from kpc.check.spec import ArrayParam, KernelCase
>>> case = KernelCase(path=None, kernel="total", params=(ArrayParam("x", ("n",)),),
...                   sizes=({"n": 3},), layouts=("C", "strided"))
>>> inputs = make_inputs(case, "float64", {"n": 3}, "strided")
>>> x, = inputs.args()
>>> x.shape, x.strides, x.flags.c_contiguous
((3,), (16,), False)

Layouts of the array arguments:

``"C"``       row-major, contiguous.
``"F"``       column-major (``np.asfortranarray``); 1-D arrays stay as they are.
``"strided"`` a view with step 2 along the last axis of a buffer twice as
              wide (``buf[..., ::2]``); the skipped elements hold a sentinel
              (NaN for floats), so reading them shows in the results and
              writing them is caught by ``KernelInputs.call``.
"""

from __future__ import annotations

import copy
import itertools
import math
import zlib
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping

import numpy as np

from kpc.check.compare import Outcome
from kpc.check.spec import IndexParam, KernelCase, ScalarParam, eval_size

_INT_SENTINEL = -(2**31) + 7


@dataclass(frozen=True)
class Variant:
    """One way to run a case: a dtype, a size assignment and a layout."""

    dtype: str
    sizes: Mapping[str, int]
    layout: str

    @property
    def label(self) -> str:
        sizes = ",".join(f"{k}={v}" for k, v in self.sizes.items())
        return f"{self.dtype}-{sizes}-{self.layout}"


def variants(case: KernelCase) -> Iterator[Variant]:
    """Every (dtype, sizes, layout) combination the case declares."""
    for dtype, sizes, layout in itertools.product(case.dtypes, case.sizes, case.layouts):
        yield Variant(dtype, sizes, layout)


@dataclass(frozen=True)
class KernelInputs:
    """The arguments of one run; ``args()`` returns fresh copies each time."""

    case: KernelCase
    variant: Variant
    values: tuple[object, ...]

    def args(self) -> tuple[object, ...]:
        """New argument objects, laid out as ``variant.layout`` says."""
        return tuple(_materialize(v, self.variant.layout) for v in self.values)

    def call(self, func: Callable[..., object]) -> Outcome:
        """Call ``func`` on fresh arguments and record what it returned and wrote.

        Stray writes (to arrays not listed in ``writes``, or to the skipped
        elements of a strided buffer) are recorded in ``Outcome.stray_writes``.
        """
        args = self.args()
        returned = func(*args)
        returned = copy.deepcopy(returned)
        written = {}
        stray = []
        for param, arg, pristine in zip(self.case.params, args, self.values):
            if isinstance(param, ScalarParam):
                continue
            if param.name in self.case.writes:
                written[param.name] = np.array(arg, copy=True)
            elif not _same(arg, pristine):
                stray.append(f"{param.name} (not declared in writes)")
            if self.variant.layout == "strided" and not _padding_intact(arg):
                stray.append(f"{param.name} (outside the strided view)")
        return Outcome(returned=returned, written=written, stray_writes=tuple(stray))

    def outcome(self, func: Callable[..., object]) -> Outcome:
        """``call(func)``, with an exception it raises recorded in ``Outcome.raised`` instead of
        propagated: kernels that raise (``ZeroDivisionError``, broadcasting's ``ValueError``) are
        compared by the exception's type."""
        try:
            return self.call(func)
        except Exception as error:
            return Outcome(returned=None, raised=f"{type(error).__name__}: {error}")

    def magnitude(self) -> float:
        """Largest finite absolute value among the float arguments (0.0 if none)."""
        largest = 0.0
        for value in self.values:
            arr = np.asarray(value)
            if arr.dtype.kind == "f" and arr.size:
                finite = np.abs(arr[np.isfinite(arr)])
                if finite.size:
                    largest = max(largest, float(finite.max()))
        return largest


def make_inputs(
    case: KernelCase, dtype: str, sizes: Mapping[str, int], layout: str = "C", seed: int = 0
) -> KernelInputs:
    """Draw the arguments of ``case`` for one dtype, size assignment and layout."""
    if dtype not in case.dtypes:
        raise ValueError(f"{case.kernel}: dtype {dtype!r} is not among the case's dtypes {list(case.dtypes)}")
    if layout not in case.layouts:
        raise ValueError(f"{case.kernel}: layout {layout!r} is not among the case's layouts {list(case.layouts)}")
    key = f"{case.kernel}|{dtype}|{sorted(sizes.items())}|{seed}"
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    values = tuple(_draw(param, dtype, sizes, rng) for param in case.params)
    return KernelInputs(case=case, variant=Variant(dtype, dict(sizes), layout), values=values)


def _draw(param, case_dtype: str, sizes: Mapping[str, int], rng: np.random.Generator) -> object:
    if isinstance(param, ScalarParam):
        value = param.value
        if isinstance(value, str):
            value = eval_size(value, sizes)
        if param.dtype is None:
            return value
        dtype = case_dtype if param.dtype == "case" else param.dtype
        return np.dtype(dtype).type(value)

    shape = tuple(eval_size(d, sizes) for d in param.shape)
    if isinstance(param, IndexParam):
        low, high = eval_size(param.low, sizes), eval_size(param.high, sizes)
        if math.prod(shape) == 0:
            return np.zeros(shape, dtype=param.dtype)
        return rng.integers(low, high, size=shape).astype(param.dtype)

    dtype = np.dtype(case_dtype if param.dtype == "case" else param.dtype)
    if param.values == "lattice":
        return _lattice(shape, param.spacing, rng).astype(dtype)
    if dtype.kind == "b":
        arr = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        low = -9 if param.low is None else math.ceil(param.low)
        high = 10 if param.high is None else math.ceil(param.high)
        if dtype.kind == "u":
            low = max(low, 0)
        arr = rng.integers(low, max(high, low + 1), size=shape).astype(dtype)
    else:
        low = -1.0 if param.low is None else param.low
        high = 1.0 if param.high is None else param.high
        arr = rng.uniform(low, high, size=shape)
        if dtype.kind == "c":
            arr = arr + 1j * rng.uniform(low, high, size=shape)
        arr = arr.astype(dtype)
    if param.values == "sorted":
        arr = np.sort(arr, axis=-1)
    if param.values == "nan" and dtype.kind in "fc" and arr.size:
        # About one element in eight is NaN, the first one among them whenever there are
        # several: NaN rules differ by position (``max(nan, x)`` is not ``max(x, nan)``).
        arr[rng.random(shape) < 0.125] = np.nan
        if arr.size > 1:
            arr.flat[0] = np.nan
    return arr


def _lattice(shape: tuple[int, ...], spacing: float, rng: np.random.Generator) -> np.ndarray:
    """``n`` points in ``d`` dimensions on a cubic lattice, each jittered by up to 10%."""
    n, d = shape
    side = max(1, math.ceil(n ** (1.0 / d))) if n else 1
    while side**d < n:
        side += 1
    cells = rng.permutation(side**d)[:n]
    grid = np.stack(np.unravel_index(cells, (side,) * d), axis=1).astype(np.float64)
    jitter = rng.uniform(-0.1, 0.1, size=(n, d))
    return (grid + jitter) * spacing


def _materialize(value: object, layout: str) -> object:
    if not isinstance(value, np.ndarray):
        return value
    if layout == "F":
        return np.array(value, order="F", copy=True)
    if layout == "strided":
        buf_shape = value.shape[:-1] + (2 * value.shape[-1],)
        buf = np.empty(buf_shape, dtype=value.dtype)
        buf[...] = _sentinel(value.dtype)
        view = buf[..., ::2]
        view[...] = value
        return view
    return np.array(value, order="C", copy=True)


def _sentinel(dtype: np.dtype) -> object:
    if dtype.kind == "f":
        return np.nan
    if dtype.kind == "c":
        return complex(np.nan, np.nan)
    if dtype.kind == "b":
        return True
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    return max(_INT_SENTINEL, np.iinfo(dtype).min)


def _padding_intact(arr: object) -> bool:
    if not isinstance(arr, np.ndarray) or arr.base is None or arr.ndim == 0:
        return True
    buf = arr.base
    if buf.shape[-1:] != (2 * arr.shape[-1],):
        return True
    gaps = buf[..., 1::2]
    sentinel = _sentinel(arr.dtype)
    if arr.dtype.kind in "fc":
        return bool(np.isnan(gaps).all())
    return bool((gaps == sentinel).all())


def _same(a: object, b: object) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
