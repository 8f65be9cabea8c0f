"""3-D heat equation with NumPy slices (PolyBench heat-3d).

Exercises: 3-D slicing with shifts on every axis
(`A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1]`),
a long fused expression of 13 slice terms, ping-pong buffers updated in
place over a time loop, and a scalar coefficient from an argument.
"""
from numba import njit


@njit
def heat_3d(tsteps, A, B, c):
    for t in range(tsteps):
        B[1:-1, 1:-1, 1:-1] = (
            c * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
            + c * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
            + c * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
            + A[1:-1, 1:-1, 1:-1]
        )
        A[1:-1, 1:-1, 1:-1] = (
            c * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
            + c * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
            + c * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
            + B[1:-1, 1:-1, 1:-1]
        )


KPC_CASES = {
    "heat_3d": {
        "args": {
            "tsteps": {"kind": "scalar", "value": "t"},
            "A": ("n", "n", "n"),
            "B": ("n", "n", "n"),
            "c": {"kind": "scalar", "value": 0.125},
        },
        "dtypes": ["float64", "float32"],
        "sizes": [{"t": 1, "n": 2}, {"t": 2, "n": 5}, {"t": 3, "n": 12}],
        "writes": ["A", "B"],
        "layouts": ["C", "F", "strided"],
    },
}
