// kpc_compat.hpp: the few places where Kokkos 3.x and 4.x spell things differently.
//
// Generated modules use only the names defined here for these differences, so a
// module builds unchanged against the Kokkos 3.4 that pykokkos-base installs and
// against a Kokkos 4.x install.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

#if KOKKOS_VERSION >= 40000
#define KPC_KOKKOS_4 1
#else
#define KPC_KOKKOS_4 0
#endif

namespace kpc {

// Mathematical functions: Kokkos::Experimental:: in 3.x, Kokkos:: from 4.0.
#if KPC_KOKKOS_4
namespace math = ::Kokkos;
#else
namespace math = ::Kokkos::Experimental;
#endif

// join() of a reducer: 3.x calls the volatile overload, 4.x the plain one (and
// deprecates volatile). Reducers define both through this macro pair.
#define KPC_REDUCER_JOINS(value_type, BODY)                                           \
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { \
    BODY(dest, src);                                                               \
  }                                                                                \
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest,                       \
                                   const volatile value_type& src) const {          \
    BODY(const_cast<value_type&>(dest), const_cast<const value_type&>(src));       \
  }

// Initialization: InitArguments in 3.x, InitializationSettings in 4.x.
inline void initialize(int num_threads) {
#if KPC_KOKKOS_4
  Kokkos::InitializationSettings settings;
  settings.set_disable_warnings(true);
  if (num_threads > 0) settings.set_num_threads(num_threads);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.disable_warnings = true;
  if (num_threads > 0) arguments.num_threads = num_threads;
  Kokkos::initialize(arguments);
#endif
}

}  // namespace kpc
