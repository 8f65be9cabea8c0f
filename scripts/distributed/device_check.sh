#!/usr/bin/env bash
# Issue 30's measurements on a machine of many cores and GPUs, with no network, from a kpc
# working tree (PYTHONPATH=., no install):
#
#   OUT=/some/dir bash scripts/distributed/device_check.sh [cpu] [gpu]     (default: cpu gpu)
#
#   cpu  builds a CPU Kokkos (OpenMP + Serial, scripts/cuda/host_kokkos.sh), then
#        - heat example, weak scaling: 1 rank x 4 threads against 4 ranks x 4 threads (the bar:
#          >= 3.5x the throughput), at a cache-sized and a memory-sized block per rank;
#        - the same 4 x 4 as independent processes (no MPI, no halo) and a compute-bound loop
#          (scripts/distributed/host_ceiling.py): what the host itself gives 4 processes at once;
#        - 4 ranks with no thread setting: the threads kpc gives each rank (threads x ranks <= cores);
#        - heat example, 4 ranks against one process: the field bit for bit (--check);
#        - Dask block example: LocalCluster 1 worker x 4 threads against 4 workers x 4 threads
#          (the bar: >= 3x), and the threaded scheduler.
#   gpu  builds a CUDA Kokkos (scripts/kokkos4_check.sh), then the heat example with device arrays
#        (--space cuda, KPC_PLACEMENT=device): 2 ranks on 2 GPUs (each rank's GPU printed), weak
#        scaling against 1 rank (the bar: >= 1.8x), and --check at a small size.
#
# What exists decides what runs: MPI needs mpi4py and an mpiexec that starts 2 ranks; Dask needs
# dask and distributed. The GPU image has neither MPI nor Dask: carry them as wheels in
# .kpc-carry/wheels (scripts/distributed/fetch_wheels.sh, 17 MB, run where pip works), which this
# script installs into a venv over the system's packages. Without MPI the scaling runs start
# independent processes with launcher variables set by hand (MPI_LOCALRANKID, MPI_LOCALNRANKS):
# kpc's threads and GPU choice are then shown, but no halo is exchanged, and the summary says so.
#
# Needs python3 with numba (and cupy for gpu), cmake and ninja, a C++ compiler, and the Kokkos
# 4.6.01 source tree in .kpc-carry/kokkos-4.6.01 unless KPC_DIST_CPU_KOKKOS (cpu) and
# KPC_DIST_CUDA_KOKKOS (gpu) name installed ones. Installs go to /tmp/kpc-dist (kept while the
# machine is). Results: $OUT/summary.txt and $OUT/logs_<stages>.tar.gz (default OUT:
# benchmarks/results/distributed/device_<time>).
# KPC_DIST_PYTHON names the interpreter (default python3); KPC_DIST_QUICK=1 shrinks every size
# (a dry run of the script itself, on a small machine).
# Each stage takes about 5-9 minutes on 16-32 cores (most of it building Kokkos), within one
# 10-minute command; run them as two commands.
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
OUT=${OUT:-$repo/benchmarks/results/distributed/device_$(date -u +%Y%m%d_%H%M)}
mkdir -p "$OUT"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(cpu gpu)
summary=$OUT/summary.txt
# Every log in $logs, packed at the end into $OUT/logs_<stages>.tar.gz (the device tool brings
# back 8 files of $OUT at the most).
logs=$OUT/logs
mkdir -p "$logs"
: >> "$summary"
failed=0
note() { echo "[device_check $(date -u +%H:%M:%S)] $*" | tee -a "$summary"; }
work=/tmp/kpc-dist
mkdir -p "$work"
kokkos_src=.kpc-carry/kokkos-4.6.01
export PYTHONPATH=$repo${PYTHONPATH:+:$PYTHONPATH}
export KPC_CACHE_DIR=${KPC_CACHE_DIR:-$work/kpc-cache}
export OMP_PROC_BIND=${OMP_PROC_BIND:-false}
export PYTHONUNBUFFERED=1
cores=$(nproc)

note "stages: ${stages[*]}; commit $(git rev-parse --short HEAD 2> /dev/null || echo '?'); $cores cores"
lscpu 2> /dev/null | grep -E "^(Model name|Socket|Core\(s\) per socket|Thread\(s\) per core|NUMA node\(s\)|L3)" | tee -a "$summary"
nvidia-smi -L 2>&1 | tee -a "$summary"

# Python: a venv over the system's packages, with the carried wheels (MPICH, mpi4py, Dask) in it.
py=${KPC_DIST_PYTHON:-python3}
quick=${KPC_DIST_QUICK:-0}
if [ "$quick" = 1 ]; then
  cpu_sizes=("64 256" "128 512"); cpu_steps=20; dask_size=1024; dask_chunk=256; gpu_rows=256; gpu_steps=20
