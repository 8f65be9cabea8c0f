"""A time-stepping loop on the GPU: the arrays stay on the device across kpc calls.

    kpc build examples/gpu_time_loop.py --space cuda -o out     # needs a CUDA-enabled Kokkos
    python examples/gpu_time_loop.py out [n] [steps]            # needs CuPy and a GPU

A NumPy user keeps arrays on the device by converting them once before the loop
(``cupy.asarray``) and once after it (``.get()``): each call of a ``--space cuda`` kernel with
CuPy arrays uses them in place and returns as soon as its kernels are queued (in order with
CuPy's stream), so the loop waits for the device once, at the end. The same loop with NumPy
arrays pays a copy to the device and back on every call, or runs on the host where the
placement measured that faster. ``step``'s boundary statements run on one device thread
between its regions (kpc's one-thread-regions), so nothing moves to the host inside a call.
Prints both times and checks that the results agree.
"""

import importlib.util
import os
import sys
import time

import numpy as np
from numba import njit, prange


@njit(parallel=True)
def step(u, v, alpha):
    """One explicit step of the 2-D heat equation from u into v, insulated edges."""
    n, m = u.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            v[i, j] = u[i, j] + alpha * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
    for j in range(m):
        v[0, j] = v[1, j]
        v[n - 1, j] = v[n - 2, j]
    for i in range(n):
        v[i, 0] = v[i, 1]
        v[i, m - 1] = v[i, m - 2]


def run(step_fn, u, v, steps):
    for _ in range(steps):
        step_fn(u, v, 0.2)
        u, v = v, u
    return u


def main(out_dir: str, n: int = 2048, steps: int = 200) -> int:
    import cupy

    spec = importlib.util.spec_from_file_location("gpu_time_loop_kpc", os.path.join(out_dir, "gpu_time_loop.py"))
    built = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(built)
    start = np.zeros((n, n))
    start[n // 4: n // 2, n // 4: n // 2] = 1.0
    run(built.step, start.copy(), start.copy(), 3)  # first calls: builds, device build, placement

    began = time.perf_counter()
    on_host = run(built.step, start.copy(), start.copy(), steps)
    numpy_s = time.perf_counter() - began

    began = time.perf_counter()
    u, v = cupy.asarray(start), cupy.asarray(start)  # once, before the loop
    on_device = run(built.step, u, v, steps).get()  # .get() waits for the device, once
    cupy_s = time.perf_counter() - began

    agree = np.allclose(on_host, on_device, rtol=1e-12, atol=1e-14)
    print(f"{steps} steps of {n}x{n}: NumPy arrays {numpy_s:.3f} s, CuPy arrays {cupy_s:.3f} s "
          f"({numpy_s / cupy_s:.1f}x); results agree: {agree}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], *(int(a) for a in sys.argv[2:4])))
