#!/usr/bin/env bash
# The whole `--space cuda` acceptance run on a GPU machine with no network, from a kpc
# working tree (PYTHONPATH=., no install): build the CUDA Kokkos, kpc doctor, the GPU
# tests (kernel tests, then the corpus with NumPy and CuPy arguments), the benchmarks.
#
#   OUT=/some/dir bash scripts/cuda/gpu_check.sh [all|quick|tests|corpus|seed|bench]...
#
# Stages (default: all = tests corpus bench):
#   probe   scripts/cuda/reduce_probe.cpp: parallel_reduce forms on this Kokkos
#   triad_probe  scripts/cuda/triad_probe.cpp: triad forms vs a plain CUDA kernel
#   tests   tests/gpu/test_cuda.py without the corpus, on the device (KPC_PLACEMENT=device: zero
#           copy, copy-back, reductions, atomics, host code)
#   placement  tests/gpu/test_gpu_placement.py: both builds, the per-call choice, device arrays on the
#           host build, the first call from the host build, np.random / double buffer on the device
#   seed    the corpus test on the seed kernels only (sum2d, sum3d, Lennard-Jones, star, star2), on the device
#   corpus  the corpus test on every corpus file (pytest-xdist, one worker per core), on the device
#   pbench  benchmarks/placement.py (placement.json / .md / .png under $OUT)
#   bench   scripts/cuda/gpu_bench.py (JSON, markdown, PNG under $OUT)
#   quick   tests + seed + a short bench
# Needs a Kokkos 4.6.01 source tree in .kpc-carry/kokkos-4.6.01 (git archive of kokkos/kokkos
# 4.6.01; it builds the CUDA Kokkos and the host builds' CPU Kokkos, scripts/cuda/host_kokkos.sh),
# or .kpc-carry/pykokkos-base-0.0.7.tar.gz (scripts/cuda/fetch_kokkos_sdist.sh, CUDA Kokkos 3.4.01
# only), or an existing CUDA Kokkos in KOKKOS_ROOT (and KPC_HOST_KOKKOS_ROOT). Logs go to $OUT/*.log; the status of each stage to
# $OUT/summary.txt. The script keeps going after a failed stage and exits 1 if any failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/gpu_check_out}
mkdir -p "$OUT"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(all)
summary="$OUT/summary.txt"
: > "$summary"
failed=0
note() { echo "[gpu_check $(date -u +%H:%M:%S)] $*" | tee -a "$summary"; }

note "stages: ${stages[*]}"
nvidia-smi --query-gpu=name,memory.total,compute_cap,driver_version --format=csv,noheader 2>&1 | tee -a "$summary"
nvcc --version | tail -n 2 | tee -a "$summary"
python3 -c "import numba, numpy, cupy; print('numba', numba.__version__, 'numpy', numpy.__version__, 'cupy', cupy.__version__)" 2>&1 | tee -a "$summary"

