"""A differential fuzzer: random Numba kernels built through kpc and compared with Numba.

``kpc fuzz --kernels N --seed S`` (``kpc.fuzz.campaign.run_campaign``) generates modules of
race-free kernels (``kpc.fuzz.kernels``), builds each module once through the Kokkos target,
runs every translated kernel beside Numba on ``KPC_CASES`` inputs in a child process
(``kpc.fuzz.worker``), and writes a standalone reproducer for every mismatch or crash.
"""
