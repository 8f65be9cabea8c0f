// Smoke test of a CUDA Kokkos install: a parallel_for, a sum and a max reduction on the device.
#include <Kokkos_Core.hpp>
#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  int status = 0;
  {
    const int n = 1 << 20;
    Kokkos::View<double*> x("x", n);
    Kokkos::parallel_for("fill", n, KOKKOS_LAMBDA(int i) { x(i) = 0.5 * i; });
    double sum = 0.0, top = 0.0;
    Kokkos::parallel_reduce("sum", n, KOKKOS_LAMBDA(int i, double& s) { s += x(i); }, sum);
    Kokkos::parallel_reduce("max", n, KOKKOS_LAMBDA(int i, double& m) { if (x(i) > m) m = x(i); },
                            Kokkos::Max<double>(top));
    const double want = 0.5 * (double(n) * (n - 1) / 2.0);
    std::printf("space %s sum %.1f (want %.1f) max %.1f (want %.1f)\n",
                Kokkos::DefaultExecutionSpace::name(), sum, want, top, 0.5 * (n - 1));
    status = (sum == want && top == 0.5 * (n - 1)) ? 0 : 1;
  }
  Kokkos::finalize();
  return status;
}
