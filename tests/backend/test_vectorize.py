"""``@vectorize`` ufuncs of ``tests/corpus/ufunc_vectorize.py`` through the drop-in module against Numba's:
broadcasting shapes, ``out=`` (given, of another dtype, a 1-tuple), the loop NumPy picks for each
dtype mix, new loops of a ufunc without signatures, strided views and the methods Numba's ufunc
keeps (``reduce``). ``KPC_STRICT=1``: every call runs kpc's kernels, none falls back to Numba."""

from __future__ import annotations

import contextlib
import itertools
from pathlib import Path

import numpy as np
import pytest

from corpus_dropin import assert_same, dropin_and_numba
from kpc.runtime.ufunc import LoopTable, _kind

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "ufunc_vectorize.py"
rng = np.random.default_rng(7)


def positive(*shape, dtype=np.float64):
    return rng.uniform(1.0, 2.0, shape).astype(dtype)


CALLS = [
    ("rel_diff", (positive(6, 5), positive(5))),                        # a row against a matrix
    ("rel_diff", (positive(6, 1), positive(5))),                        # a column against a row
    ("rel_diff", (positive(2, 3, 4), 1.5)),                             # a Python float and a 3-D array
    ("rel_diff", (positive(4, 6)[:, ::2], positive(3, 8)[:, ::2].T)),    # strided views
    ("rel_diff", (positive(7, dtype=np.float32), positive(7, dtype=np.float32))),
    ("rel_diff", (positive(7, dtype=np.float32), 2.0)),                 # float32 loop (NEP 50)
    ("rel_diff", (np.arange(1, 8), np.arange(2, 9))),                   # int64 -> the float64 loop
    ("rel_diff", (np.arange(1, 8, dtype=np.int8), 2.5)),
    ("rel_diff", (2.0, 3.0)),                                           # scalars give a NumPy scalar
    ("rel_diff", (np.float32(2.0), np.float32(3.0))),
    ("rel_diff", (np.array(2.0), positive(3))),                         # a 0-d array
    ("rel_diff", ([1.0, 2.0, 3.0], positive(3))),                       # a list
    ("rel_diff", (np.ma.masked_array(positive(3), mask=[0, 1, 0]), positive(3))),  # subclasses: NumPy's
    ("rel_diff", (positive(3), np.matrix(positive(1, 3)))),
    ("smooth_step", (rng.uniform(-1, 1, (5, 4)), -0.5, 0.5)),
    ("smooth_step", (rng.uniform(-1, 1, (5, 4)).astype(np.float32), np.float32(-0.5), np.float32(0.5))),
    ("smooth_step", (rng.uniform(-1, 1, (3, 4, 5)), np.zeros((4, 1)) - 0.5, 0.5)),
    ("gauss", (rng.uniform(-1, 1, 9), 0.0, 1.0)),
    ("gauss", (np.arange(9), 2, 3)),                                    # a new loop: int64 inputs
    ("gauss", (rng.uniform(-1, 1, 9).astype(np.float32), np.float32(0), np.float32(1))),
    ("gauss", (0.5, 0.0, 1.0)),
    ("clip_add", (np.arange(90), np.arange(90))),
    ("clip_add", (np.arange(90.0), 20)),
    ("clip_add", (np.arange(5, dtype=np.int32), np.arange(5, dtype=np.int32))),
    # zero divisors: Numba's ufuncs follow NumPy (error_model='numpy'), 0 for integers, inf/nan for floats
    ("split_units", (np.array([7, -7, 5, 0]), np.array([2, 2, 0, 0]))),
    ("split_units", (np.array([7.5, -7.5, 5.0, 0.0]), np.array([2.0, 2.0, 0.0, 0.0]))),
    ("split_units", (5, 0)),
    ("rel_diff_cpu", (np.array([1.0, 2.0]), np.array([-1.0, 1.0]))),     # x + y == 0: inf
]


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    yield from dropin_and_numba(CORPUS, tmp_path_factory.mktemp("vectorize"))


