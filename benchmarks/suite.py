"""The benchmark suite: corpus kernels timed under Numba and kpc's Kokkos target, 10^2 to 10^7 elements.

Each ``Entry`` names a corpus file (its ``KPC_CASES`` says how to make inputs of
any size), an entry kernel, a dtype and the size assignments to time, smallest
first; ``benchmarks/run.py`` runs them. Sizes are chosen so that the element
count (or, for Lennard-Jones, the atom count the seed measured) spans the range
while the largest size of each entry stays within a few seconds per call.
``QUICK`` keeps the two smallest sizes of each entry: a check that the suite
runs, not a measurement.
"""

from __future__ import annotations

from pathlib import Path

from kpc.bench.suite import Entry

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def _corpus(name: str) -> str:
    return str(CORPUS / name)


def _square(names: str, sides: list, **fixed) -> list:
    """Size assignments with every name in ``names`` set to each side (``n=m=side``)."""
    return [dict({name: side for name in names.split(",")}, **fixed) for side in sides]


def _line(counts: list, **fixed) -> list:
    return [dict(n=count, **fixed) for count in counts]


ELEMENTS = [10**2, 10**3, 10**4, 10**5, 10**6, 10**7]
SIDES_2D = [10, 32, 100, 316, 1000, 3162]          # side**2: 10^2 ... 10^7 elements
SIDES_3D = [5, 10, 22, 46, 100, 215]               # side**3: 10^2 ... 10^7 elements

SUITE = [
    # the seed kernels
    Entry(_corpus("sum2d.py"), "sum2d", _square("m,n", SIDES_2D)),
    Entry(_corpus("sum3d.py"), "sum3d", _square("n,m,k", SIDES_3D)),
    Entry(_corpus("lennard_jones.py"), "potential", _line([100, 1000, 3000, 10000]), label="lennard_jones"),
    Entry(_corpus("star.py"), "star", _square("n,m", SIDES_2D)),
    Entry(_corpus("star2.py"), "star2", _square("n,m", SIDES_2D[:5], steps=10)),
    # memory bandwidth: STREAM triad a = b + s * c reads two arrays and writes one (24 bytes per element)
    Entry(_corpus("stream_triad.py"), "triad_loop", _line(ELEMENTS), label="stream_triad",
          bytes_per_call="24 * n"),
    Entry(_corpus("stream_triad.py"), "stream_copy", _line(ELEMENTS), label="stream_copy",
          bytes_per_call="16 * n"),
    # reductions
    Entry(_corpus("reduce_sum_prod.py"), "total", _line(ELEMENTS), label="reduce_sum"),
    Entry(_corpus("reduce_min_max.py"), "float_extrema", _line(ELEMENTS), label="reduce_min_max"),
    # stencils, linear algebra, scatter
    Entry(_corpus("stencil2d_loops.py"), "laplacian", _square("n,m", SIDES_2D), label="stencil2d"),
    Entry(_corpus("matvec_loops.py"), "matvec", _square("n,m", SIDES_2D)),
    Entry(_corpus("matmul_loops.py"), "matmul_into", _square("n,p,m", [5, 10, 22, 46, 100, 215])),
    Entry(_corpus("histogram.py"), "count_labels", _line(ELEMENTS, bins=64), dtype="int64", label="histogram"),
    # NumPy-style kernels (array expressions lowered to loops by kpc)
    Entry(_corpus("np_softmax.py"), "softmax_rows", [{"n": n, "m": 100} for n in (1, 10, 100, 1000, 10000, 100000)],
          label="softmax_rows"),
    Entry(_corpus("np_jacobi2d.py"), "jacobi_2d", _square("n", SIDES_2D[:5], t=10), label="jacobi_2d"),
]

