"""Augmented assignment to scalars (with int-to-float widening) and to array elements."""
# golden-signature: accumulate(float32[:], int64[:, :])
from numba import njit


@njit
def accumulate(x, counts):
    total = 0
    prod = 1
    for i in range(x.shape[0]):
        total += x[i]
        prod *= 2
        counts[i, 0] += 1
        counts[i, 1] -= i
        counts[i][0] //= 2
        x[i] /= 2
        x[i] **= 2
    return total, prod
