# Included at the end of Kokkos's project() by scripts/cuda/host_kokkos.sh: the libraries of
# the host Kokkos are named libkpchost_kokkos*.so, so that a process can load them beside a
# CUDA Kokkos's libkokkos*.so (kpc.runtime.kokkos.find_host_kokkos).
set(CMAKE_SHARED_LIBRARY_PREFIX "libkpchost_")