# Matrix products written with `@` (issue 16's list), n = 256 ... 2048: kpc calls the BLAS Numba
# calls (SciPy's) at a kernel's host level; `benchmarks/run.py --suite products`.
SIDES_LA = [256, 512, 1024, 2048]
PRODUCTS = [
    Entry(_corpus("np_matmul.py"), "matvec_at", _square("n,m", SIDES_LA), label="matvec_Ax"),
    Entry(_corpus("np_matmul.py"), "vecmat", _square("n,m", SIDES_LA), label="vecmat_xA"),
    Entry(_corpus("np_matmul.py"), "transposed_matvec", _square("n,m", SIDES_LA), label="matvec_ATy"),
    Entry(_corpus("np_matmul.py"), "matmul_at", _square("n,p,m", SIDES_LA), label="gemm_AB"),
    Entry(_corpus("np_matmul.py"), "chain3", _square("n,p,m", SIDES_LA), label="chain_ABC"),
    Entry(_corpus("np_matmul.py"), "scaled_gemm", _square("n,p,m", SIDES_LA), label="gemm_scaled"),
]
# Numba's own kernel API (issue 31): @vectorize ufuncs against Numba's target='parallel' ufuncs
# (and a target='cpu' one against Numba's serial ufunc); `benchmarks/run.py --suite kernel_api`.
KERNEL_API = [
    Entry(_corpus("ufunc_vectorize.py"), "rel_diff", _line(ELEMENTS), label="ufunc_rel_diff_parallel",
          bytes_per_call="24 * n"),
    Entry(_corpus("ufunc_vectorize.py"), "clip_add", _line(ELEMENTS), label="ufunc_clip_add_parallel",
          bytes_per_call="24 * n"),
    Entry(_corpus("ufunc_vectorize.py"), "smooth_step", _square("n,m", SIDES_2D), label="ufunc_smooth_step_cpu"),
    # @guvectorize: a row-wise scaling (n),()->(n) and a batched matrix-vector product (m,n),(n)->(m)
    # (sizes: b, the loop length: b * 100 and b * 256 elements)
    Entry(_corpus("gufunc_guvectorize.py"), "scaled", [{"b": count // 100, "n": 100} for count in ELEMENTS],
          label="gufunc_scaled_parallel", size_key="b"),
    Entry(_corpus("gufunc_guvectorize.py"), "matvec", [{"b": count // 256, "m": 16, "n": 16} for count in ELEMENTS[1:]],
          label="gufunc_matvec_parallel", size_key="b"),
    # @stencil: called from Python (Numba: a serial loop nest) and from @njit(parallel=True) (a parfor)
    Entry(_corpus("stencils.py"), "jacobi", _square("n,m", SIDES_2D), label="stencil_jacobi_python"),
    Entry(_corpus("stencils.py"), "laplacian3d", _square("n,m,p", SIDES_3D), label="stencil_laplacian3d_python"),
    Entry(_corpus("stencils.py"), "jacobi_into", _square("n,m", SIDES_2D), label="stencil_jacobi_parallel"),
    Entry(_corpus("stencils.py"), "jacobi_steps", _square("n,m", SIDES_2D[:5]), label="stencil_jacobi_steps_parallel"),
]
# Issue 32's slow shapes (tests/corpus/slow_shapes.py) and the collection kernels that had no
# benchmark case; `benchmarks/run.py --suite slow_shapes`.
COLLECTION = Path(__file__).resolve().parent.parent / "examples" / "collection"
_SLOW = _corpus("slow_shapes.py")
SLOW_SHAPES = [
    Entry(_SLOW, "conv2d_bias", [dict(h=side, w=side, k=3) for side in (100, 316, 1000, 2000)], size_key="h"),
    Entry(_SLOW, "column_covariance", [dict(n=10 * m, m=m) for m in (10, 32, 100, 316)]),
    Entry(_SLOW, "fft_radix2", _line([2**8, 2**12, 2**16, 2**20])),
    Entry(_SLOW, "floyd_warshall", _line([50, 100, 300, 600])),
    Entry(_SLOW, "complex_matmul", _square("n,m,p", [16, 64, 128, 256]), dtype="complex128"),
    Entry(_SLOW, "cholesky_rows", _line([50, 100, 300, 600])),
    Entry(_SLOW, "clip_chain", _line(ELEMENTS[1:])),
    Entry(_SLOW, "crc32_bits", _line([10**3, 10**4, 10**5, 10**6]), dtype="uint8"),
    Entry(_SLOW, "biquad", _line(ELEMENTS[1:])),
    Entry(str(COLLECTION / "a13_minmax_filter.py"), "median3x3", [dict(h=s, w=s) for s in (32, 100, 316, 1000)],
          size_key="h"),
    Entry(str(COLLECTION / "a13_minmax_filter.py"), "median3x3_sort", [dict(h=s, w=s) for s in (32, 100, 316)],
          size_key="h"),
    Entry(str(COLLECTION / "a06_upwind_advection.py"), "upwind_roll", [dict(n=n, steps=100) for n in (100, 10**3, 10**4, 10**5)]),
    Entry(str(COLLECTION / "b15_convolution_fir.py"), "convolve_same", [dict(n=n, m=15) for n in (10**3, 10**4, 10**5, 10**6)]),
]
SUITES = {"full": SUITE, "products": PRODUCTS, "kernel_api": KERNEL_API, "slow_shapes": SLOW_SHAPES}

# The two public-style collections (issue 32): every kernel their files' KPC_CASES list, timed at
# that kernel's largest case (the last size listed) in its first dtype; `benchmarks/run.py --suite collection`.
COLLECTIONS = [COLLECTION, COLLECTION.parent / "collection2"]


def collection_entries(prefixes: list | None = None) -> list:
    """One entry per listed kernel of the collections, labelled ``file_stem.kernel``; ``prefixes``
    keeps the labels that start with one of them (``a0,c2_06``)."""
    from kpc.check.spec import load_cases

    entries = []
    for folder in COLLECTIONS:
        for path in sorted(folder.glob("*.py")):
            for kernel, case in load_cases(path).cases.items():
                label = f"{path.stem}.{kernel}"
                if prefixes and not any(label.startswith(prefix) for prefix in prefixes):
                    continue
                largest = dict(case.sizes[-1])
                size_key = max(largest, key=lambda name: largest[name]) if largest else "n"
                if not largest:
                    largest["n"] = 1  # a case without sizes: the row's x position only
                entries.append(Entry(str(path), kernel, [largest], size_key, case.dtypes[0], label))
    return entries


def quick(entries: list) -> list:
    """The same entries on their two smallest sizes."""
    return [Entry(e.path, e.kernel, e.sizes[:2], e.size_key, e.dtype, e.label, e.bytes_per_call, dict(e.extra))
            for e in entries]
