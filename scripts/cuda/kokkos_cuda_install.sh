#!/usr/bin/env bash
# Build a CUDA + OpenMP Kokkos 3.4.01 from the pykokkos-base 0.0.7 sdist, on a machine with nvcc
# and no network (the GPU machine). Get the sdist on a machine with package access first:
#   scripts/cuda/fetch_kokkos_sdist.sh            # writes .kpc-carry/pykokkos-base-0.0.7.tar.gz
# then, on the GPU machine:
#   scripts/cuda/kokkos_cuda_install.sh PREFIX [SDIST]
# and point kpc at it: KOKKOS_ROOT=PREFIX kpc doctor
#
# Kokkos 3.4 predates CUDA 13 and Hopper; three shims make it build without editing its files:
#   1. KOKKOS_IMPL_HALF_TYPE_DEFINED: skip Kokkos's CUDA half type (does not compile on CUDA 13);
#   2. a force-included header restoring the pre-13 cudaMemPrefetchAsync(ptr, bytes, device, stream);
#   3. Kokkos_ARCH_AMPERE80 (3.4 knows no Hopper) with a compiler wrapper around nvcc_wrapper that
#      turns -arch=sm_80 into the device's own architecture (sm_90 on H100/H200), so the runtime
#      does not refuse the code on the device.
# The shims live in PREFIX/share/kpc-shims and are recorded in the installed Kokkos's flags, so
# modules that kpc builds against this install get them too.
set -euo pipefail

prefix=${1:?usage: kokkos_cuda_install.sh PREFIX [SDIST]}
here=$(cd "$(dirname "$0")" && pwd)
sdist=${2:-$here/../../.kpc-carry/pykokkos-base-0.0.7.tar.gz}
arch=${KPC_CUDA_ARCH:-}
if [ -z "$arch" ]; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
  arch="sm_${cap:-90}"
fi
jobs=${KPC_BUILD_JOBS:-$(nproc)}

if [ -f "$prefix/lib/cmake/Kokkos/KokkosConfig.cmake" ] || [ -f "$prefix/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
  echo "kokkos_cuda_install: a Kokkos is already installed in $prefix; nothing to do"
  exit 0
fi
[ -f "$sdist" ] || { echo "kokkos_cuda_install: no sdist at $sdist (run scripts/cuda/fetch_kokkos_sdist.sh where packages can be fetched)" >&2; exit 1; }
command -v nvcc >/dev/null || { echo "kokkos_cuda_install: nvcc not found" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "kokkos_cuda_install: unpacking Kokkos from $sdist"
tar xzf "$sdist" -C "$work" --wildcards '*/external/kokkos/*'
src=$(echo "$work"/*/external/kokkos)
# The same <cstdint> patch as scripts/bootstrap.sh: its host-only sources need it with GCC >= 13.
patch --quiet --forward -p1 -d "$src/../.." < "$here/../patches/kokkos-3.4.01-gcc13-cstdint.patch"

shims="$prefix/share/kpc-shims"
mkdir -p "$shims"
cat > "$shims/kpc_cuda13_prefetch.h" <<'HDR'
// kpc shim: CUDA 13 removed cudaMemPrefetchAsync(ptr, bytes, device, stream); Kokkos 3.4 calls it.
#pragma once
#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_H__)
#include <cuda_runtime.h>
#if CUDART_VERSION >= 13000
inline cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t bytes, int device, cudaStream_t stream = 0) {
  cudaMemLocation location{};
  if (device == cudaCpuDeviceId) {
    location.type = cudaMemLocationTypeHost;
    location.id = 0;
  } else {
    location.type = cudaMemLocationTypeDevice;
    location.id = device;
  }
  return cudaMemPrefetchAsync(ptr, bytes, location, 0u, stream);
}
#endif
#endif
HDR
mkdir -p "$prefix/bin"
cat > "$prefix/bin/kpc_nvcc_wrapper" <<WRAP
#!/usr/bin/env bash
# kpc shim: Kokkos 3.4's nvcc_wrapper with its Ampere flag turned into this device's architecture.
args=()
has_arch=0
for a in "\$@"; do
  case "\$a" in
    -arch=sm_80) args+=("-arch=$arch"); has_arch=1 ;;
    -arch=*) args+=("\$a"); has_arch=1 ;;
    *) args+=("\$a") ;;
  esac
done
[ \$has_arch -eq 1 ] || args=("-arch=$arch" "\${args[@]}")
exec "$prefix/bin/nvcc_wrapper" -include "$shims/kpc_cuda13_prefetch.h" -DKOKKOS_IMPL_HALF_TYPE_DEFINED "\${args[@]}"
WRAP
cp "$src/bin/nvcc_wrapper" "$prefix/bin/nvcc_wrapper"
chmod +x "$prefix/bin/nvcc_wrapper" "$prefix/bin/kpc_nvcc_wrapper"

echo "kokkos_cuda_install: configuring Kokkos 3.4.01 (CUDA $arch via Ampere80 + OpenMP + Serial) into $prefix"
cmake -S "$src" -B "$work/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_CXX_COMPILER="$prefix/bin/kpc_nvcc_wrapper" \
  -DCMAKE_CXX_STANDARD=17 \
  -DBUILD_SHARED_LIBS=ON \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
  -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON \
  -DKokkos_ARCH_AMPERE80=ON \
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF > "$work/configure.log" 2>&1 \
  || { tail -n 40 "$work/configure.log" >&2; exit 1; }
echo "kokkos_cuda_install: building with $jobs jobs"
cmake --build "$work/build" -j "$jobs" > "$work/build.log" 2>&1 || { grep -m 20 -B2 -A8 "error" "$work/build.log" >&2; exit 1; }
cmake --install "$work/build" > /dev/null
echo "kokkos_cuda_install: installed Kokkos (CUDA $arch, OpenMP, Serial) in $prefix"
