"""np.random in kernels: the Kokkos C++ translation draws from Kokkos random pools, so its
numbers are not Numba's; what a user checks is that they have the right distribution
(moments and a Kolmogorov–Smirnov test at a fixed seed), in serial code, in prange bodies and
in helpers called from both, on the OpenMP and Serial spaces; that a seed makes serial draws
repeatable; and that the PyKokkos target keeps such kernels as Numba, saying why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from kpc.frontend import parse_module
from kpc.passes.manager import PassContext, run_pipeline
from kpc.check.runner import import_path

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "random_kernels.py"
N = 20000
ALPHA = 1e-3  # the seeds are fixed: a pass or a failure is the same on every run

# name -> (the kernels' number for it, its two parameters, the distribution it draws from)
DISTRIBUTIONS = {
    "random": (0, 0.0, 0.0, stats.uniform()),
    "rand": (1, 0.0, 0.0, stats.uniform()),
    "uniform": (2, -2.0, 3.0, stats.uniform(-2.0, 5.0)),
    "normal": (3, 1.5, 0.5, stats.norm(1.5, 0.5)),
    "standard_normal": (4, 0.0, 0.0, stats.norm()),
    "randn": (5, 0.0, 0.0, stats.norm()),
    "random_sample": (7, 0.0, 0.0, stats.uniform()),
}
RANDINT = 6
MODES = ["serial_draws", "parallel_draws", "parallel_helper_draws"]
SIGNATURES = {
    **{mode: [f"{mode}(int64, int64, int64, float64, float64)"] for mode in MODES},
    "array_draws": ["array_draws(int64, int64)"], "shifted": ["shifted(int64, int64)"],
    "unseeded": ["unseeded(int64)"], "reseed": ["reseed(int64)"], "next_draw": ["next_draw()"],
    "randint_between": ["randint_between(int64, int64)"],
    "python_random_draws": ["python_random_draws(int64, int64)"],
    "shuffled": ["shuffled(float64[:], int64)", "shuffled(int32[:], int64)"],
}



@pytest.fixture(scope="module", params=["openmp", "serial"])
def kokkos(request, tmp_path_factory):
    from kpc.api import build

    out = tmp_path_factory.mktemp(f"random_{request.param}")
    result = build(KERNELS, out, signatures=SIGNATURES, space=request.param, strict=True)
    assert not result.rejected
    return import_path(result.module_path, f"kpc_random_dropin_{request.param}")


def assert_distributed_as(sample, distribution, what: str) -> None:
    """Sample mean and variance within 5 standard errors of the distribution's, and a KS test."""
    mean, variance, excess_kurtosis = (float(x) for x in distribution.stats(moments="mvk"))
    n = sample.size
    assert abs(sample.mean() - mean) < 5 * np.sqrt(variance / n), f"{what}: mean {sample.mean()} vs {mean}"
    variance_error = variance * np.sqrt((excess_kurtosis + 2) / n)
    assert abs(sample.var() - variance) < 5 * variance_error, f"{what}: variance {sample.var()} vs {variance}"
    assert stats.kstest(sample.ravel(), distribution.cdf).pvalue > ALPHA, f"{what}: KS test rejects"


@pytest.mark.compile
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_draws_have_the_distribution(kokkos, mode, name):
    which, a, b, distribution = DISTRIBUTIONS[name]
    sample = getattr(kokkos, mode)(N, 12345, which, a, b)
    assert sample.shape == (N,) and np.isfinite(sample).all()
    if distribution.dist.name == "uniform":
        low, high = distribution.support()
        assert sample.min() >= low and sample.max() < high
    assert_distributed_as(sample, distribution, f"np.random.{name} in {mode}")


