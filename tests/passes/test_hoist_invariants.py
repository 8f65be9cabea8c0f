"""hoist-invariants: which math expressions leave a serial loop, and which stay."""

from source_ir import run

from kpc.ir import nodes as n
from kpc.ir.printer import format_function

PASSES = ["error-model", "parallelize", "recognize-reductions", "infer-dispatch", "simplify-powers", "hoist-invariants"]


def lowered(source: str, signature: str):
    module, _ = run(source, {"k": signature}, PASSES)
    return module.functions["k"]


def test_a_math_call_of_outer_names_is_computed_once_per_outer_iteration():
    k = lowered("""
        @njit
        def k(x, s):
            t = 0.0
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    t = 0.5 * t + x[i, j] * math.exp(s * i) + math.sin(s)  # carried: serial
            return t
        """, "(f8[:, :], f8)")
    text = format_function(k)
    assert "inv2: f64 = math.sin(s)\n  for i" in text  # out of both loops
    assert "inv: f64 = math.exp(s * i)\n    for j" in text  # out of the j loop only
    assert "t = 0.5 * t + x[i, j] * inv + inv2" in text


def test_what_changes_in_the_loop_or_may_raise_stays():
    k = lowered("""
        @njit
        def k(x, s, d):
            t = 0.0
            for i in range(x.shape[0]):
                u = s + 1.0
                t = 0.5 * t + math.exp(u) + math.exp(x[0]) + math.exp(s * i) + math.exp(s / d)
            return t
        """, "(f8[:], f8, f8)")
    assert not any(name.startswith("inv") for name in k.locals)


def test_a_loop_collapsed_into_an_mdrange_keeps_its_body():
    k = lowered("""
        @njit
        def k(x, s):
            for i in range(x.shape[0]):
                for j in range(x.shape[1]):
                    x[i, j] = math.exp(s * i)
        """, "(f8[:, :], f8)")
    assert k.body[0].parallel.policy == "MDRange"
    assert not any(name.startswith("inv") for name in k.locals)


def test_a_value_hoisted_inside_a_region_is_private_to_each_iteration():
    k = lowered("""
        @njit(parallel=True)
        def k(x, s):
            for i in prange(x.shape[0]):
                for j in range(1, x.shape[1]):
                    x[i, j] = x[i, j - 1] * math.cos(s * i)
        """, "(f8[:, :], f8)")
    region = k.body[0]
    assert isinstance(region.body[0], n.Assign) and region.body[0].target.id == "inv"
    assert "inv" in region.parallel.privates


def test_the_arms_of_an_invariant_conditional_compute_only_the_arm_taken():
    k = lowered("""
        @njit
        def k(x, s):
            n = x.shape[0] // 2
            for i in range(x.shape[0]):
                for j in range(1, x.shape[1]):
                    x[i, j] = x[i, j - 1] * math.exp(s * i) if i < n else x[i, j - 1] - math.cos(s * i)
        """, "(f8[:, :], f8)")
    text = format_function(k)
    assert "inv: f64 = math.exp(s * i) if i < n else 0.0" in text
    assert "inv2: f64 = 0.0 if i < n else math.cos(s * i)" in text
    assert "x[i, j] = x[i, j - 1] * inv if i < n else x[i, j - 1] - inv2" in text
