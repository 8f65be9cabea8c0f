"""A drop-in module seen through CuPy: NumPy arguments become CuPy arrays for the call,
what the kernel wrote is copied back into them, CuPy results come back as NumPy, so
``kpc.check.runner.check_file`` compares CuPy runs against Numba unchanged."""

from __future__ import annotations

import numpy as np


class CupyInputs:
    def __init__(self, module):
        self._module = module
        self.result_types: list = []

    def __getattr__(self, name):
        function = getattr(self._module, name)
        if not callable(function):
            return function

        def call(*args):
            import cupy

            device = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
            returned = function(*device)
            for host, dev in zip(args, device):
                if isinstance(host, np.ndarray) and host.flags.writeable:
                    host[...] = cupy.asnumpy(dev)
            self.result_types.append(type(returned))
            return to_numpy(returned)

        return call


def to_numpy(value):
    import cupy

    if isinstance(value, cupy.ndarray):
        return cupy.asnumpy(value)
    if isinstance(value, tuple):
        return tuple(to_numpy(v) for v in value)
    return value