else
  cpu_sizes=("512 2048" "4096 4096"); cpu_steps=1000; dask_size=8192; dask_chunk=1024; gpu_rows=8192; gpu_steps=500
fi
if [ -z "${KPC_DIST_PYTHON:-}" ] && ls .kpc-carry/wheels/*.whl > /dev/null 2>&1; then
  if [ ! -x "$work/venv/bin/python" ]; then
    # The image's packages (numba, numpy, cupy, pybind11) may live outside the interpreter's
    # system site (a user site, a PYTHONPATH): the venv sees every package folder python3 sees.
    python3 -m venv --system-site-packages "$work/venv" \
      && python3 -c "import sys; print('\n'.join(p for p in sys.path if p.endswith(('site-packages', 'dist-packages'))))" \
           > "$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/kpc_image_packages.pth" \
      && "$work/venv/bin/python" -m pip install -q --no-index --no-cache-dir --find-links .kpc-carry/wheels \
           mpich mpi4py dask distributed > "$logs/wheels.log" 2>&1 \
      || { note "installing .kpc-carry/wheels failed (wheels.log)"; tail -n 5 "$logs/wheels.log"; }
  fi
  [ -x "$work/venv/bin/python" ] && py=$work/venv/bin/python
fi
"$py" -c "import sys, numba, numpy; print('python', sys.version.split()[0], 'numba', numba.__version__, 'numpy', numpy.__version__)" 2>&1 | tee -a "$summary"
mpiexec=""
for candidate in "$(dirname "$py")/mpiexec" "$(command -v mpiexec || true)"; do
  [ -n "$candidate" ] && [ -x "$candidate" ] && { mpiexec=$candidate; break; }
done
has_mpi=0
if [ -n "$mpiexec" ] && timeout 60 "$mpiexec" -n 2 "$py" -c "from mpi4py import MPI; assert MPI.COMM_WORLD.Get_size() == 2" > "$logs/mpi_probe.log" 2>&1; then
  has_mpi=1
  note "MPI: $mpiexec ($("$py" -c 'from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])' 2>&1))"
else
  note "MPI: ABSENT (mpi4py or an mpiexec that starts 2 ranks: carry .kpc-carry/wheels, see fetch_wheels.sh); scaling runs use independent processes without halo exchange"
fi
has_dask=0
if "$py" -c "import dask, distributed" > /dev/null 2>&1; then
  has_dask=1
  note "Dask: $("$py" -c 'import dask, distributed; print(dask.__version__, distributed.__version__)')"
else
  note "Dask: ABSENT (dask and distributed: carry .kpc-carry/wheels); the Dask runs are skipped"
fi

heat=examples/distributed/heat_mpi.py
# ranks N [env...] -- heat args: the heat example on N ranks (mpiexec), or N processes given the
# launcher's variables by hand when there is no MPI (each then solves its block alone).
ranks() {
  local n=$1; shift
  local environment=()
  while [ "$1" != "--" ]; do environment+=("$1"); shift; done
  shift
  if [ $has_mpi = 1 ]; then
    env "${environment[@]}" timeout 500 "$mpiexec" -n "$n" "$py" "$heat" "$@"
    return
  fi
  processes "$n" "${environment[@]}" -- "$@"
}

# processes N [env...] -- heat args: N independent processes of the heat example (--no-mpi), given
# the launcher's variables by hand, so that kpc sizes and confines each as a rank; no halo is
# exchanged. With MPI present this is the host's ceiling for the weak-scaling runs.
processes() {
  local n=$1; shift
  local environment=()
  while [ "$1" != "--" ]; do environment+=("$1"); shift; done
  shift
  local pids=() status=0
  for ((r = 0; r < n; r++)); do
    env "${environment[@]}" PMI_RANK=$r PMI_SIZE=$n MPI_LOCALRANKID=$r MPI_LOCALNRANKS=$n \
      timeout 500 "$py" "$heat" --no-mpi "$@" > "$work/rank$r.out" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for ((r = 0; r < n; r++)); do sed "s/^/[process $r] /" "$work/rank$r.out"; done
  return $status
}

throughput() { grep -o '[0-9.]* Gcell/s' "$1" | awk '{s += $1} END {print s + 0}'; }
exchange_ms() { grep -o 'slowest rank: [0-9.]* ms' "$1" | grep -o '[0-9.]* ms' | head -n 1; }
# Without MPI each process prints its own throughput: the sum is the run's.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

run_logged() {  # name, command...: output to $OUT/name.log and the screen
  local name=$1; shift
  local started=$(date +%s)
  "$@" > "$logs/$name.log" 2>&1
  local status=$?
  cat "$logs/$name.log"
  note "$name: exit $status in $(( $(date +%s) - started )) s"
  [ $status = 0 ] || failed=1
  return $status
}

stage_cpu() {
  local prefix=${KPC_DIST_CPU_KOKKOS:-$work/kokkos-host}
  if [ -z "${KPC_DIST_CPU_KOKKOS:-}" ]; then
    local started=$(date +%s)
    if KPC_BUILD_JOBS=$cores bash scripts/cuda/host_kokkos.sh "$kokkos_src" "$prefix" > "$logs/kokkos_host_install.log" 2>&1; then
      note "CPU Kokkos in $prefix ($(( $(date +%s) - started )) s)"
    else
      note "FAILED: CPU Kokkos build (kokkos_host_install.log)"; tail -n 20 "$logs/kokkos_host_install.log"; failed=1; return
    fi
  fi
  export KOKKOS_ROOT=$prefix
  "$py" -m kpc.cli cache prepare > "$logs/cache_prepare.log" 2>&1 || note "kpc cache prepare failed (cache_prepare.log)"
  "$py" -m kpc.cli doctor > "$logs/doctor_cpu.log" 2>&1; note "kpc doctor exit $?"; grep -E "^(Kokkos|Rank|Threads|Device)" "$logs/doctor_cpu.log" | tee -a "$summary"
  # The module is built once (rank 0 of the first run); the later runs load it from the cache.
  run_logged heat_check ranks 4 -- --rows 1026 --cols 1026 --steps 40 --check
  for size in "${cpu_sizes[@]}"; do
    set -- $size
    local tag=${1}x${2}
    run_logged "heat_weak_${tag}_1x4" ranks 1 OMP_NUM_THREADS=4 -- --weak "$1" --cols "$2" --steps "$cpu_steps" --no-gather
    run_logged "heat_weak_${tag}_4x4" ranks 4 OMP_NUM_THREADS=4 -- --weak "$1" --cols "$2" --steps "$cpu_steps" --no-gather
    local one four
    one=$(throughput "$logs/heat_weak_${tag}_1x4.log"); four=$(throughput "$logs/heat_weak_${tag}_4x4.log")
    note "heat weak scaling, $1 rows x $2 columns per rank: 1 rank x 4 threads $one Gcell/s, 4 ranks x 4 threads $four Gcell/s (ghost-row exchange $(exchange_ms "$logs/heat_weak_${1}x${2}_4x4.log")/step): $(ratio "$four" "$one")x (bar 3.5x)$([ $has_mpi = 1 ] || echo '; no MPI: no halo exchange')"
    # the same without overlapping the exchange with the interior's update (the example's --no-overlap)
    run_logged "heat_weak_${tag}_4x4_no_overlap" ranks 4 OMP_NUM_THREADS=4 -- --weak "$1" --cols "$2" --steps "$cpu_steps" --no-gather --no-overlap
    note "  without overlap: 4 ranks x 4 threads $(throughput "$logs/heat_weak_${tag}_4x4_no_overlap.log") Gcell/s (exchange $(exchange_ms "$logs/heat_weak_${tag}_4x4_no_overlap.log")/step): $(ratio "$(throughput "$logs/heat_weak_${tag}_4x4_no_overlap.log")" "$one")x"
    if [ $has_mpi = 1 ]; then
      # the host's ceiling: 4 processes of the same block, no MPI and no halo, each on its 4 cores
      run_logged "heat_weak_${tag}_4x4_independent" processes 4 OMP_NUM_THREADS=4 -- --weak "$1" --cols "$2" --steps "$cpu_steps" --no-gather
      note "  ceiling, 4 independent processes x 4 threads (no MPI, no halo): $(throughput "$logs/heat_weak_${tag}_4x4_independent.log") Gcell/s: $(ratio "$(throughput "$logs/heat_weak_${tag}_4x4_independent.log")" "$one")x"
    fi
  done
  # compute-bound work (no memory traffic): 1 process x 4 threads against 4 at once, each on its cores
  run_logged host_compute_4x4 "$py" scripts/distributed/host_ceiling.py --processes 4 --threads 4
  note "compute-bound, 4 processes x 4 threads against 1 x 4: $(grep -o 'speedup [0-9.]*x' "$logs/host_compute_4x4.log")"
  run_logged heat_default_threads ranks 4 -- --weak 512 --cols 2048 --steps 50 --no-gather
  note "4 ranks, no thread setting ($cores cores): $(grep -o 'node-local rank [0-9]*, [0-9]* threads, host; .*' "$logs/heat_default_threads.log" | sort -u | tr '\n' ';')"
  if [ $has_dask = 1 ]; then
    local blocks=(examples/distributed/dask_blocks.py --size "$dask_size" --chunk "$dask_chunk" --repeats 3)
    run_logged dask_1x4 "$py" "${blocks[@]}" --workers 1 --threads 4
    run_logged dask_4x4 "$py" "${blocks[@]}" --workers 4 --threads 4
    run_logged dask_threaded env OMP_NUM_THREADS=4 "$py" "${blocks[@]}"
    local one four
    one=$(grep -o '[0-9.]* Melem/s' "$logs/dask_1x4.log" | awk '{print $1}'); four=$(grep -o '[0-9.]* Melem/s' "$logs/dask_4x4.log" | awk '{print $1}')
    note "Dask LocalCluster, $dask_size x $dask_size in $dask_chunk-blocks: 1 worker x 4 threads $one Melem/s, 4 workers x 4 threads $four Melem/s: $(ratio "$four" "$one")x (bar 3x)"
  fi
}

stage_gpu() {
  local prefix=${KPC_DIST_CUDA_KOKKOS:-$work/kokkos-cuda}
  if [ -z "${KPC_DIST_CUDA_KOKKOS:-}" ]; then
    local started=$(date +%s)
    KPC_CHECK_TESTS=0 KPC_BUILD_JOBS=$cores bash scripts/kokkos4_check.sh "$kokkos_src" "$prefix" > "$logs/kokkos_cuda_install.log" 2>&1
    if ls "$prefix"/lib*/cmake/Kokkos/KokkosConfig.cmake > /dev/null 2>&1; then
      note "CUDA Kokkos in $prefix ($(( $(date +%s) - started )) s)"
    else
      note "FAILED: CUDA Kokkos build (kokkos_cuda_install.log)"; tail -n 20 "$logs/kokkos_cuda_install.log"; failed=1; return
    fi
  fi
  export KOKKOS_ROOT=$prefix KPC_PLACEMENT=device KPC_DEVICE_BUILD=wait
  "$py" -m kpc.cli doctor > "$logs/doctor_gpu.log" 2>&1; note "kpc doctor exit $?"; grep -E "^(Kokkos|Rank|Threads|Device)" "$logs/doctor_gpu.log" | tee -a "$summary"
  "$py" -c "import cupy" 2> /dev/null || { note "cupy: ABSENT, the gpu stage needs it"; failed=1; return; }
  run_logged heat_cuda_check ranks 2 -- --space cuda --rows 1026 --cols 1026 --steps 40 --check
  run_logged heat_cuda_weak_1 ranks 1 -- --space cuda --weak "$gpu_rows" --cols "$gpu_rows" --steps "$gpu_steps" --no-gather
  run_logged heat_cuda_weak_2 ranks 2 -- --space cuda --weak "$gpu_rows" --cols "$gpu_rows" --steps "$gpu_steps" --no-gather
  run_logged heat_cuda_weak_2_no_overlap ranks 2 -- --space cuda --weak "$gpu_rows" --cols "$gpu_rows" --steps "$gpu_steps" --no-gather --no-overlap
  local one two
  one=$(throughput "$logs/heat_cuda_weak_1.log"); two=$(throughput "$logs/heat_cuda_weak_2.log")
  note "GPU ranks: $(grep -o 'rank [0-9]*: node-local rank [0-9]*, [0-9]* threads, [A-Za-z]* *[0-9]*' "$logs/heat_cuda_weak_2.log" | sort -u | tr '\n' ';')"
  note "heat weak scaling on GPUs, 8192 x 8192 per rank: 1 rank $one Gcell/s, 2 ranks $two Gcell/s (ghost-row exchange $(exchange_ms "$logs/heat_cuda_weak_2.log")/step): $(ratio "$two" "$one")x (bar 1.8x)$([ $has_mpi = 1 ] || echo '; no MPI: no halo exchange')"
  note "  without overlap: 2 ranks $(throughput "$logs/heat_cuda_weak_2_no_overlap.log") Gcell/s (exchange $(exchange_ms "$logs/heat_cuda_weak_2_no_overlap.log")/step): $(ratio "$(throughput "$logs/heat_cuda_weak_2_no_overlap.log")" "$one")x"
}

for stage in "${stages[@]}"; do
  case "$stage" in
    cpu) (stage_cpu; exit $failed) || failed=1 ;;
    gpu) (stage_gpu; exit $failed) || failed=1 ;;
    *) note "unknown stage $stage"; failed=1 ;;
  esac
done
note "done; failed=$failed"
tar czf "$OUT/logs_$(IFS=_; echo "${stages[*]}").tar.gz" -C "$OUT" logs && rm -rf "$logs"
exit $failed
