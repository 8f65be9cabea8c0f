"""Integer widths: range over int32 and uint64 bounds, floor division and modulo stay integers."""
# golden-signature: int_loops(int32, uint64, int64)
from numba import njit


@njit
def int_loops(n, m, k):
    s = 0
    for i in range(n):
        s += i
    t = 0
    for j in range(m):
        t += j
    for q in range(k, 0, -1):
        s += q // 3 + q % 3
    return s, t