@pytest.mark.compile
@pytest.mark.parametrize("name,args", CALLS, ids=[f"{n}-{k}" for k, (n, _) in enumerate(CALLS)])
def test_call_matches_numba(modules, name, args):
    dropin, numba_module = modules
    with np.errstate(all="ignore"):  # Numba's ufunc warns of a zero divisor (NumPy's floating-point flags)
        assert_same(getattr(dropin, name)(*args), getattr(numba_module, name)(*args))


@pytest.mark.compile
def test_repeated_calls_take_their_plan_and_match_numba(modules):
    """A call like one before (arrays of the same dtypes, ranks and flags, numbers of the same
    classes) runs the compiled loop straight from its plan while its arrays have one shape; a
    call of the same key whose arrays broadcast, or do not, takes the long way (NumPy's rules)."""
    dropin, numba_module = modules
    for name, args, again, other in [
            ("smooth_step", (rng.uniform(-1, 1, (5, 4)), -0.5, 0.5), (rng.uniform(-1, 1, (7, 3)), -0.25, 0.5),
             None),
            ("rel_diff", (positive(2, 3, 4), positive(2, 3, 4)), (positive(3, 3, 2), positive(3, 3, 2)),
             (positive(2, 3, 4), positive(2, 2, 4))),                    # same key, broadcast: (2, 3, 4) against (2, 2, 4) fails
            ("clip_add", (np.arange(6), np.arange(6)), (np.arange(9), np.arange(9)), None)]:
        ufunc = getattr(dropin, name)
        assert_same(ufunc(*args), getattr(numba_module, name)(*args))
        calls = []
        planned = ufunc._call
        ufunc._call = lambda *a, planned=planned: calls.append(1) or planned(*a)
        assert_same(ufunc(*again), getattr(numba_module, name)(*again))
        assert len(calls) == 1, name
        if other is not None:
            with pytest.raises(ValueError):
                ufunc(*other)
    x, row = positive(2, 3, 4), positive(2, 1, 4)                       # the plan's key, broadcast
    assert_same(dropin.rel_diff(x, row), numba_module.rel_diff(x, row))
    x = rng.uniform(-1, 1, (4, 4))
    assert_same(dropin.smooth_step(x, -1, 1), numba_module.smooth_step(x, -1, 1))  # ints cast: no plan taken
    assert_same(dropin.smooth_step(x, -1, 1), numba_module.smooth_step(x, -1, 1))


@pytest.mark.compile
def test_out_is_written_and_returned_as_numba_does(modules):
    dropin, numba_module = modules
    x, row = positive(6, 5), positive(5)
    for out_dtype in (np.float64, np.float32):
        out, expected = np.empty((6, 5), out_dtype), np.empty((6, 5), out_dtype)
        assert dropin.rel_diff(x, row, out=out) is out
        numba_module.rel_diff(x, row, out=expected)
        assert_same(out, expected)
    out = np.zeros((8, 5))[::2]                                        # a strided output
    assert dropin.rel_diff(x[:4], row, out=(out,)) is out
    assert_same(out, numba_module.rel_diff(x[:4], row))
    with pytest.raises(ValueError):                                     # NumPy's broadcasting error
        dropin.rel_diff(x, row, out=np.empty(5))
    with pytest.raises(TypeError):                                      # float64 into int64: not same_kind
        dropin.rel_diff(x, row, out=np.empty((6, 5), np.int64))
    with pytest.raises(TypeError):                                      # no loop takes complex numbers
        dropin.rel_diff(x + 0j, row)


@pytest.mark.compile
def test_ufunc_attributes_come_from_numbas_ufunc(modules):
    dropin, numba_module = modules
    assert dropin.rel_diff.nin == 2 and dropin.rel_diff.nout == 1
    assert dropin.rel_diff.types == numba_module.rel_diff.types
    x = np.arange(1.0, 9.0)
    assert dropin.rel_diff_cpu.reduce(x) == numba_module.rel_diff_cpu.reduce(x)
    assert_same(dropin.rel_diff_cpu.outer(x[:3], x[:4]), numba_module.rel_diff_cpu.outer(x[:3], x[:4]))
    # other keywords are Numba's ufunc's own call (its where= raises in Numba 0.68: so does kpc's)
    outcomes = []
    for ufunc in (dropin.rel_diff_cpu, numba_module.rel_diff_cpu):
        try:
            outcomes.append(ufunc(x, 2.0, where=x > 3, out=np.zeros(8)))
        except Exception as error:  # noqa: BLE001 - whatever Numba raises, kpc must raise
            outcomes.append(type(error))
    if isinstance(outcomes[1], type):
        assert outcomes[0] is outcomes[1]
    else:
        assert_same(*outcomes)


