"""The types kpc guesses for kernels without signatures use every integer use the body gives.

An index, a slice bound, a shape, a range bound, a bit operation or ``%``/``//`` with an
integer make a scalar an integer and an array's elements integers, also through the locals
such an expression is assigned to (``b = keys[i] % nbins; counts[b] += 1``); what the body
does not settle is listed as a guess (``Function.guessed``) and ``integer_guess`` is the
second guess ``kpc build --explain`` shows decisions under.
"""

from __future__ import annotations

import textwrap

from kpc.frontend import parse_module
from kpc.ir.types import FLOAT64, INT64, ArrayType
from kpc.passes.infer_types import guessed_types, integer_guess
from kpc.passes.manager import PassContext, run_pipeline

HEADER = "import numpy as np\nfrom numba import njit, prange\n\n"


def typed(source: str, target: str = "kokkos"):
    module = parse_module(HEADER + textwrap.dedent(source), "guess.py")
    run_pipeline(module, PassContext(target=target))
    return module


def param_types(module, name: str) -> dict:
    return {p.name: p.type for p in module.functions[name].params}


def test_a_modulo_into_a_local_index_makes_its_operands_integers():
    source = """
        @njit(parallel=True)
        def histogram(keys, nbins, counts):
            for i in prange(keys.shape[0]):
                b = keys[i] % nbins
                counts[b] += 1
        """
    for target in ("kokkos", "pykokkos"):
        module = typed(source, target)
        assert "histogram" not in module.rejected
        types = param_types(module, "histogram")
        assert types["keys"] == ArrayType(INT64, 1) and types["nbins"] == INT64, target
        assert types["counts"] == ArrayType(FLOAT64, 1)  # only its rank is settled
        guessed = module.functions["histogram"].guessed
        assert len(guessed) == 1 and guessed[0].startswith("counts: f64[:]")


def test_min_and_max_used_as_integers_make_their_arguments_integers():
    module = typed("""
        @njit
        def folded(x, n, inner):
            m = max(n, 1)
            w = min(inner, x.shape[0])
            return x[m] + x[w]
        """)
    assert "folded" not in module.rejected
    types = param_types(module, "folded")
    assert types["n"] == INT64 and types["inner"] == INT64
    assert [g.split(":")[0] for g in module.functions["folded"].guessed] == ["x"]


def test_range_bounds_shapes_slices_and_bits_through_locals():
    module = typed("""
        @njit
        def blocks(x, width, shift, start):
            count = x.shape[0] // width
            out = np.zeros(count)
            mask = shift - 1
            first = start + 1
            for k in range(count):
                out[k] = x[first:][k] + (k >> mask)
            return out
        """)
    types = param_types(module, "blocks")
    assert types["width"] == INT64 and types["shift"] == INT64 and types["start"] == INT64
    assert types["x"] == ArrayType(FLOAT64, 1)
    assert [note.split(":")[0] for note in module.functions["blocks"].guessed] == ["x"]


def test_elements_used_as_integers_through_a_row_make_the_array_integer():
    module = typed("""
        @njit
        def lookup(table, pairs):
            total = 0.0
            for i in range(pairs.shape[0]):
                row = pairs[i]
                j = row[0] * 2
                total += table[j]
            return total
        """)
    types = param_types(module, "lookup")
    assert types["pairs"] == ArrayType(INT64, 2) and types["table"] == ArrayType(FLOAT64, 1)


def test_float_arithmetic_stays_a_float64_guess():
    module = typed("""
        @njit
        def scale(x, a):
            for i in range(x.shape[0]):
                x[i] = x[i] % a
        """)
    types = param_types(module, "scale")
    assert types["x"] == ArrayType(FLOAT64, 1) and types["a"] == FLOAT64
    assert len(module.functions["scale"].guessed) == 2


def test_a_guess_that_does_not_type_has_an_integer_second_guess():
    source = HEADER + textwrap.dedent("""
        @njit
        def gather_sum(values, order):
            picked = values[order]
            return picked.sum() / order.shape[0]
        """)
    module = parse_module(source, "guess.py")
    assert [g.split(":")[0] for g in guessed_types(module, "gather_sum")] == ["values", "order"]
    second = integer_guess(parse_module(source, "guess.py"), "gather_sum")
    assert [t.dtype for t in second] == [INT64, INT64] and second[1] == ArrayType(INT64, 1)
    typed_module = parse_module(source, "guess.py")
    run_pipeline(typed_module, PassContext(target="kokkos"))
    assert typed_module.rejected["gather_sum"].guessed  # typed at each call, not a refusal
