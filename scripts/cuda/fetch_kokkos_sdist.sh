#!/usr/bin/env bash
# Download the pykokkos-base 0.0.7 sdist (it carries Kokkos 3.4.01's sources) into .kpc-carry/,
# on a machine that reaches the package registry, for kokkos_cuda_install.sh on the GPU machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
dest="$here/.kpc-carry"
mkdir -p "$dest"
if [ -f "$dest/pykokkos-base-0.0.7.tar.gz" ]; then
  echo "fetch_kokkos_sdist: already have $dest/pykokkos-base-0.0.7.tar.gz"
  exit 0
fi
python=${PYTHON:-$here/.venv/bin/python}
# --no-build-isolation: pip still prepares the sdist's metadata; with the build prerequisites
# installed (scripts/bootstrap.sh) that needs no download of its own.
"$python" -m pip download --no-deps --no-binary :all: --no-build-isolation pykokkos-base==0.0.7 -d "$dest"
echo "fetch_kokkos_sdist: $dest/pykokkos-base-0.0.7.tar.gz"
