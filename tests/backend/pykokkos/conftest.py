"""The golden files are generated PyKokkos modules to compare against, not tests to import."""

collect_ignore_glob = ["golden/*.py"]