@pytest.mark.compile
@pytest.mark.parametrize("mode", MODES)
def test_randint_stays_in_its_range_uniformly(kokkos, mode):
    sample = getattr(kokkos, mode)(N, 2024, RANDINT, -3.0, 4.0)
    assert np.array_equal(sample, np.round(sample))
    values, counts = np.unique(sample, return_counts=True)
    assert values.tolist() == list(range(-3, 4))  # high is excluded, every value occurs
    assert stats.chisquare(counts).pvalue > ALPHA


@pytest.mark.compile
def test_a_seed_repeats_the_serial_draws(kokkos):
    first = kokkos.serial_draws(1000, 7, 3, 0.0, 1.0)
    np.testing.assert_array_equal(kokkos.serial_draws(1000, 7, 3, 0.0, 1.0), first)
    assert not np.array_equal(kokkos.serial_draws(1000, 8, 3, 0.0, 1.0), first)
    assert not np.array_equal(kokkos.unseeded(1000), kokkos.unseeded(1000))
    numba = import_path(KERNELS, "kpc_random_numba")
    assert not np.array_equal(numba.serial_draws(1000, 7, 3, 0.0, 1.0), first)  # Kokkos' stream, not Numba's


@pytest.mark.compile
def test_prange_iterations_draw_distinct_numbers(kokkos):
    # Each thread has a state of its own: threads sharing one would repeat each other's draws.
    sample = kokkos.parallel_draws(N, 99, 0, 0.0, 0.0)
    assert np.unique(sample).size == N


@pytest.mark.compile
def test_the_seed_is_shared_by_the_kernels_of_a_process(kokkos):
    kokkos.reseed(5)
    first = [kokkos.next_draw() for _ in range(4)]
    kokkos.reseed(5)
    assert [kokkos.next_draw() for _ in range(4)] == first
    assert len(set(first)) == 4
    kokkos.reseed(6)
    assert kokkos.next_draw() != first[0]
    # draw() has no signature: its first call compiles it into a module of its own, which
    # draws from the same state (a seed in one module reseeds the others).
    kokkos.reseed(5)
    assert [kokkos.draw(0, 0.0, 0.0), kokkos.next_draw()] == first[:2]


@pytest.mark.compile
def test_array_forms_draw_every_element(kokkos):
    uniform01, normal, uniform, integers, rand, randn, standard_normal = kokkos.array_draws(N, 31)
    assert [a.shape for a in (uniform01, normal, uniform, integers, rand, randn, standard_normal)] == \
        [(N,), (N,), (N, 2), (N,), (N, 2), (N,), (N,)]
    assert integers.dtype == np.int64 and uniform01.dtype == np.float64
    assert_distributed_as(uniform01, stats.uniform(), "np.random.random(n)")
    assert_distributed_as(normal, stats.norm(2.0, 3.0), "np.random.normal(2, 3, size=n)")
    assert_distributed_as(uniform, stats.uniform(-1.0, 2.0), "np.random.uniform(-1, 1, (n, 2))")
    assert_distributed_as(rand, stats.uniform(), "np.random.rand(n, 2)")
    assert_distributed_as(randn, stats.norm(), "np.random.randn(n)")
    assert_distributed_as(standard_normal, stats.norm(), "np.random.standard_normal(size=n)")
    assert integers.min() == 3 and integers.max() == 8
    assert np.unique(normal).size == N  # one draw per element, not one per array


@pytest.mark.compile
def test_a_scalar_draw_in_an_array_expression_is_drawn_once(kokkos):
    shifted = kokkos.shifted(100, 3)
    assert np.all(shifted == shifted[0]) and 0.0 <= shifted[0] < 1.0


@pytest.mark.compile
def test_an_empty_randint_range_raises_like_numba(kokkos):
    numba = import_path(KERNELS, "kpc_random_numba")
    with pytest.raises(ValueError) as expected:
        numba.randint_between(4, 4)
    with pytest.raises(ValueError) as actual:
        kokkos.randint_between(4, 4)
    assert str(actual.value) == str(expected.value)
    assert kokkos.randint_between(4, 5) == 4  # the error is cleared


