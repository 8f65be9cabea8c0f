// kpc_scatter.hpp: privatized scatter updates (`hist[idx[i]] += 1` in a parallel loop).
//
// A region whose only accesses to an array are `+=` / `-=` updates at data-dependent
// indices runs, when it pays, against a Kokkos ScatterView of the array instead of
// updating it with atomics: on OpenMP each thread adds into its own copy and the copies
// are summed into the array after the region. Duplication costs the array's size times
// the number of threads, in memory and in the final sum, so `scatter_pays` keeps the
// atomic version of the region for large arrays and few iterations. (On CUDA, kpc keeps
// atomics and emits no privatized version.)
#pragma once

#include "kpc_semantics.hpp"

#include <Kokkos_ScatterView.hpp>

#include <string>
#include <type_traits>

namespace kpc {

// Privatizing costs setting every copy to zero and summing the copies, about a
// nanosecond per element of each copy; an atomic update costs several (measured on two
// OpenMP threads: 64 bins, 10^7 updates: 56 ms atomic, 8.8 ms privatized; 2^18 bins,
// 10^5 updates: 0.34 ms atomic, 0.56 ms privatized). So privatize while the copies hold
// at most twice as many elements as the loop has iterations, and at most
// `scatter_max_bytes` in all.
constexpr int64_t scatter_max_bytes = int64_t(1) << 27;

template <class ExecSpace, class... V>
inline bool scatter_pays(int64_t iterations, const V&... dest) {
  const int64_t copies = ExecSpace().concurrency();
  const int64_t elements = (int64_t(0) + ... + int64_t(dest.size()));
  const int64_t bytes = (int64_t(0) + ... + int64_t(dest.size() * sizeof(typename V::value_type)));
  return elements * copies <= 2 * iterations && bytes * copies <= scatter_max_bytes;
}

// The `+=` / `-=` updates of one array `dest` in one region: `view.access()` inside the
// region, `contribute()` after it adds every thread's updates to `dest`.
template <class ExecSpace, class V>
class scatter_sum {
  // ScatterView duplicates LayoutRight and LayoutLeft arrays; a strided array gets a
  // LayoutRight scatter view and is updated through a contiguous staging copy.
  using layout = typename std::conditional<std::is_same<typename V::array_layout, Kokkos::LayoutLeft>::value,
                                           Kokkos::LayoutLeft, Kokkos::LayoutRight>::type;
  using data_type = typename V::non_const_data_type;
  using device_type = Kokkos::Device<ExecSpace, typename V::memory_space>;

 public:
  using view_type = Kokkos::Experimental::ScatterView<data_type, layout, device_type,
                                                      Kokkos::Experimental::ScatterSum>;

  explicit scatter_sum(const V& dest) : view(dest), dest_(dest) {}

  void contribute() const {
    contribute(std::is_same<typename V::array_layout, layout>());
  }

  view_type view;

 private:
  void contribute(std::true_type /* same layout */) const {
    if (dest_.span_is_contiguous()) {
      view.contribute_into(dest_);
    } else {
      contribute(std::false_type());
    }
  }

  void contribute(std::false_type /* other layout */) const {
    Kokkos::View<data_type, layout, typename V::memory_space> staging(
        Kokkos::view_alloc(std::string("kpc_scatter_staging"), Kokkos::WithoutInitializing),
        V::rank > 0 ? dest_.extent(0) : KOKKOS_IMPL_CTOR_DEFAULT_ARG,
        V::rank > 1 ? dest_.extent(1) : KOKKOS_IMPL_CTOR_DEFAULT_ARG,
        V::rank > 2 ? dest_.extent(2) : KOKKOS_IMPL_CTOR_DEFAULT_ARG,
        V::rank > 3 ? dest_.extent(3) : KOKKOS_IMPL_CTOR_DEFAULT_ARG,
        V::rank > 4 ? dest_.extent(4) : KOKKOS_IMPL_CTOR_DEFAULT_ARG,
        V::rank > 5 ? dest_.extent(5) : KOKKOS_IMPL_CTOR_DEFAULT_ARG,
        V::rank > 6 ? dest_.extent(6) : KOKKOS_IMPL_CTOR_DEFAULT_ARG);
    Kokkos::deep_copy(staging, dest_);
    view.contribute_into(staging);
    Kokkos::deep_copy(dest_, staging);
  }

  V dest_;
};

template <class ExecSpace, class V>
inline scatter_sum<ExecSpace, V> scatter_sum_of(const V& dest) {
  return scatter_sum<ExecSpace, V>(dest);
}

}  // namespace kpc