@pytest.mark.compile
def test_a_kernel_calling_ufuncs_translates(modules):
    dropin, numba_module = modules
    x, y = positive(33, 17), positive(17)
    assert_same(dropin.scaled_rel_diff(x, y, 0.5), numba_module.scaled_rel_diff(x, y, 0.5))


SIGNATURE_LISTS = [
    ["float64(float64, float64)", "float32(float32, float32)"],
    ["float32(float32, float32)", "float64(float64, float64)", "int64(int64, int64)"],
    ["int32(int32, int32)", "int64(int64, int64)", "float64(float64, float64)"],
    ["int64(int64, int64)", "float32(float32, float32)"],
]
VALUES = [np.ones(2, np.float32), np.ones(2), np.ones(2, np.int32), np.ones(2, np.int64), np.ones(2, np.int8),
          np.ones(2, np.uint16), np.ones(2, bool), 1, 1.0, True, np.float32(1), np.int32(1)]


@pytest.mark.parametrize("target", ["cpu", "parallel"])
@pytest.mark.parametrize("signatures", SIGNATURE_LISTS, ids=range(len(SIGNATURE_LISTS)))
def test_loop_selection_is_numpys(signatures, target):
    from numba import vectorize

    ufunc = vectorize(signatures, target=target)(lambda x, y: x + y)
    loops = [((s.split("(")[1].split(",")[0],) * 2, s.split("(")[0]) for s in signatures]
    table = LoopTable(loops, exact_first=target == "parallel")
    for a, b in itertools.product(VALUES, VALUES):
        try:
            want = ufunc(a, b).dtype
        except TypeError:
            want = None
        loop = table.resolve((_kind(a), _kind(b)))
        assert (None if loop is None else loop[1]) == want, (a, b)


def _fold(function, array, axis):
    """NumPy's definition of ``ufunc.reduce``: the elements along ``axis`` folded from the first."""
    moved = np.moveaxis(array, axis, 0)
    acc = moved[0].copy()
    for k in range(1, moved.shape[0]):
        acc = function(acc, moved[k])
    return acc


class _Counted:
    """A ufunc's fold kernel that counts its runs: its empty ``table`` sends a planned call
    (``_kpc_call(table, kernel, ...)``) to the kernel itself too."""

    def __init__(self, kernel, runs: list):
        self.kernel, self.runs, self.table = kernel, runs, {}

    def __call__(self, *args):
        self.runs.append(1)
        return self.kernel(*args)


@contextlib.contextmanager
def counting(kernel: str, ufuncs):
    """The runs of each ufunc's ``kernel`` (``_reduce``, ``_accumulate``) while the block runs."""
    runs, kernels = [], {}
    for ufunc in ufuncs:
        kernels[ufunc] = found = getattr(ufunc, kernel)
        setattr(ufunc, kernel, _Counted(found, runs))
    try:
        yield runs
    finally:
        for ufunc, found in kernels.items():
            setattr(ufunc, kernel, found)


# (array, axis) of reduce and accumulate: 1-D to 3-D, every axis, negative axes, Fortran, strided
FOLDS = [(positive(9), 0), (positive(9), None), (positive(9), -1), (positive(6, 5), 0), (positive(6, 5), 1),
         (positive(3, 4, 5), 1), (positive(3, 4, 5), -1), (np.asfortranarray(positive(6, 5)), 0),
         (positive(6, 10)[:, ::3], 1), (positive(1, 7), 0),
         (positive(4, 130), 0), (positive(2, 3, 70), 1)]                   # blocks of 64 positions and a part


