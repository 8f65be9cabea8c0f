#!/usr/bin/env bash
# Check kpc against a Kokkos 4.x source tree: build and install it, then run kpc doctor, the
# Kokkos corpus test and the Kokkos backend tests against that install.
#
#   scripts/kokkos4_check.sh SRC_DIR [PREFIX]
#
# SRC_DIR is a Kokkos source tree (a release tarball, or `git archive 4.6.01 | tar -x -C DIR`).
# PREFIX is where it is installed (default: a folder under ${TMPDIR:-/tmp} named after the
# source tree); an install already in PREFIX is reused, so a second run only runs the tests.
# The build is Release, C++ standard as Kokkos picks it (17 for 4.x), shared libraries, so that
# several kpc modules in one process share one Kokkos state, with OpenMP + Serial; when nvcc
# is found and nvidia-smi shows a GPU, CUDA too, with the options kpc's CUDA target needs
# (lambda dispatch, constexpr device calls, the device's architecture; nvcc_wrapper as the
# compiler, as scripts/cuda/kokkos_cuda_install.sh does for 3.4).
# The tests run with KOKKOS_ROOT=PREFIX and a build cache of their own (PREFIX/kpc-cache), so
# the user's cache never mixes modules of two Kokkos installs; their logs go to
# PREFIX/kpc-check-logs.
#
# Environment: KPC_BUILD_JOBS (compile jobs, default 2), KPC_PYTEST_JOBS (pytest -n, default 1),
#              KPC_VENV (default <repo>/.venv), KPC_CHECK_TESTS (0: build and kpc doctor only).
# Exit status: 0 when every step passed, 1 otherwise; the summary names the failed steps.
set -uo pipefail

src=$(cd "${1:?usage: kokkos4_check.sh SRC_DIR [PREFIX]}" && pwd) || exit 1
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${2:-${TMPDIR:-/tmp}/kpc-kokkos-$(basename "$src")}
venv=${KPC_VENV:-$repo/.venv}
jobs=${KPC_BUILD_JOBS:-2}
pytest_jobs=${KPC_PYTEST_JOBS:-1}

say() { printf 'kokkos4_check: %s\n' "$*"; }

[ -f "$src/CMakeLists.txt" ] && [ -d "$src/core" ] || { say "$src is not a Kokkos source tree" >&2; exit 1; }
version=$(sed -n 's/^ *set(Kokkos_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' "$src/CMakeLists.txt" | paste -sd.)
say "Kokkos ${version:-?} from $src -> $prefix"

if [ -f "$prefix/lib/cmake/Kokkos/KokkosConfig.cmake" ] || [ -f "$prefix/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
  say "already installed in $prefix; skipping the build"
else
  build=$prefix.build
  options=(-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON)
  spaces="OpenMP, Serial"
  cap=""
  command -v nvcc > /dev/null && command -v nvidia-smi > /dev/null \
    && cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n 1 | tr -d .)
  if [ -n "$cap" ]; then
    # CUDA only where a GPU is visible: nvcc alone gives no architecture, and nvcc_wrapper's
    # default (sm_70) is refused by CUDA 13. Kokkos 4 always compiles lambdas for the device
    # (CUDA_LAMBDA is on by itself); the options stay for 3.x trees. The -arch flag makes
    # CMake's compiler check use the device's architecture too.
    declare -A cuda_archs=([70]=VOLTA70 [75]=TURING75 [80]=AMPERE80 [86]=AMPERE86 [89]=ADA89
                           [90]=HOPPER90 [100]=BLACKWELL100 [120]=BLACKWELL120)
    options+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON
              "-DKokkos_ARCH_${cuda_archs[$cap]:-HOPPER90}=ON" "-DCMAKE_CXX_FLAGS=-arch=sm_$cap")
    spaces="CUDA sm_$cap, $spaces"
    # Kokkos 4.6 (and the develop tree 4.6.99) predates CUDA 13's API changes: build a patched
    # copy (the patches say why).
    cuda_major=$(nvcc --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
    cuda13_patch=""
    case $version in
      4.6.99) cuda13_patch=kokkos-4.6.99-cuda13.patch ;;
      4.6.*) cuda13_patch=kokkos-4.6-cuda13.patch ;;
    esac
    if [ "${cuda_major:-0}" -ge 13 ] && [ -n "$cuda13_patch" ]; then
      patched=$prefix.src
      rm -rf "$patched" && cp -r "$src" "$patched"
      say "CUDA $cuda_major: patching a copy ($patched) with scripts/patches/$cuda13_patch"
      patch --quiet --forward -p1 -d "$patched" < "$repo/scripts/patches/$cuda13_patch" || exit 1
      # CUDA 13 dropped sm_70, nvcc_wrapper's default architecture, which configure checks that
      # pass no -arch (4.6.99's linker-flag check) then use
      sed -i "s/^default_arch=\"sm_70\"/default_arch=\"sm_$cap\"/" "$patched/bin/nvcc_wrapper"
      src=$patched
    fi
    options+=("-DCMAKE_CXX_COMPILER=$src/bin/nvcc_wrapper")
  fi
  generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  say "configuring ($spaces; log: $build/configure.log)"
  mkdir -p "$build"
  cmake -S "$src" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DBUILD_SHARED_LIBS=ON \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF \
    "${options[@]}" > "$build/configure.log" 2>&1 \
    || { tail -n 40 "$build/configure.log" >&2; exit 1; }
  say "building with $jobs jobs (log: $build/build.log; 10-20 minutes on 2 cores)"
  cmake --build "$build" -j "$jobs" > "$build/build.log" 2>&1 \
    || { grep -m 20 -B2 -A8 "error" "$build/build.log" >&2; exit 1; }
  cmake --install "$build" > "$build/install.log" 2>&1 || { tail -n 20 "$build/install.log" >&2; exit 1; }
  say "installed in $prefix"
fi

export KOKKOS_ROOT=$prefix
export KPC_CACHE_DIR=$prefix/kpc-cache
unset Kokkos_DIR
failed=()
results=()

say "kpc doctor"
"$venv/bin/kpc" doctor || failed+=("kpc doctor")

logs=$prefix/kpc-check-logs
mkdir -p "$logs"
run_tests() {  # NAME LOG PATH...: run pytest into LOG, keep its last summary line
  local name=$1 log=$logs/$2.log
  shift 2
  say "pytest $* (log: $log)"
  (cd "$repo" && "$venv/bin/python" -m pytest -q -n "$pytest_jobs" -p no:cacheprovider -rf "$@") > "$log" 2>&1
  local status=$?
  grep -E '^(FAILED|ERROR) ' "$log"
  results+=("$name: $(grep -E '[0-9]+ (passed|failed|error)' "$log" | tail -n 1 | tr -d '=' | sed 's/^ *//')")
  [ "$status" -eq 0 ] || failed+=("$name")
}
if [ "${KPC_CHECK_TESTS:-1}" != 0 ]; then
  run_tests "corpus (Kokkos target)" corpus tests/corpus/test_corpus_kokkos.py
  run_tests "Kokkos backend tests" backend tests/backend/kokkos
fi

say "summary for Kokkos ${version:-?} in $prefix"
for line in "${results[@]}"; do say "  $line"; done
if [ ${#failed[@]} -eq 0 ]; then
  say "all steps passed"
  exit 0
fi
say "failed: ${failed[*]}"
exit 1
