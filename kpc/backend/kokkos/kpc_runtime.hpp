// kpc_runtime.hpp: what every generated module runs with, on any execution space and without
// pybind11: element types, the session every kpc module of a process shares (one call at a
// time, the fork guard), the GIL released around kernels, the errors kernels flag, and
// NumPy's broadcast checks.
#pragma once

#include "kpc_semantics.hpp"
#include "kpc_python.hpp"

#include <pthread.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kpc {

template <class T>
struct dtype_of;
#define KPC_DTYPE(T, CODE, KIND, NAME)             \
  template <>                                      \
  struct dtype_of<T> {                             \
    static constexpr int code = CODE;              \
    static constexpr char kind = KIND;             \
    static constexpr const char* name = NAME;      \
  };
KPC_DTYPE(double, kpc_float64, 'f', "float64")
KPC_DTYPE(float, kpc_float32, 'f', "float32")
KPC_DTYPE(int64_t, kpc_int64, 'i', "int64")
KPC_DTYPE(int32_t, kpc_int32, 'i', "int32")
KPC_DTYPE(int16_t, kpc_int16, 'i', "int16")
KPC_DTYPE(int8_t, kpc_int8, 'i', "int8")
KPC_DTYPE(uint64_t, kpc_uint64, 'u', "uint64")
KPC_DTYPE(uint32_t, kpc_uint32, 'u', "uint32")
KPC_DTYPE(uint16_t, kpc_uint16, 'u', "uint16")
KPC_DTYPE(uint8_t, kpc_uint8, 'u', "uint8")
KPC_DTYPE(bool, kpc_bool, 'b', "bool")
KPC_DTYPE(Kokkos::complex<double>, kpc_complex128, 'c', "complex128")
KPC_DTYPE(Kokkos::complex<float>, kpc_complex64, 'c', "complex64")
#undef KPC_DTYPE

template <class Layout>
constexpr int layout_code() {
  return std::is_same<Layout, Kokkos::LayoutRight>::value  ? kpc_layout_right
         : std::is_same<Layout, Kokkos::LayoutLeft>::value ? kpc_layout_left
                                                            : kpc_layout_stride;
}

template <class V, class Extents, std::size_t... I>
V make_view(void* data, const Extents& extents, std::index_sequence<I...>) {
  return V(static_cast<typename V::pointer_type>(data), static_cast<size_t>(extents[I])...);
}

// An unmanaged view of array memory: `extents` in elements, `strides` in bytes (read for
// LayoutStride only, whose Kokkos strides count elements).
template <class T, int N, class Layout, class Extents, class Strides>
view<T, N, Layout> view_of_memory(void* data, const Extents& extents, const Strides& strides) {
  using V = view<T, N, Layout>;
  if constexpr (std::is_same<Layout, Kokkos::LayoutStride>::value) {
    Kokkos::LayoutStride layout;
    for (int k = 0; k < N; ++k) {
      layout.dimension[k] = static_cast<size_t>(extents[k]);
      layout.stride[k] = static_cast<size_t>(strides[k] / static_cast<Py_ssize_t>(sizeof(T)));
    }
    return V(static_cast<T*>(data), layout);
  } else {
    (void)strides;
    return make_view<V>(data, extents, std::make_index_sequence<N>{});
  }
}

inline void check_argument_count(Py_ssize_t given, size_t expected, const char* function) {
  if (static_cast<size_t>(given) != expected) {
    throw type_error(std::string(function) + "() takes " + std::to_string(expected) + " arguments (" +
                     std::to_string(given) + " given)");
  }
}

// -------------------------------------------------------------- broadcasting

// A broadcast check that failed inside a kernel body, where it cannot throw, and its
// message (written by the first iteration to fail); check_errors raises it once the
// kernel returns.
inline std::atomic<int>& broadcast_failed() {
  static std::atomic<int> failed{0};
  return failed;
}

inline std::string& broadcast_failure() {
  static std::string message;
  return message;
}

