#!/usr/bin/env bash
# Build the CPU Kokkos that the host build of `--space cuda` modules compiles against.
#
#   scripts/cuda/host_kokkos.sh SRC_DIR PREFIX
#
# SRC_DIR is a Kokkos source tree (4.x, or 3.4); PREFIX the install folder, which
# KPC_HOST_KOKKOS_ROOT then names. OpenMP + Serial, Release, shared libraries, built by the
# host compiler. A --space cuda module loads this Kokkos and the CUDA one into one process,
# and a dynamic loader loads one library per name: so the libraries are named
# libkpchost_kokkoscore.so (and so on) through a CMake file included at the end of Kokkos's
# project() (host_kokkos_names.cmake), and neither Kokkos's sources nor its exported CMake
# targets change. An install already in PREFIX is kept.
#
# Environment: KPC_BUILD_JOBS (compile jobs, default: every core).
set -euo pipefail

src=$(cd "${1:?usage: host_kokkos.sh SRC_DIR PREFIX}" && pwd)
prefix=${2:?usage: host_kokkos.sh SRC_DIR PREFIX}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
say() { printf 'host_kokkos: %s\n' "$*"; }

if ls "$prefix"/lib*/libkpchost_kokkoscore.* > /dev/null 2>&1; then
  say "already installed in $prefix"
  exit 0
fi
build=$prefix.build
mkdir -p "$build"
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
# GCC gives template statics and inline functions' static locals STB_GNU_UNIQUE binding, which
# the dynamic loader unifies across every library of the process, RTLD_LOCAL or not: the two
# Kokkos would share their host atomic lock array (desul's HOST_SPACE_ATOMIC_LOCKS_DEVICE) and
# free it twice at exit. Without it they are weak symbols, bound inside each library.
flags=""
"${CXX:-c++}" --version 2> /dev/null | grep -qi -e gcc -e "g++" -e "free software" && flags="-fno-gnu-unique"
# A compiler without a shared libstdc++ (a relocated GCC, like the GPU machine's) links a private
# copy into each library and exports it; beside the interpreter's, Kokkos::initialize crashed in
# its first `ostream << long` (as scripts/bootstrap.sh and kpc's own module links say).
link=""
libstdcxx=$("${CXX:-c++}" -print-file-name=libstdc++.so 2> /dev/null || true)
if [ -n "$libstdcxx" ] && [ "${libstdcxx#*/}" = "$libstdcxx" ]; then
  link="-Wl,--exclude-libs,ALL"
fi
say "configuring Kokkos from $src (OpenMP, Serial; log: $build/configure.log)"
cmake -S "$src" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$link" \
  -DBUILD_SHARED_LIBS=ON \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF \
  -DCMAKE_PROJECT_Kokkos_INCLUDE="$here/host_kokkos_names.cmake" > "$build/configure.log" 2>&1 \
  || { tail -n 40 "$build/configure.log" >&2; exit 1; }
say "building (log: $build/build.log)"
cmake --build "$build" -j "${KPC_BUILD_JOBS:-$(nproc)}" > "$build/build.log" 2>&1 \
  || { grep -m 20 -B2 -A8 "error" "$build/build.log" >&2; exit 1; }
cmake --install "$build" > "$build/install.log" 2>&1 || { tail -n 20 "$build/install.log" >&2; exit 1; }
ls "$prefix"/lib*/libkpchost_kokkoscore.* > /dev/null 2>&1 \
  || { say "the install has no libkpchost_kokkoscore: the renaming did not apply" >&2; exit 1; }
say "installed in $prefix (KPC_HOST_KOKKOS_ROOT=$prefix)"
