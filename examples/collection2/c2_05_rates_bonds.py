"""Fixed income: bond prices, yields by bisection, duration/convexity and a short-rate lattice.
The sort of helper-heavy scalar code found in fixed-income tutorials.
"""
import numpy as np
from numba import njit, prange


@njit
def bond_price(face, coupon, ytm, n_periods, freq):
    c = face * coupon / freq
    y = ytm / freq
    price = 0.0
    for k in range(1, n_periods + 1):
        price += c / (1.0 + y) ** k
    return price + face / (1.0 + y) ** n_periods


@njit
def ytm_bisect(price, face, coupon, n_periods, freq):
    lo, hi = -0.5, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if bond_price(face, coupon, mid, n_periods, freq) > price:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return 0.5 * (lo + hi)


@njit(parallel=True)
def yields_of(prices, coupons, maturities, face, freq):
    n = prices.shape[0]
    out = np.empty(n)
    for i in prange(n):
        out[i] = ytm_bisect(prices[i], face, coupons[i], maturities[i] * freq, freq)
    return out


@njit
def duration_convexity(cashflows, times, y):
    disc = np.exp(-y * times)
    pv = cashflows * disc
    price = pv.sum()
    dur = (times * pv).sum() / price
    conv = (times * times * pv).sum() / price
    return price, dur, conv


@njit
def ho_lee_zcb(r0, sigma, theta, dt, nsteps):
    # zero-coupon bond price on a recombining short-rate lattice, backward induction
    values = np.ones(nsteps + 1)
    for i in range(nsteps - 1, -1, -1):
        for j in range(i + 1):
            r = r0 + theta * i * dt + sigma * np.sqrt(dt) * (2 * j - i)
            values[j] = np.exp(-r * dt) * 0.5 * (values[j] + values[j + 1])
    return values[0]


KPC_CASES = {
    "yields_of": {
        "args": {"prices": {"kind": "array", "shape": ("n",), "low": 85.0, "high": 115.0},
                 "coupons": {"kind": "array", "shape": ("n",), "low": 0.01, "high": 0.08},
                 "maturities": {"kind": "index", "shape": ("n",), "low": 1, "high": 30},
                 "face": {"kind": "scalar", "value": 100.0}, "freq": {"kind": "scalar", "value": 2}},
        "sizes": [{"n": 1}, {"n": 3000}],
        "rtol": 1e-8,
        "atol": 1e-10,
    },
    "duration_convexity": {
        "args": {"cashflows": {"kind": "array", "shape": ("n",), "low": 1.0, "high": 5.0},
                 "times": {"kind": "array", "shape": ("n",), "values": "sorted", "low": 0.5, "high": 30.0},
                 "y": {"kind": "scalar", "value": 0.04}},
        "sizes": [{"n": 1}, {"n": 1000000}],
        "layouts": ["C", "strided"],
        "rtol": 1e-9,
    },
    "ho_lee_zcb": {
        "args": {"r0": {"kind": "scalar", "value": 0.03}, "sigma": {"kind": "scalar", "value": 0.01},
                 "theta": {"kind": "scalar", "value": 0.001}, "dt": {"kind": "scalar", "value": 0.01},
                 "nsteps": {"kind": "scalar", "value": "s"}},
        "sizes": [{"s": 1}, {"s": 100}, {"s": 2000}],
        "rtol": 1e-9,
    },
}