@pytest.mark.compile
def test_reduce_runs_kpcs_reduce_kernel_and_matches_numba(modules):
    """``ufunc.reduce`` of a two-input ufunc on an array of one of its loops' dtypes runs kpc's
    reduce kernel (elements folded in order along the axis, the other positions in parallel):
    1-D to 3-D, every axis, negative axes, Fortran and strided inputs, float32 and int64 loops.
    The fold is NumPy's order, which Numba's ``target='cpu'`` ufunc gives (``rel_diff_cpu``: the
    same function); Numba's ``target='parallel'`` ufunc splits a 1-D fold over its threads, so a
    function that does not associate gives other values there. Other forms are Numba's (``keepdims=``)."""
    dropin, numba_module = modules
    with counting("_reduce", (dropin.rel_diff, dropin.rel_diff_cpu, dropin.clip_add)) as runs:
        cases = FOLDS
        for array, axis in cases:
            args = (array,) if axis == 0 else (array, axis)
            expected = numba_module.rel_diff_cpu.reduce(*args)
            assert_same(dropin.rel_diff.reduce(*args), expected)
            assert_same(dropin.rel_diff_cpu.reduce(*args), expected)
        # a float32 loop whose function computes in float64 (2 * ...): each step rounded to float32, as
        # NumPy's loop does (a float64 accumulator drifts past 1e-6 on a few of 300 folds)
        single = positive(6, 300, dtype=np.float32)
        assert_same(dropin.rel_diff.reduce(single), _fold(numba_module.rel_diff, single, 0))
        assert_same(dropin.rel_diff.reduce(single[0]), _fold(numba_module.rel_diff, single[0], 0))  # 1-D
        ints = rng.integers(0, 80, (7, 3))
        for axis in (0, 1):
            assert_same(dropin.clip_add.reduce(ints, axis), _fold(numba_module.clip_add, ints, axis))
        assert len(runs) == 2 * len(cases) + 4
        x = positive(4, 3)
        assert_same(dropin.rel_diff_cpu.reduce(x, keepdims=True), numba_module.rel_diff_cpu.reduce(x, keepdims=True))
        assert len(runs) == 2 * len(cases) + 4  # keepdims= is Numba's


@pytest.mark.compile
@pytest.mark.parametrize("method", ["reduce", "accumulate"])
def test_repeated_folds_take_their_plan_and_match_numba(modules, method):
    """``reduce(x)`` or ``accumulate(x)`` (or with axis 0) of a C-contiguous array like one folded
    before (the same dtype, rank and flags) runs kpc's kernel straight from its plan, the array
    passed flat: 1-D (one position per row), a row of 130 positions (blocks of 64 and a part), 3-D,
    one element. A Fortran-ordered array, another axis and an empty axis take the long way."""
    dropin, numba_module = modules
    ufunc = dropin.rel_diff_cpu
    ours, numbas = getattr(ufunc, method), getattr(numba_module.rel_diff_cpu, method)
    for first, again in [(positive(50), positive(77)), (positive(4, 6), positive(9, 130)),
                         (positive(2, 3, 4), positive(5, 1, 7)), (positive(3), positive(1))]:
        assert_same(ours(first), numbas(first))
        calls, planned = [], ufunc._call
        ufunc._call = lambda *a, planned=planned: calls.append(1) or planned(*a)
        try:
            assert_same(ours(again), numbas(again))
            assert_same(ours(again, 0), numbas(again, 0))
            assert_same(ours(again, axis=0), numbas(again, axis=0))
            assert len(calls) == 3, (method, again.shape)
            if again.ndim > 1:
                fortran = np.asfortranarray(again)
                assert_same(ours(fortran), numbas(fortran))
            assert_same(ours(again, -1), numbas(again, -1))
            assert len(calls) == 3, (method, again.shape)
        finally:
            ufunc._call = planned
    empty = np.empty((0, 3))
    outcomes = []
    for function in (ours, numbas):
        try:
            outcomes.append(function(empty))
        except ValueError as error:  # reduce of an empty axis: no identity, NumPy's error
            outcomes.append(type(error))
    assert outcomes[0] is outcomes[1] if isinstance(outcomes[1], type) else np.array_equal(*outcomes)


