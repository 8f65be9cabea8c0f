#!/usr/bin/env bash
# Set up everything kpc needs, in .venv at the repository root:
#   1. the virtual environment (python3 -m venv), if missing;
#   2. kpc itself, editable, with the test, bench, mpi and dask extras (the suite runs
#      an mpiexec test and a Dask LocalCluster test), plus the packages
#      needed to build pykokkos-base; skipped when a stamp says this exact
#      pyproject.toml (and this script) were already installed;
#   3. Kokkos: if kpc's discovery finds one (KOKKOS_ROOT, Kokkos_DIR,
#      CMAKE_PREFIX_PATH, or this environment), it is used as is; otherwise
#      Kokkos 3.4.01 (OpenMP + Serial) is built into .venv through the PyPI
#      package pykokkos-base (a few minutes, once): its sdist is unpacked,
#      patched with scripts/patches/*.patch (GCC >= 13 needs <cstdint> includes
#      that Kokkos 3.4 lacks) and installed from that folder.
# Safe to run again: a second run changes nothing and takes about a second.
#
# Environment: KPC_VENV (venv folder, default <repo>/.venv),
#              KPC_BASE_PYTHON (interpreter that creates a new venv, default python3),
#              KPC_PYKOKKOS_BASE_SDIST (the pykokkos-base 0.0.7 sdist to use instead of
#              downloading it; default .kpc-carry/pykokkos-base-0.0.7.tar.gz when present,
#              as scripts/cuda/fetch_kokkos_sdist.sh writes it).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${KPC_VENV:-$repo/.venv}
python=$venv/bin/python

say() { printf 'bootstrap: %s\n' "$*"; }

# Packages pykokkos-base needs at build time; it is installed without build
# isolation so that it builds against these (notably the environment's pybind11,
# since its bundled copy does not build on Python 3.11).
build_prerequisites=(numpy wheel scikit-build "cmake<4" pybind11 setuptools_scm ninja)
pykokkos_base=pykokkos-base==0.0.7
pykokkos_base_sdist=${KPC_PYKOKKOS_BASE_SDIST:-$repo/.kpc-carry/pykokkos-base-0.0.7.tar.gz}
pykokkos_base_setup_args="-DENABLE_INTERNAL_PYBIND11=OFF -DENABLE_OPENMP=ON -DENABLE_SERIAL=ON \
-DENABLE_CUDA=OFF -DENABLE_THREADS=OFF -DENABLE_LAYOUTS=ON -DENABLE_MEMORY_TRAITS=OFF -DENABLE_VIEW_RANKS=3"

if [ ! -x "$python" ]; then
    say "creating virtual environment $venv"
    "${KPC_BASE_PYTHON:-python3}" -m venv "$venv"
fi

stamp_key=$(cat "$repo/pyproject.toml" "$repo/scripts/bootstrap.sh" | sha256sum | cut -c1-16)
stamp=$venv/.kpc-bootstrap-$stamp_key
if [ -f "$stamp" ]; then
    say "Python packages up to date ($venv)"
else
    say "installing build prerequisites: ${build_prerequisites[*]}"
    "$python" -m pip install --quiet "${build_prerequisites[@]}"
    say "installing kpc (editable) with extras test, bench, mpi, dask"
    "$python" -m pip install --quiet -e "$repo[test,bench,mpi,dask]"
    rm -f "$venv"/.kpc-bootstrap-*
    touch "$stamp"
fi

kokkos_status=0
kokkos_report=$("$python" -m kpc.runtime.kokkos 2>&1) || kokkos_status=$?
case $kokkos_status in
    0)
        say "using the Kokkos already installed:"
        printf '%s\n' "$kokkos_report"
        ;;
    1)
        pybind11_dir=$("$python" -m pybind11 --cmakedir)
        say "no Kokkos found; building Kokkos 3.4.01 (OpenMP + Serial) into $venv"
        say "  via: PYKOKKOS_BASE_SETUP_ARGS=\"$pykokkos_base_setup_args -Dpybind11_DIR=$pybind11_dir\""
        say "       $python -m pip install --no-build-isolation --no-cache-dir <its sdist, patched>"
        say "  (compiles Kokkos and its Python bindings: a few minutes, once)"
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
        if [ -f "$pykokkos_base_sdist" ]; then
            say "  sdist: $pykokkos_base_sdist"
            cp "$pykokkos_base_sdist" "$work/"
        else
            "$python" -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation \
                "$pykokkos_base" -d "$work"
        fi
        mkdir "$work/src"
        tar xzf "$work"/pykokkos-base-*.tar.gz -C "$work/src"
        source_dir=$(echo "$work"/src/pykokkos-base-*)
        for kokkos_patch in "$repo"/scripts/patches/kokkos-3.4.01-*.patch; do
            say "  patch: ${kokkos_patch#"$repo"/}"
            if command -v patch > /dev/null; then
                patch --quiet --forward -p1 -d "$source_dir" < "$kokkos_patch"
            elif command -v git > /dev/null; then
                (cd "$source_dir" && git apply -p1 "$kokkos_patch")
            else
                say "need patch or git to apply $kokkos_patch (e.g. apt-get install patch)" >&2
                exit 1
            fi
        done
        # A compiler whose libstdc++ exists only as a static archive (a relocated
        # GCC such as /opt/gcc: `c++ -print-file-name=libstdc++.so` prints a bare
        # name) links a private copy of libstdc++ into libkokkoscore.so and exports
        # its std:: symbols; next to the interpreter's shared libstdc++ the two
        # copies mix and Kokkos::initialize segfaults in its first `ostream << long`.
        # Keeping the archive's symbols local to the library avoids that.
        libstdcxx=$("${CXX:-c++}" -print-file-name=libstdc++.so 2> /dev/null || true)
        if [ -n "$libstdcxx" ] && [ "${libstdcxx#*/}" = "$libstdcxx" ]; then
            say "  ${CXX:-c++} has no shared libstdc++: linking Kokkos with -Wl,--exclude-libs,ALL"
            pykokkos_base_setup_args="$pykokkos_base_setup_args -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--exclude-libs,ALL"
        fi
        # --no-cache-dir: pip's wheel cache ignores PYKOKKOS_BASE_SETUP_ARGS, so it
        # would hand back a wheel built elsewhere with other options.
        PYKOKKOS_BASE_SETUP_ARGS="$pykokkos_base_setup_args -Dpybind11_DIR=$pybind11_dir" \
            "$python" -m pip install --quiet --no-build-isolation --no-cache-dir "$source_dir"
        "$python" -m kpc.runtime.kokkos
        ;;
    *)
        # KOKKOS_ROOT or Kokkos_DIR names a folder without Kokkos: building another
        # one would not help, since kpc honours those variables first.
        printf '%s\n' "$kokkos_report" >&2
        exit 1
        ;;
esac
say "done; next: $venv/bin/kpc doctor"
