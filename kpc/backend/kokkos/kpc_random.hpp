// kpc_random.hpp: np.random in kernels, drawn from Kokkos random pools
// (Kokkos::Random_XorShift64_Pool, spelled the same in Kokkos 3.4 and 4.x).
//
// One generator per process and execution space, as Numba has one per process: every kpc
// module of the process draws from it, so a kernel's np.random.seed(s) also reseeds what
// other kernels draw. Each module is its own shared object (loaded RTLD_LOCAL, hidden
// symbols), so the pools live in a `streams` object that the first module using np.random
// creates and kpc.runtime.kokkos_session hands to the others (_kpc_attach_random).
//
// A pool holds one XorShift64* state per thread of its execution space. A draw takes the
// calling thread's state (get_state: the hardware thread id on host spaces, no lock),
// advances it and puts it back (free_state), so the same call serves serial code, prange
// bodies and device functions called from either. Serial code runs on thread 0: after
// np.random.seed(s) it draws the same numbers on every run. A prange body draws from the
// state of the thread that runs each iteration: the same numbers only with the same thread
// count and a static schedule. Never the numbers Numba draws (a Mersenne Twister).
//
// Unseeded, a pool is seeded from std::random_device, as NumPy and Numba seed from the OS:
// a fixed default would give every worker process of a Monte Carlo run the same stream.
#pragma once

#include <Kokkos_Random.hpp>

#include <cstdint>
#include <type_traits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <unordered_map>

#include "kpc_python.hpp"
#include "kpc_semantics.hpp"