@pytest.mark.compile
def test_python_random_module_draws_have_the_distribution(kokkos):
    # random.random/uniform/gauss/randint draw from the same Kokkos streams as np.random.
    sample = kokkos.python_random_draws(N, 77)
    assert_distributed_as(sample[:, 0], stats.uniform(), "random.random()")
    assert_distributed_as(sample[:, 1], stats.uniform(-2.0, 5.0), "random.uniform(-2, 3)")
    assert_distributed_as(sample[:, 2], stats.norm(1.5, 0.5), "random.gauss(1.5, 0.5)")
    values, counts = np.unique(sample[:, 3], return_counts=True)
    assert values.tolist() == list(range(-3, 4))  # random.randint includes its upper bound
    assert stats.chisquare(counts).pvalue > ALPHA


@pytest.mark.compile
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_shuffle_permutes_in_place_uniformly(kokkos, dtype):
    x = np.arange(2000).astype(dtype)
    y, z = kokkos.shuffled(x, 11)
    for shuffled in (y, z):
        assert shuffled.dtype == dtype and sorted(shuffled.tolist()) == x.tolist()
        assert not np.array_equal(shuffled, x)
    np.testing.assert_array_equal(kokkos.shuffled(x, 11)[0], y)  # the seed repeats the order
    assert kokkos.shuffled(x[:1], 3)[0].tolist() == [0] and kokkos.shuffled(x[:0], 3)[0].size == 0
    # Where element 0 lands, over many shuffles of 4 elements: every position equally often.
    landed = [int(np.argmin(kokkos.shuffled(np.arange(4).astype(dtype), seed)[0])) for seed in range(400)]
    assert stats.chisquare(np.bincount(landed, minlength=4)).pvalue > ALPHA


def pipeline(source: str, target: str = "kokkos"):
    module = parse_module(source, "m.py")
    ctx = PassContext(target=target)
    run_pipeline(module, ctx)
    return module, ctx


def test_a_loop_that_draws_is_never_parallelized_automatically():
    module, _ = pipeline(
        "import numpy as np\nfrom numba import njit\n"
        "@njit('f8[:](i8)')\ndef noise(n):\n    out = np.empty(n)\n"
        "    for i in range(n):\n        out[i] = np.random.random()\n    return out\n")
    loop = next(s for s in module.functions["noise"].body if type(s).__name__ == "For")
    assert loop.parallel is None
    assert "draws from a shared random state" in loop.decision


def test_a_prange_that_reseeds_runs_serially_with_a_warning():
    module, ctx = pipeline(
        "import numpy as np\nfrom numba import njit, prange\n"
        "@njit('void(f8[:], i8)', parallel=True)\ndef reseeding(out, s):\n"
        "    for i in prange(out.size):\n        np.random.seed(s)\n        out[i] = np.random.random()\n")
    loop = module.functions["reseeding"].body[0]
    assert loop.parallel is None
    assert any("np.random.seed()" in w.message and "runs serially" in w.message for w in ctx.warnings)


def test_randint_has_the_integer_type_of_its_bounds():
    module, _ = pipeline(
        "import numpy as np\nfrom numba import njit\n"
        "@njit('i4(i4, i4)')\ndef pick(a, b):\n    return np.random.randint(a, b)\n")
    assert str(module.functions["pick"].body[0].value.type) == "i32"


def test_the_pykokkos_target_keeps_drawing_kernels_as_numba(tmp_path):
    from kpc.api import build_pykokkos

    result = build_pykokkos(KERNELS, tmp_path, signatures={name: s[0] for name, s in SIGNATURES.items()})
    for report in result.kernels:
        assert report.status == "numba", report
    reasons = {r.name: r.reason or "" for r in result.kernels}
    assert "random pools" in reasons["serial_draws"] and "stays Numba" in reasons["serial_draws"]
