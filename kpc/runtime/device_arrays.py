"""CUDA support of the runtime: the compiler of a CUDA Kokkos, its flags, and CUDA arrays.

A Kokkos built with CUDA must compile generated modules with its own compiler, the one
its CMake config records (``Kokkos_CXX_COMPILER``: ``nvcc_wrapper``, or the
``kpc_nvcc_wrapper`` that ``scripts/cuda/kokkos_cuda_install.sh`` installs), and modules
link the CUDA driver (``-lcuda``). Any CUDA-enabled Kokkos works through ``KOKKOS_ROOT``;
nothing here depends on kpc's provisioning script.

Arguments with ``__cuda_array_interface__`` (CuPy arrays) are typed like NumPy arrays of
the same dtype, rank and contiguity, and passed to kernels without a copy.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Optional

_COMPILER_LINE = re.compile(r'SET\(\s*Kokkos_CXX_COMPILER\s+"([^"]*)"', re.IGNORECASE)
_CUDA_ARCHITECTURES_LINE = re.compile(r"SET\(\s*Kokkos_CUDA_ARCHITECTURES\s+\"?(\d+)", re.IGNORECASE)
_ARCH_LINE = re.compile(r"SET\(\s*Kokkos_ARCH\s+\"?([^)\"]*)", re.IGNORECASE)
# Kokkos_ARCH names of NVIDIA GPUs end in their compute capability (AMPERE80, HOPPER90).
_GPU_ARCH_NAME = re.compile(r"^(?:KEPLER|MAXWELL|PASCAL|VOLTA|TURING|AMPERE|ADA|HOPPER|BLACKWELL)(\d+)$",
                            re.IGNORECASE)


def has_cuda(install) -> bool:
    """Whether the Kokkos ``install`` was built with the CUDA backend."""
    return "Cuda" in tuple(install.backends)


def _config_texts(install) -> list:
    """The texts of the Kokkos ``install``'s CMake config files."""
    return [path.read_text(errors="replace") for path in sorted(Path(install.cmake_dir).glob("KokkosConfig*.cmake"))]


def kokkos_cxx_compiler(install) -> Optional[str]:
    """The C++ compiler the Kokkos ``install`` was built with, as its CMake config records it."""
    for text in _config_texts(install):
        match = _COMPILER_LINE.search(text)
        if match and match.group(1):
            return match.group(1)
    return None


def probe_arguments(install) -> list:
    """Extra CMake arguments of the toolchain probe: a CUDA Kokkos's own compiler."""
    if not has_cuda(install):
        return []
    compiler = kokkos_cxx_compiler(install)
    arguments = ["-DKPC_CUDA=ON"] + ([f"-DCMAKE_CXX_COMPILER={compiler}"] if compiler else [])
    architecture = cuda_architecture(install)
    if compiler and is_nvcc_wrapper(compiler) and architecture:
        # CMake's compiler check runs the bare wrapper, whose default architecture (sm_70 in
        # Kokkos 4.6) CUDA 13 no longer supports: give it the install's own.
        arguments.append(f"-DCMAKE_CXX_FLAGS=-arch={architecture}")
    return arguments


def cuda_architecture(install) -> Optional[str]:
    """``sm_NN`` of the GPU the Kokkos ``install`` was built for, from its CMake config
    (``Kokkos_CUDA_ARCHITECTURES`` in 4.x, else the GPU entry of ``Kokkos_ARCH``)."""
    texts = _config_texts(install)
    for text in texts:
        match = _CUDA_ARCHITECTURES_LINE.search(text)
        if match:
            return f"sm_{match.group(1)}"
    for text in texts:
        for match in _ARCH_LINE.finditer(text):
            for name in re.split(r"[;\s]+", match.group(1)):
                gpu = _GPU_ARCH_NAME.match(name.strip())
                if gpu:
                    return f"sm_{gpu.group(1)}"
    return None


def is_nvcc_wrapper(compiler: str) -> bool:
    return "nvcc" in Path(compiler).name


def cuda_link_flags(link_flags) -> tuple:
    """Kokkos 3.x's CUDA backend calls the driver API: link ``libcuda`` when it is not already."""
    flags = tuple(link_flags)
    return flags if "-lcuda" in flags else flags + ("-lcuda",)


def include_flags(include_dirs, compiler: str) -> list:
    """``-isystem DIR`` per folder; plain ``-IDIR`` through nvcc_wrapper, which would hand
    ``-isystem`` to the host compiler only and hide the folder from nvcc's device pass."""
    flags = []
    for include_dir in include_dirs:
        flags += [f"-I{include_dir}"] if is_nvcc_wrapper(compiler) else ["-isystem", include_dir]
    return flags


def cuda_compile_flags(fastmath: bool) -> list:
    """Device-code counterparts of kpc's floating-point flags: no fused multiply-adds unless
    fastmath (Numba does not fuse), fast math where the function asked for it."""
    return ["--use_fast_math"] if fastmath else ["--fmad=false"]


def gpu_available() -> bool:
    """Whether ``nvidia-smi`` sees a GPU."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        result = subprocess.run([smi, "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0 and "GPU" in result.stdout


def is_cuda_array(value) -> bool:
    """A CUDA array other than a NumPy array (CuPy, Numba device arrays, ...)."""
    return hasattr(type(value), "__cuda_array_interface__") or hasattr(value, "__cuda_array_interface__")


def cuda_array_type(value):
    """``("array", dtype, ndim, layout)`` of a CUDA array, as ``argument_types.typeof`` types NumPy arrays."""
    import numpy as np

    interface = value.__cuda_array_interface__
    dtype = np.dtype(interface["typestr"])
    shape = tuple(interface["shape"])
    strides = interface.get("strides")
    return ("array", dtype.name, len(shape), _layout(shape, strides, dtype.itemsize))


def _layout(shape, strides, itemsize) -> str:
    if strides is None:
        return "C"
    c_ok = f_ok = True
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            c_ok = False
        expected *= extent
    expected = itemsize
    for extent, stride in zip(shape, strides):
        if extent != 1 and stride != expected:
            f_ok = False
        expected *= extent
    return "C" if c_ok else "F" if f_ok else "A"