namespace kpc {
namespace random {

template <class Space>
using pool_type = Kokkos::Random_XorShift64_Pool<Space>;

// The generator state of the process, shared by its modules. Calls run one at a time (the
// session lock), so nothing here is locked.
struct streams {
  uint64_t generation = 1;  // changes with every seed: modules look their pool up again
  bool seeded = false;
  uint64_t seed = 0;
  std::unordered_map<std::string, std::shared_ptr<void>> pools;  // by pool type
};

inline streams*& attached_streams() {
  static streams* current = nullptr;
  return current;
}

// This module's pool for its execution space, looked up in the shared streams by attach().
template <class Space>
struct module_pool {
  static inline pool_type<Space>* pool = nullptr;
  static inline uint64_t generation = 0;
};

inline uint64_t entropy_seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

#if defined(KPC_CUDA)
// On a GPU, device code draws from a Random_XorShift64_Pool<Kokkos::Cuda> (one state per
// resident thread, in device memory), and host code (the serial parts of a kernel) from the
// host execution space's pool: a pool's states live where its space runs. Device code cannot
// reach a host static, so attach() copies this module's device pool object (its views: state
// and lock arrays in device memory) into a __device__ buffer of this module, which device code
// reads in place.
using device_pool_type = pool_type<Kokkos::Cuda>;
__device__ alignas(device_pool_type) unsigned char device_pool_storage[sizeof(device_pool_type)];

KOKKOS_INLINE_FUNCTION const device_pool_type& device_pool() {
  return *reinterpret_cast<const device_pool_type*>(device_pool_storage);
}
#endif

// The pool a draw in code for `Space` uses on this side (host or device) of the compile.
template <class Space>
struct drawing_space {
  using type = Space;
};
#if defined(KPC_CUDA)
template <>
struct drawing_space<Kokkos::Cuda> {
  using type = Kokkos::DefaultHostExecutionSpace;  // host code of a CUDA module
};
#endif

template <class Space>
inline void attach_pool() {
  streams* shared = attached_streams();
  if (module_pool<Space>::generation == shared->generation) return;
  std::shared_ptr<void>& slot = shared->pools[typeid(pool_type<Space>).name()];
  if (!slot) slot = std::make_shared<pool_type<Space>>(shared->seeded ? shared->seed : entropy_seed());
  module_pool<Space>::pool = static_cast<pool_type<Space>*>(slot.get());
  module_pool<Space>::generation = shared->generation;
#if defined(KPC_CUDA)
  if constexpr (std::is_same<Space, Kokkos::Cuda>::value) {
    const cudaError_t status = cudaMemcpyToSymbol(device_pool_storage, module_pool<Space>::pool,
                                                  sizeof(device_pool_type));
    if (status != cudaSuccess) {
      throw std::runtime_error(std::string("kpc: copying the random pool to the device: ") +
                               cudaGetErrorString(status));
    }
  }
#endif
}

// In the binding of a module that draws, under the session lock, before its kernel runs:
// never inside a parallel region, where creating a pool would race.
template <class Space>
inline void attach() {
  streams* shared = attached_streams();
  if (shared == nullptr) {
    throw std::runtime_error("kpc: this module was imported without kpc.runtime.loader, so it has no random state");
  }
  attach_pool<typename drawing_space<Space>::type>();
#if defined(KPC_CUDA)
  if constexpr (std::is_same<Space, Kokkos::Cuda>::value) attach_pool<Kokkos::Cuda>();
#endif
}

// np.random.seed(s): new pools for every execution space, from s. Host code only: the
// parallelize pass runs a prange that reseeds serially.
template <class Space>
inline void seed(int64_t value) {
  streams* shared = attached_streams();
  shared->pools.clear();
  shared->seeded = true;
  shared->seed = static_cast<uint64_t>(value);
  ++shared->generation;
  attach<Space>();
}

// [0, 1) from the top 53 bits of one draw, as NumPy's random() computes it.
template <class Generator>
KOKKOS_INLINE_FUNCTION double unit(Generator& gen) {
  return static_cast<double>(gen.urand64() >> 11) * 0x1.0p-53;
}

// Marsaglia's polar method (Kokkos' normal() can take log(0)).
template <class Generator>
KOKKOS_INLINE_FUNCTION double standard_normal(Generator& gen) {
  double u, s;
  do {
    u = 2.0 * unit(gen) - 1.0;
    const double v = 2.0 * unit(gen) - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  return u * kpc::math::sqrt(-2.0 * kpc::math::log(s) / s);
}

// An integer in [0, range) without modulo bias (Lemire's multiply-and-reject): the high
// bits of the product, which are XorShift64*'s better bits.
template <class Generator>
KOKKOS_INLINE_FUNCTION uint64_t below(Generator& gen, uint64_t range) {
  unsigned __int128 product = static_cast<unsigned __int128>(gen.urand64()) * range;
  uint64_t low = static_cast<uint64_t>(product);
  if (low < range) {
    const uint64_t threshold = (0 - range) % range;
    while (low < threshold) {
      product = static_cast<unsigned __int128>(gen.urand64()) * range;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<uint64_t>(product >> 64);
}

// One draw from the calling thread's state (on a GPU: the device pool in device code, the
// host pool in host code).
template <class Pool, class Draw>
KOKKOS_INLINE_FUNCTION auto draw_from(const Pool& pool, Draw& body) {
  auto gen = pool.get_state();
  const auto value = body(gen);
  pool.free_state(gen);
  return value;
}

template <class Space, class Draw>
KOKKOS_INLINE_FUNCTION auto draw(Draw&& body) {
#if defined(KPC_CUDA) && defined(__CUDA_ARCH__)
  return draw_from(device_pool(), body);
#else
  return draw_from(*module_pool<typename drawing_space<Space>::type>::pool, body);
#endif
}

// np.random.random() / rand() / random_sample()
template <class Space>
KOKKOS_INLINE_FUNCTION double uniform01() {
  return draw<Space>([](auto& gen) { return unit(gen); });
}

// np.random.uniform(low, high): low + (high - low) * random(), NumPy's formula.
template <class Space>
KOKKOS_INLINE_FUNCTION double uniform(double low, double high) {
  return low + (high - low) * uniform01<Space>();
}

// np.random.normal(loc, scale) / standard_normal() / randn()
template <class Space>
KOKKOS_INLINE_FUNCTION double normal(double loc, double scale) {
  return loc + scale * draw<Space>([](auto& gen) { return standard_normal(gen); });
}

// np.random.randint(low, high): [low, high); an empty range flags Numba's ValueError.
template <class Space>
KOKKOS_INLINE_FUNCTION int64_t randint(int64_t low, int64_t high) {
  if (KPC_UNLIKELY(high <= low)) {
    raise_error(empty_range_error);
    return low;
  }
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return static_cast<int64_t>(static_cast<uint64_t>(low) + draw<Space>([range](auto& gen) { return below(gen, range); }));
}

// _kpc_attach_random(None) creates the process's streams and returns them as a capsule;
// _kpc_attach_random(capsule) attaches this module to those. The creator releases the
// pools when Kokkos finalizes (their views must not outlive it).
inline PyObject* attach_random(PyObject*, PyObject* given) {
  if (given == Py_None) {
    attached_streams() = new streams();  // never deleted: modules may draw until the process exits
    streams* created = attached_streams();
    Kokkos::push_finalize_hook([created] {
      created->pools.clear();
      ++created->generation;
    });
    return PyCapsule_New(created, "kpc.random", nullptr);
  }
  void* pointer = PyCapsule_GetPointer(given, "kpc.random");
  if (pointer == nullptr) return nullptr;
  attached_streams() = static_cast<streams*>(pointer);
  Py_INCREF(given);
  return given;
}

// Add _kpc_attach_random to `module`; false with a Python exception set if that failed.
inline bool define_random_functions(PyObject* module) {
  static PyMethodDef definition = {"_kpc_attach_random", &attach_random, METH_O, nullptr};
  PyObject* name = PyModule_GetNameObject(module);
  if (name == nullptr) return false;
  PyObject* function = PyCFunction_NewEx(&definition, nullptr, name);
  Py_DECREF(name);
  if (function == nullptr) return false;
  if (PyModule_AddObject(module, definition.ml_name, function) != 0) {
    Py_DECREF(function);
    return false;
  }
  return true;
}

}  // namespace random
}  // namespace kpc
