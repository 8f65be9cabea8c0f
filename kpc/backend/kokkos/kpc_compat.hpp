// kpc_compat.hpp: the few places where Kokkos 3.x and 4.x spell things differently.
//
// Generated modules use only the names defined here for these differences, so a
// module builds unchanged against the Kokkos 3.4 that pykokkos-base installs and
// against a Kokkos 4.x install.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

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

// Atomic store: Kokkos::atomic_assign in 3.x (which has no atomic_store); 4.x renames it
// atomic_store and drops atomic_assign when built without deprecated code
// (Kokkos_ENABLE_DEPRECATED_CODE_4=OFF).
template <class T>
KOKKOS_INLINE_FUNCTION void atomic_store(T* dest, T value) {
#if KPC_KOKKOS_4
  Kokkos::atomic_store(dest, value);
#else
  Kokkos::atomic_assign(dest, value);
#endif
}

// Initialization: InitArguments in 3.x, InitializationSettings in 4.x. A device_id below 0
// leaves the device to Kokkos (kpc.runtime.rank_layout chooses one per node-local MPI rank).
inline void initialize(int num_threads, int device_id = -1) {
#if KPC_KOKKOS_4
  Kokkos::InitializationSettings settings;
  settings.set_disable_warnings(true);
  if (num_threads > 0) settings.set_num_threads(num_threads);
  if (device_id >= 0) settings.set_device_id(device_id);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.disable_warnings = true;
  if (num_threads > 0) arguments.num_threads = num_threads;
  if (device_id >= 0) arguments.device_id = device_id;
  Kokkos::initialize(arguments);
#endif
}

// The GPUs this process sees (CUDA_VISIBLE_DEVICES applies), and the one Kokkos runs on: -1
// and 0 without a device execution space.
inline int device_count() {
#if defined(KOKKOS_ENABLE_CUDA)
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
#else
  return 0;
#endif
}

inline int device_in_use() {
#if defined(KOKKOS_ENABLE_CUDA)
  return Kokkos::is_initialized() ? Kokkos::Cuda().cuda_device() : -1;
#else
  return -1;
#endif
}

// The calling thread as the dispatcher of Kokkos' host execution space.
//
// Kokkos 3.x's OpenMP space runs parallel regions only from its master thread: the one
// whose thread-local Kokkos::Impl::t_openmp_instance is set, i.e. the thread that called
// Kokkos::initialize (OpenMPExec::verify_is_master); any other thread gets "in parallel
// or not initialized". kpc calls come from any Python thread, one at a time (the
// process-wide lock of kpc_numpy.hpp's session), so a call from another thread borrows
// the master's instance for its duration. Its parallel regions then run on that thread's
// own OpenMP team (libgomp keeps one per thread that starts regions), whose workers need
// the thread-local hardware ids Kokkos gave the master's workers at initialization
// (UniqueToken, hence ScatterView, reads them): they are numbered on the first borrow of
// each thread, as Kokkos numbers its own team once, relying on libgomp's stable teams.
// Kokkos 4 keeps the instance in the execution-space object and locks it itself, so any
// thread may dispatch and there is nothing to borrow.
#if !KPC_KOKKOS_4 && defined(KOKKOS_ENABLE_OPENMP)
inline void* host_space_master() { return Kokkos::Impl::t_openmp_instance; }

class borrowed_host_space {
 public:
  explicit borrowed_host_space(void* master) {
    if (master == nullptr || Kokkos::Impl::t_openmp_instance == master) return;
    Kokkos::Impl::t_openmp_instance = static_cast<Kokkos::Impl::OpenMPExec*>(master);
    borrowed_ = true;
    thread_local bool workers_numbered = false;
    if (!workers_numbered) {
#pragma omp parallel num_threads(Kokkos::OpenMP::impl_thread_pool_size())
      Kokkos::Impl::t_openmp_hardware_id = omp_get_thread_num();
      workers_numbered = true;
    }
  }
  ~borrowed_host_space() {
    if (borrowed_) Kokkos::Impl::t_openmp_instance = nullptr;
  }
  borrowed_host_space(const borrowed_host_space&) = delete;
  borrowed_host_space& operator=(const borrowed_host_space&) = delete;

 private:
  bool borrowed_ = false;
};
#else
inline void* host_space_master() { return nullptr; }

struct borrowed_host_space {
  explicit borrowed_host_space(void*) {}
};
#endif

}  // namespace kpc
