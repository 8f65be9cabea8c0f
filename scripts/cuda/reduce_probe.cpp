// Probe of parallel_reduce forms on a CUDA Kokkos: kpc's struct reducer (kpc::Reduce), the same
// with volatile-correct joins, a plain scalar lambda reduction. Sum of ones over n: want n.
#include "kpc_semantics.hpp"

#include <cstdio>

struct Acc {
  double t;
  KOKKOS_INLINE_FUNCTION void init() { t = 0.0; }
  KOKKOS_INLINE_FUNCTION void join(const Acc& other) { t += other.t; }
};

struct AccV {
  double t;
  KOKKOS_INLINE_FUNCTION void init() { t = 0.0; }
  KOKKOS_INLINE_FUNCTION void join(const AccV& other) { t += other.t; }
  KOKKOS_INLINE_FUNCTION void join(const volatile AccV& other) volatile { t += other.t; }
};

template <class A>
struct ReduceV {
  using reducer = ReduceV<A>;
  using value_type = A;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  result_view_type result;
  KOKKOS_INLINE_FUNCTION explicit ReduceV(value_type& value) : result(&value) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest.join(src); }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const { dest.join(src); }
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value.init(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *result.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return result; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    using Policy = Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>;
    const int64_t sizes[] = {1, 2, 7, 33, 100, 1000, 1000000};
    for (int64_t n : sizes) {
      Kokkos::View<double*, Kokkos::CudaUVMSpace> x("x", n);
      Kokkos::parallel_for(Policy(0, n), KOKKOS_LAMBDA(const int64_t i) { x(i) = 1.0; });
      Kokkos::fence();
      Acc a;
      Kokkos::parallel_reduce("a", Policy(0, n), KOKKOS_LAMBDA(const int64_t i, Acc& acc) {
        double& t = acc.t;
        t += x(i);
      }, kpc::Reduce<Acc>(a));
      AccV b;
      Kokkos::parallel_reduce("b", Policy(0, n), KOKKOS_LAMBDA(const int64_t i, AccV& acc) {
        double& t = const_cast<double&>(acc.t);
        t += x(i);
      }, ReduceV<AccV>(b));
      double c = 0.0;
      Kokkos::parallel_reduce("c", Policy(0, n), KOKKOS_LAMBDA(const int64_t i, double& s) { s += x(i); }, c);
      double d = 0.0;
      Kokkos::parallel_reduce("d", Policy(0, n), KOKKOS_LAMBDA(const int64_t i, double& s) { s += x(i); },
                              Kokkos::Sum<double>(d));
      std::printf("n=%lld  kpc::Reduce %.1f  volatile-join %.1f  scalar %.1f  Sum %.1f\n", (long long)n, a.t, b.t,
                  c, d);
    }
  }
  Kokkos::finalize();
  return 0;
}