// Raise the Python exception for an error a kernel flagged (see kpc::error_flag).
inline void check_errors() {
  if (broadcast_failed().load()) {
    std::string message;
    message.swap(broadcast_failure());
    broadcast_failed() = 0;
    throw value_error(message);
  }
  int error = error_flag();
  if (error == 0) return;
  error_flag() = 0;
  PyObject* type = error == index_error                                         ? PyExc_IndexError
                   : error == empty_quantile_error                              ? PyExc_AssertionError
                   : error == empty_range_error || error >= percentile_range_error ? PyExc_ValueError
                                                                                : PyExc_ZeroDivisionError;
  throw exception(type, error_message(error));
}

// Extents of a shape; a slice's computed extent below 0 is an empty axis.
template <std::size_t N>
std::vector<int64_t> extents_of(const std::array<int64_t, N>& shape) {
  std::vector<int64_t> extents;
  for (int64_t extent : shape) extents.push_back(std::max<int64_t>(extent, 0));
  return extents;
}

inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) text += (k ? "," : "") + std::to_string(shape[k]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// The shapes broadcast together (right-aligned; an extent of 1 stretches); false when two
// extents of one axis are different and neither is 1.
inline bool broadcast_shape(const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>& out) {
  std::size_t rank = 0;
  for (const auto& shape : shapes) rank = std::max(rank, shape.size());
  out.assign(rank, 1);
  for (const auto& shape : shapes) {
    const std::size_t offset = rank - shape.size();
    for (std::size_t k = 0; k < shape.size(); ++k) {
      int64_t& have = out[offset + k];
      if (shape[k] == 1 || shape[k] == have) continue;
      if (have != 1) return false;
      have = shape[k];
    }
  }
  return true;
}

template <bool InKernel>
void broadcast_error(const std::string& message) {
  if constexpr (InKernel) {
    if (broadcast_failed().exchange(1) == 0) broadcast_failure() = message;
  } else {
    throw value_error(message);
  }
}

// NumPy's check of the operands of an element-wise operation: ValueError when their shapes
// do not broadcast together. Runs once per expression, before its loops.
template <bool InKernel, class... Shapes>
bool broadcast_operands(const Shapes&... shapes) {
  std::vector<int64_t> result;
  if (broadcast_shape({extents_of(shapes)...}, result)) return true;
  std::string message = "operands could not be broadcast together with shapes";
  ((message += " " + shape_text(extents_of(shapes))), ...);
  broadcast_error<InKernel>(message);
  return false;
}

// The same for a value stored into (or updating) an array of shape `target`, which does
// not stretch: the operands' broadcast shape must broadcast to it.
template <bool InKernel, std::size_t N, class... Shapes>
bool broadcast_into(const std::array<int64_t, N>& target, const Shapes&... shapes) {
  if (!broadcast_operands<InKernel>(shapes...)) return false;
  std::vector<int64_t> result;
  broadcast_shape({extents_of(shapes)...}, result);
  std::vector<int64_t> stretched;
  const std::vector<int64_t> into = extents_of(target);
  if (result.size() <= N && broadcast_shape({into, result}, stretched) && stretched == into) return true;
  broadcast_error<InKernel>("could not broadcast input array from shape " + shape_text(result) + " into shape " +
                            shape_text(into));
  return false;
}

// A run-time check lower-numpy adds where NumPy raises ValueError (value_check(ok, k) in the
// IR, ir.intrinsics.VALUE_ERRORS[k]): raised now on the host, flagged inside a kernel.
template <bool InKernel>
bool value_check(bool ok, const char* message) {
  if (!ok) broadcast_error<InKernel>(message);
  return ok;
}

// -------------------------------------------------------------- session

// The state every kpc module of a process shares. Each module is its own shared object,
// loaded RTLD_LOCAL with hidden symbols, so a static here would be one per module: the
// module that starts the session creates it, and kpc.runtime.kokkos_session hands it to
// every other module as a capsule (_kpc_attach_session).
struct session {
  enum : int { running, forked_child, finalized };
  // One kpc call at a time in the process: Kokkos 3's OpenMP space has a single
  // dispatching thread (borrowed_host_space), and each module's error flag
  // (kpc::error_flag) and CUDA staging state belong to the call that holds it.
  std::mutex lock;
  void* host_master = nullptr;
  std::atomic<int> state{running};
  // The cost guard's scale (kpc::serial_scale), measured by the first module that needs it;
  // 0 until then. Written under the session lock, which every kernel call holds.
  double serial_scale = 0.0;
  // Every region's guard measurements (kpc::guard_site), for kokkos_session.guard_sites().
  // Appended under the session lock.
  std::vector<guard_site*> guard_sites;
};

inline session*& attached_session() {
  static session* current = nullptr;
  return current;
}

inline double* session_serial_scale() {
  session* current = attached_session();
  return current == nullptr ? nullptr : &current->serial_scale;
}

// The session's capsule names its layout. A module of an older kpc (a drop-in built before)
// may have started the session, with a struct that ends before guard_sites: this module then
// shares its lock and scale but lists no guard sites.
constexpr const char* session_capsule_name = "kpc.session (guard_sites)";

inline bool& session_lists_guard_sites() {
  static bool lists = false;
  return lists;
}

inline void register_guard_site(guard_site* site) {
  session* current = attached_session();
  if (current != nullptr && session_lists_guard_sites()) current->guard_sites.push_back(site);
}

constexpr const char* forked_child_message =
    "kpc: this process was forked from one that had already run kpc kernels, and Kokkos "
    "(its OpenMP threads, a CUDA context) does not survive fork(); start worker processes "
    "with the 'spawn' or 'forkserver' method instead (multiprocessing.get_context('spawn'), "
    "or concurrent.futures.ProcessPoolExecutor(mp_context=...))";

// The Python thread state released for a scope: for kernels, which never touch Python
// objects, and for waiting on the session lock (a thread holding the lock may need the GIL).
class gil_released {
 public:
  gil_released() : state_(PyEval_SaveThread()) {}
  ~gil_released() { PyEval_RestoreThread(state_); }
  gil_released(const gil_released&) = delete;
  gil_released& operator=(const gil_released&) = delete;

 private:
  PyThreadState* state_;
};

// Run `body` with the GIL released; it returns what `body` returns.
template <class Body>
decltype(auto) without_gil(Body&& body) {
  gil_released released;
  return body();
}

// The session lock, taken with the GIL held (the uncontended path is one try_lock) or,
// when another thread holds it, waited for without the GIL.
class session_lock {
 public:
  session_lock() : session_(attached_session()) {
    if (session_ == nullptr) {
      throw std::runtime_error("kpc: this module was imported without kpc.runtime.loader, so it has no Kokkos session");
    }
    // Checked before locking: in a forked child the lock may belong to a parent thread
    // that does not exist here, and any OpenMP region would hang.
    check_state();
    if (!session_->lock.try_lock()) {
      gil_released waiting;
      session_->lock.lock();
    }
    if (session_->state.load(std::memory_order_relaxed) != session::running) {
      session_->lock.unlock();
      check_state();
    }
  }
  ~session_lock() { session_->lock.unlock(); }
  session_lock(const session_lock&) = delete;
  session_lock& operator=(const session_lock&) = delete;

  session& current() const { return *session_; }

 private:
  void check_state() const {
    int state = session_->state.load(std::memory_order_relaxed);
    if (state == session::forked_child) throw std::runtime_error(forked_child_message);
    if (state == session::finalized) {
      throw std::runtime_error("kpc: Kokkos was finalized in this process; kpc functions cannot run after that");
    }
  }

  session* session_;
};

// What every kpc call holds from before its arguments are converted until its result is:
// the session lock, and the host execution space for this thread.
class call_guard {
 public:
  call_guard() : host_(lock_.current().host_master) {}

 private:
  session_lock lock_;
  borrowed_host_space host_;
};

inline session* started_session() {
  static session* started = nullptr;
  if (started == nullptr) {
    started = new session();  // never deleted: modules may run until the process exits
    started->host_master = host_space_master();
    pthread_atfork(nullptr, nullptr, [] { started_session()->state.store(session::forked_child); });
  }
  return started;
}

}  // namespace kpc
