#!/usr/bin/env bash
# Download, where pip works, the wheels that scripts/distributed/device_check.sh installs on a GPU
# machine without network (its image has numba, cupy, msgpack, psutil, ... but no MPI and no Dask):
# MPICH, mpi4py, dask, distributed and everything they need (the image's own copies are not
# relied on), for CPython 3.12 on x86-64 Linux, into .kpc-carry/wheels (about 25 MB; .kpc-carry/ is ignored by git and carried).
#
#   bash scripts/distributed/fetch_wheels.sh [PYTHON]     (PYTHON: the pip to use, default python3)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=${1:-python3}
wheels=$repo/.kpc-carry/wheels
mkdir -p "$wheels"
"$python" -m pip download --quiet --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --platform manylinux1_x86_64 -d "$wheels" \
  "mpich>=4.1" "mpi4py>=3.1" "dask>=2023.1" "distributed>=2023.1"
ls -l "$wheels"
