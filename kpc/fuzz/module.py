"""Generated modules: many kernels in one Python file, so that one C++ compile covers them all.

A module is fully determined by ``(seed, index, count, options)``; ``source(names)`` writes
it, or a smaller module with only some of its kernels (and the helpers they call), each
with its ``KPC_CASES`` entry — what ``kpc check`` and the corpus tests read.

>>> module = generate_module(seed=7, index=0, count=3)
>>> [k.name for k in module.kernels]
['fz7_0_0', 'fz7_0_1', 'fz7_0_2']
>>> module.source() == generate_module(seed=7, index=0, count=3).source()
True
>>> "fz7_0_1" in module.source(["fz7_0_0"])
False
"""

from __future__ import annotations

import pprint
import random
from dataclasses import dataclass

from kpc.fuzz.expressions import FuzzOptions
from kpc.fuzz.kernels import HelperPool, KernelGenerator

IMPORTS = "import math\n\nimport numpy as np\nfrom numba import njit, prange\n"


@dataclass
class GeneratedModule:
    seed: int
    index: int
    kernels: list
    helpers: HelperPool

    def kernel(self, name: str):
        return next(k for k in self.kernels if k.name == name)

    def source(self, names=None, note: str = "") -> str:
        """The module text with the kernels ``names`` (default: all of them)."""
        kernels = [k for k in self.kernels if names is None or k.name in names]
        helpers = self.helpers.closure([h for k in kernels for h in k.helpers])
        doc = f"kpc fuzz: seed {self.seed}, module {self.index}, {len(kernels)} kernel(s)."
        if note:
            doc += "\n\n" + note.rstrip() + "\n"
        parts = [f'"""{doc}"""\n', IMPORTS]
        parts += [h.source for h in helpers]
        parts += [k.source for k in kernels]
        cases = {k.name: k.case for k in kernels}
        parts.append("KPC_CASES = " + pprint.pformat(cases, width=110, sort_dicts=False) + "\n")
        return "\n\n".join(parts)


def generate_module(seed: int, index: int, count: int, options: FuzzOptions = FuzzOptions()) -> GeneratedModule:
    """``count`` kernels named ``fz<seed>_<index>_<k>``, the same for the same arguments."""
    rng = random.Random(f"kpc-fuzz:{seed}:{index}")
    helpers = HelperPool(rng, options)
    generator = KernelGenerator(rng, options, helpers)
    kernels = [generator.kernel(f"fz{seed}_{index}_{k}") for k in range(count)]
    return GeneratedModule(seed, index, kernels, helpers)
