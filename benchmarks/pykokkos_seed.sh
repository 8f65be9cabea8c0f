#!/usr/bin/env bash
# The seed kernels under Numba, kpc's Kokkos C++ target and kpc's PyKokkos target on upstream
# PyKokkos, all three in the same interleaved runs (`kpc bench --target all`: best and median
# of 7 after warm-up, ratio = Numba time / target time).
#
#   source .venv-pykokkos/env.sh          # scripts/pykokkos/build_upstream.sh made it
#   THREADS=2 benchmarks/pykokkos_seed.sh [OUT]   # default OUT: benchmarks/results/pykokkos
#
# Upstream compiles workunits into ./pk_cpp: the runs happen in .venv-pykokkos/work (or a
# temporary folder), so compiled workunits are reused and the checkout stays clean.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mkdir -p "${1:-$repo/benchmarks/results/pykokkos}" && cd "${1:-$repo/benchmarks/results/pykokkos}" && pwd)
export OMP_NUM_THREADS=${THREADS:-2} NUMBA_NUM_THREADS=${THREADS:-2} OMP_PROC_BIND=${OMP_PROC_BIND:-false}
work=$repo/.venv-pykokkos/work
[ -d "$work" ] || work=$(mktemp -d)
cd "$work"
bench() {
    local name=$1 sizes=$2
    kpc bench "$repo/tests/corpus/$name.py" --target all --repeats "${REPEATS:-7}" --budget "${BUDGET:-10}" \
        --sizes "$sizes" --out "$out/$name"
}
bench lennard_jones n=1000,n=3000,n=10000
bench sum2d m=316,n=316,m=1000,n=1000,m=3162,n=3162
bench sum3d n=46,m=46,k=46,n=100,m=100,k=100,n=215,m=215,k=215
bench star n=316,m=316,n=1000,m=1000,n=3162,m=3162
bench star2 n=316,m=316,steps=10,n=1000,m=1000,steps=10
