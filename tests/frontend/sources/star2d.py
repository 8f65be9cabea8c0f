"""Seed kernel: 2-D five-point star stencil, interior points only, in parallel."""
# golden-signature: star2d(float64[:, :], float64[:, :], float64)
import numba


@numba.njit(parallel=True)
def star2d(a, out, w):
    n, m = a.shape
    for i in numba.prange(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = (1.0 - 4.0 * w) * a[i, j] + w * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])