@pytest.mark.compile
def test_a_byte_swapped_array_after_a_plan_takes_the_long_way(modules):
    """A big-endian float64 array has the runtime key of a native one (the dtype's number): after
    a call that made a plan, a call, ``reduce`` or ``accumulate`` with it gives Numba's result (cast
    to the loop's dtype, or Numba's ufunc), not an error of the compiled loop."""
    dropin, numba_module = modules
    native = positive(12)
    swapped = native.astype(">f8")
    for method in ("__call__", "reduce", "accumulate"):
        ours, numbas = getattr(dropin.rel_diff_cpu, method), getattr(numba_module.rel_diff_cpu, method)
        args = (native, native) if method == "__call__" else (native,)
        assert_same(ours(*args), numbas(*args))
        assert_same(ours(*args), numbas(*args))                          # from the plan
        args = (swapped, swapped) if method == "__call__" else (swapped,)
        assert_same(ours(*args), numbas(*args))
    assert_same(dropin.rel_diff_cpu(native, swapped), numba_module.rel_diff_cpu(native, swapped))


def _running(function, array, axis):
    """NumPy's definition of ``ufunc.accumulate``: each result along ``axis`` folded from the first."""
    moved = np.moveaxis(array, axis, 0)
    acc = np.empty_like(moved)
    acc[0] = moved[0]
    for k in range(1, moved.shape[0]):
        acc[k] = function(acc[k - 1], moved[k])
    return np.moveaxis(acc, 0, axis)


@pytest.mark.compile
def test_accumulate_runs_kpcs_accumulate_kernel_and_matches_numba(modules):
    """``ufunc.accumulate`` of a two-input ufunc on an array of one of its loops' dtypes runs kpc's
    accumulate kernel (each result folded in order along the axis, the other positions in
    parallel): 1-D to 3-D, every axis, negative axes, ``axis=None`` of a 1-D array, Fortran and
    strided inputs, float32 and int64 loops. Numba's ``target='cpu'`` ufunc (``rel_diff_cpu``, the
    same function) is NumPy's order; its ``target='parallel'`` ufunc splits the recurrence over
    threads, so ``rel_diff`` (parallel) is compared with NumPy's definition. Other forms are Numba's
    (``dtype=``, ``out=``, an int array cast to the float64 loop, an empty axis)."""
    dropin, numba_module = modules
    with counting("_accumulate", (dropin.rel_diff, dropin.rel_diff_cpu, dropin.clip_add)) as runs:
        cases = FOLDS + [(positive(2000), 0)]
        for array, axis in cases:
            args = (array,) if axis == 0 else (array, axis)
            expected = numba_module.rel_diff_cpu.accumulate(*args)
            assert_same(dropin.rel_diff_cpu.accumulate(*args), expected)
            assert_same(dropin.rel_diff.accumulate(*args), expected)
            assert_same(dropin.rel_diff.accumulate(*args), _running(numba_module.rel_diff, array, axis or 0))
        single = positive(300, 6, dtype=np.float32)                    # rounded at each step (see reduce)
        assert_same(dropin.rel_diff.accumulate(single, axis=1), _running(numba_module.rel_diff, single, 1))
        ints = rng.integers(0, 30, (7, 3))
        for axis in (0, 1):
            assert_same(dropin.clip_add.accumulate(ints, axis), _running(numba_module.clip_add, ints, axis))
        assert len(runs) == 3 * len(cases) + 3
        x = positive(4, 3)
        for args, kwargs in [((x,), {"out": np.empty((4, 3))}), ((np.arange(1, 6),), {}),
                             ((np.empty((0, 3)),), {})]:
            assert_same(dropin.rel_diff_cpu.accumulate(*args, **kwargs),
                        numba_module.rel_diff_cpu.accumulate(*args, **kwargs))
        with pytest.raises(TypeError):                                   # no float32 loop: Numba's error
            dropin.rel_diff_cpu.accumulate(x, dtype=np.float32)
        assert len(runs) == 3 * len(cases) + 3  # those are Numba's
