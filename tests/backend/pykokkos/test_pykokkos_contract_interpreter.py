"""The CONTRACT INTERPRETER (a pure-Python model of upstream PyKokkos's documented semantics, not
upstream itself) reproduces the contract's pitfalls, so that passing under it means something."""

import textwrap

import numpy as np
import pytest

from contract_interpreter import ContractInterpreter, ContractViolation

HEAD = "import math\n\nimport numpy as np\nimport pykokkos as pk\n\nSCALE = 2.0\n\n\n"


def load(tmp_path, body):
    path = tmp_path / "m.py"
    path.write_text(HEAD + textwrap.dedent(body))
    return ContractInterpreter().load(str(path))


def test_contract_interpreter_reduce_joins_with_plus_from_zero(tmp_path):
    m = load(tmp_path, """
        @pk.workunit
        def k(i: int, acc: pk.Acc[pk.double], x: pk.View1D[pk.double]):
            acc = math.fmax(acc, x[i])


        def run(x):
            return pk.parallel_reduce(pk.RangePolicy(0, x.shape[0]), k, x=x)
    """)
    x = np.array([-5.0, -2.0, -7.0])
    assert m.run(x) == 0.0  # the contract's "gave 0.0 vs -5.63": a max written as a reduction is wrong


def test_contract_interpreter_c_division_and_int32(tmp_path):
    m = load(tmp_path, """
        @pk.workunit
        def k(i: int, a: pk.View1D[pk.int64], q: pk.View1D[pk.int64], r: pk.View1D[pk.int64]):
            q[i] = a[i] // 2
            r[i] = a[i] % 2


        @pk.workunit
        def big(i: int, out: pk.View1D[pk.int64]):
            n: int = 3000000000
            out[i] = n


        def run(a, q, r, out):
            pk.parallel_for(pk.RangePolicy(0, a.shape[0]), k, a=a, q=q, r=r)
            pk.parallel_for(pk.RangePolicy(0, 1), big, out=out)
    """)
    a = np.array([-7, 7], dtype=np.int64)
    q, r, out = np.zeros(2, np.int64), np.zeros(2, np.int64), np.zeros(1, np.int64)
    m.run(a, q, r, out)
    assert list(q) == [-3, 3] and list(r) == [-1, 1]  # C truncation, not Python flooring
    assert out[0] == 3000000000 - 2**32  # `int` is 32-bit


def test_contract_interpreter_rejects_what_upstream_mishandles(tmp_path):
    m = load(tmp_path, """
        @pk.workunit
        def scale(i: int, x: pk.View1D[pk.double]):
            x[i] = SCALE * x[i]


        @pk.workunit
        def touch(i: int, x: pk.View1D[pk.double]):
            x[i] = x[i - 1]


        def run_scale(x):
            pk.parallel_for(pk.RangePolicy(0, x.shape[0]), scale, x=x)


        def run_touch(x):
            pk.parallel_for(pk.RangePolicy(0, x.shape[0]), touch, x=x)


        def run_np_bound(x):
            pk.parallel_for(pk.RangePolicy(0, np.int64(x.shape[0])), touch, x=x)


        def run_extra(x):
            pk.parallel_for(pk.RangePolicy(0, x.shape[0]), touch, x=x, y=1)
    """)
    with pytest.raises(NameError):
        m.run_scale(np.ones(3))  # module-level names are not visible inside workunits
    with pytest.raises(ContractViolation, match="out of range"):
        m.run_touch(np.ones(3))  # x[-1]: Python wraps, C++ reads out of bounds
    with pytest.raises(ContractViolation, match="C-contiguous"):
        m.run_scale(np.ones(6)[::2])
    with pytest.raises(ContractViolation, match="Python int"):
        m.run_np_bound(np.ones(3))
    with pytest.raises(ContractViolation, match="keywords"):
        m.run_extra(np.ones(3))


def test_contract_interpreter_float_cast_is_32_bit(tmp_path):
    m = load(tmp_path, """
        @pk.workunit
        def k(i: int, out: pk.View1D[pk.double]):
            out[i] = float(16777217)


        def run(out):
            pk.parallel_for(pk.RangePolicy(0, 1), k, out=out)
    """)
    out = np.zeros(1)
    m.run(out)
    assert out[0] == 16777216.0