kokkos4=.kpc-carry/kokkos-4.6.01  # a Kokkos 4.6.01 source tree, when carried
if [ -z "${KOKKOS_ROOT:-}" ]; then
  prefix=${KPC_KOKKOS_PREFIX:-/opt/kokkos-cuda}
  mkdir -p "$prefix" 2>/dev/null && [ -w "$prefix" ] || prefix=/tmp/kokkos-cuda
  started=$(date +%s)
  if [ -d "$kokkos4" ]; then
    KPC_CHECK_TESTS=0 KPC_BUILD_JOBS=$(nproc) bash scripts/kokkos4_check.sh "$kokkos4" "$prefix" > "$OUT/kokkos_install.log" 2>&1
  else
    bash scripts/cuda/kokkos_cuda_install.sh "$prefix" .kpc-carry/pykokkos-base-0.0.7.tar.gz > "$OUT/kokkos_install.log" 2>&1
  fi
  if [ -f "$prefix/lib/cmake/Kokkos/KokkosConfig.cmake" ] || [ -f "$prefix/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
    note "Kokkos CUDA installed in $prefix in $(( $(date +%s) - started )) s"
  else
    note "FAILED: Kokkos CUDA install (see kokkos_install.log)"; tail -n 30 "$OUT/kokkos_install.log"; exit 1
  fi
  export KOKKOS_ROOT=$prefix
fi
# The host build of --space cuda modules needs a CPU Kokkos whose libraries have other names.
if [ -z "${KPC_HOST_KOKKOS_ROOT:-}" ] && [ -d "$kokkos4" ]; then
  host_prefix=${KPC_HOST_KOKKOS_PREFIX:-/opt/kokkos-host}
  mkdir -p "$host_prefix" 2>/dev/null && [ -w "$host_prefix" ] || host_prefix=/tmp/kokkos-host
  started=$(date +%s)
  if bash scripts/cuda/host_kokkos.sh "$kokkos4" "$host_prefix" > "$OUT/host_kokkos_install.log" 2>&1; then
    note "host Kokkos installed in $host_prefix in $(( $(date +%s) - started )) s"
    export KPC_HOST_KOKKOS_ROOT=$host_prefix
  else
    note "FAILED: host Kokkos install (see host_kokkos_install.log); --space cuda runs without host builds"
    tail -n 20 "$OUT/host_kokkos_install.log"
  fi
fi
export PYTHONPATH=$repo${PYTHONPATH:+:$PYTHONPATH}
export KPC_CACHE_DIR=${KPC_CACHE_DIR:-/tmp/kpc-cache}
export OMP_PROC_BIND=${OMP_PROC_BIND:-false}
jobs=$(nproc)

python3 -c "from kpc.cli import main; raise SystemExit(main(['doctor']))" > "$OUT/doctor.log" 2>&1
note "kpc doctor exit $?"; cat "$OUT/doctor.log"

run_stage() {  # name, command...
  local name=$1; shift
  local started=$(date +%s)
  "$@" > "$OUT/$name.log" 2>&1
  local status=$?
  note "$name: exit $status in $(( $(date +%s) - started )) s: $(grep -E '[0-9]+ (passed|failed|error)' "$OUT/$name.log" | tail -n 1)"
  if [ $status -ne 0 ]; then
    failed=1
    grep -E "^(FAILED|ERROR)|Error|error:" "$OUT/$name.log" | head -n 40
    tail -n 60 "$OUT/$name.log"
  fi
}

pytest_args=(-p no:cacheprovider -o addopts= -q -rfE)
# the probes compile with Kokkos' nvcc_wrapper for this machine's GPU
wrapper=$KOKKOS_ROOT/bin/kpc_nvcc_wrapper
[ -x "$wrapper" ] || wrapper=$KOKKOS_ROOT/bin/nvcc_wrapper
probe_flags="-O3 -std=c++17 --expt-extended-lambda -arch=native -fopenmp -I$KOKKOS_ROOT/include -L$KOKKOS_ROOT/lib -lkokkoscore -lcuda -ldl -Xlinker -rpath=$KOKKOS_ROOT/lib"
seed_k="sum2d or sum3d or lennard_jones or star"
for stage in "${stages[@]}"; do
  case "$stage" in
    all) set -- tests corpus bench ;;
    quick) set -- tests seed quick_bench ;;
    *) set -- "$stage" ;;
  esac
  for s in "$@"; do
    case "$s" in
      probe) run_stage reduce_probe bash -c "\"$wrapper\" -Ikpc/backend/kokkos scripts/cuda/reduce_probe.cpp -o /tmp/reduce_probe $probe_flags && /tmp/reduce_probe" ; cat "$OUT/reduce_probe.log" ;;
      triad_probe) run_stage triad_probe bash -c "\"$wrapper\" scripts/cuda/triad_probe.cpp -o /tmp/triad_probe $probe_flags && /tmp/triad_probe" ; cat "$OUT/triad_probe.log" ;;
      tests) run_stage gpu_tests env KPC_PLACEMENT=device python3 -m pytest "${pytest_args[@]}" tests/gpu/test_cuda.py -k "not corpus" ;;
      placement) run_stage gpu_placement python3 -m pytest "${pytest_args[@]}" -s tests/gpu/test_gpu_placement.py -n 4 ;;
      pbench) run_stage placement_bench python3 benchmarks/placement.py "$OUT" ${KPC_PBENCH_ARGS:-} ; cat "$OUT/placement.md" 2>/dev/null ;;
      seed) run_stage gpu_seed env KPC_PLACEMENT=device python3 -m pytest "${pytest_args[@]}" tests/gpu/test_cuda.py -k "corpus and ($seed_k)" -n 5 --dist loadgroup ;;
      corpus) run_stage gpu_corpus env KPC_PLACEMENT=device python3 -m pytest "${pytest_args[@]}" tests/gpu/test_cuda.py -k corpus -n "$jobs" --dist loadgroup ;;
      bench) run_stage gpu_bench python3 scripts/cuda/gpu_bench.py "$OUT" ${KPC_BENCH_ARGS:-} ; cat "$OUT/cuda_bench.md" 2>/dev/null ;;
      quick_bench) run_stage gpu_bench python3 scripts/cuda/gpu_bench.py "$OUT" --quick ; cat "$OUT/cuda_bench.md" 2>/dev/null ;;
      *) note "unknown stage $s"; failed=1 ;;
    esac
  done
done
note "done; failed=$failed"
exit $failed
