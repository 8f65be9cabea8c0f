"""if/elif/else, while, break, continue and early returns."""
# golden-signature: classify(float64)
# golden-signature: first_index(int64[:], int64)
# golden-signature: collatz(int64)
from numba import njit


@njit
def classify(x):
    if x < 0:
        return -1
    elif x == 0:
        return 0
    elif x < 10:
        return 1
    else:
        return 2


@njit
def first_index(a, value):
    for i in range(a.shape[0]):
        if a[i] < 0:
            continue
        if a[i] == value:
            return i
    return -1


@njit
def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
        if steps > 1000:
            break
    return steps
