// kpc_cuda.hpp: arrays in and out of kernels built for `--space cuda`.
//
// Memory scheme (the simplest one that is correct with host code between regions):
//
//   * every view a generated module uses lives in Kokkos::CudaUVMSpace (kpc::view, see
//     kpc_semantics.hpp), i.e. CUDA managed memory that both the host code of a kernel
//     (the serial parts of a Numba function) and its parallel regions can dereference;
//   * each parallel region is followed by Kokkos::fence() (emitter, cuda.py), so host
//     code after it sees its writes; parallel_reduce/scan into host values already block;
//   * a NumPy argument whose memory is not managed is staged: copied into a device buffer
//     (cudaMalloc: one DMA copy each way) when the entry never touches arrays from host code
//     and the layouts match, otherwise into a managed buffer, prefetched to the GPU (buffers
//     of both kinds are kept for the next call of the same size, staging_pool), and, only if
//     the kernel writes it (the write set comes from the IR), copied back after the call
//     (CopyBack below). A NumPy array
//     that is already managed (one returned by a kpc cuda kernel) is used in place;
//   * an argument with __cuda_array_interface__ (CuPy) is used in place, zero copy,
//     unless the entry touches arrays from host code (host_access, computed by the
//     emitter): device-only memory is then staged through a managed buffer the same way;
//   * arrays a kernel allocates are managed NumPy arrays; the binding returns them as
//     NumPy, or as CuPy (cupy.asarray) when an argument was a CUDA array.
#pragma once

#include "kpc_numpy.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

namespace kpc {

// The names generated code uses for Python objects (kpc_host.hpp's, on pybind11 here: CUDA
// modules are pybind11 modules, without kpc's support library).
using object = py::object;

inline py::object none() { return py::none(); }

template <class T>
py::object box(T&& value) {
  return py::cast(std::forward<T>(value));
}

template <class... Items>
py::tuple make_tuple(Items&&... items) {
  return py::make_tuple(std::forward<Items>(items)...);
}

inline PyObject* raise_current_exception() { return translate_current_exception(); }

namespace cuda {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("kpc cuda: ") + what + ": " + cudaGetErrorString(status));
  }
}

inline bool is_managed(const void* pointer) {
  if (pointer == nullptr) return false;
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();  // a plain host pointer on old runtimes: clear the sticky error
    return false;
  }
  return attributes.type == cudaMemoryTypeManaged;
}

inline int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

// Move managed pages to `device` (cudaCpuDeviceId: the host) before they are used there.
inline void prefetch(const void* pointer, size_t bytes, int device) {
  if (pointer == nullptr || bytes == 0) return;
#if CUDART_VERSION >= 13000
  cudaMemLocation location{};
  location.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  location.id = device == cudaCpuDeviceId ? 0 : device;
  cudaError_t status = cudaMemPrefetchAsync(pointer, bytes, location, 0u, 0);
#else
  cudaError_t status = cudaMemPrefetchAsync(pointer, bytes, device, 0);
#endif
  if (status != cudaSuccess) cudaGetLastError();  // prefetch is a hint (unsupported on some systems)
}

// Managed buffers that staged NumPy arguments, kept for the next call of the same size (a time
// loop calling a kernel on NumPy arrays stages the same shapes every step): cudaMallocManaged and
// cudaFree cost more than copying a small array (cudaFree waits for the whole device), and a
// reused buffer's pages are already on the device. A buffer given back records an event on the
// legacy stream (which Kokkos' blocking stream is ordered with): the next call that takes it
// waits for the kernels that may still read it (a call with CUDA arrays returns before they end).
// At most `limit` bytes are kept; the oldest are freed first.
// Device buffers (cudaMalloc) are pooled beside managed ones: a copy from pageable host memory
// into managed pages that the last call left on the GPU ran at about 4 GB/s on an H100 (the pages
// fault back to the host, then are prefetched again), into device memory at the DMA's speed.
class staging_pool {
 public:
  void* take(size_t bytes, bool device_memory = false) {
    block found{};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
        if (it->bytes == bytes && it->device_memory == device_memory) {
          found = *it;
          free_.erase(std::next(it).base());
          pooled_ -= bytes;
          break;
        }
      }
    }
    if (found.pointer != nullptr) {
      cudaEventSynchronize(found.released);
      cudaEventDestroy(found.released);
      return found.pointer;
    }
    void* pointer = nullptr;
    if (device_memory) {
      check(cudaMalloc(&pointer, bytes), "cudaMalloc");
    } else {
      check(cudaMallocManaged(&pointer, bytes), "cudaMallocManaged");
    }
    return pointer;
  }

  void give(void* pointer, size_t bytes, bool device_memory = false) {
    cudaEvent_t released = nullptr;
    if (cudaEventCreateWithFlags(&released, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventRecord(released, 0) != cudaSuccess) {
      cudaGetLastError();  // no context any more (the process is ending): just free it
      if (released != nullptr) cudaEventDestroy(released);
      cudaFree(pointer);
      return;
    }
    std::deque<block> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(block{pointer, bytes, released, device_memory});
      pooled_ += bytes;
      while (pooled_ > limit && !free_.empty()) {
        evicted.push_back(free_.front());
        pooled_ -= free_.front().bytes;
        free_.pop_front();
      }
    }
    for (const block& old : evicted) {
      cudaEventSynchronize(old.released);
      cudaEventDestroy(old.released);
      cudaFree(old.pointer);
    }
  }

  static staging_pool& instance() {
    static staging_pool* pool = new staging_pool();  // never destroyed: capsules may outlive statics
    return *pool;
  }

  static constexpr size_t limit = size_t(1) << 31;

 private:
  struct block {
    void* pointer = nullptr;
    size_t bytes = 0;
    cudaEvent_t released = nullptr;
    bool device_memory = false;
  };
  std::mutex mutex_;
  std::deque<block> free_;
  size_t pooled_ = 0;
};

// What a capsule holds for a block taken from the staging pool (given back when the capsule goes).
struct pooled_block {
  void* pointer;
  size_t bytes;
};

// A C-ordered (or Fortran-ordered) NumPy array over fresh managed memory; `staged`: memory from
// (and given back to) the staging pool, for arrays that live only for one call.
inline py::array managed_array(const py::dtype& dtype, const std::vector<py::ssize_t>& shape, bool fortran,
                               bool staged = false) {
  const py::ssize_t item = dtype.itemsize();
  py::ssize_t count = 1;
  for (auto extent : shape) count *= extent;
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = item;
  if (fortran) {
    for (size_t k = 0; k < shape.size(); ++k) { strides[k] = stride; stride *= shape[k]; }
  } else {
    for (size_t k = shape.size(); k-- > 0;) { strides[k] = stride; stride *= shape[k]; }
  }
  const size_t bytes = static_cast<size_t>(std::max<py::ssize_t>(count * item, 1));
  if (staged) {
    void* pointer = staging_pool::instance().take(bytes);
    py::capsule release(new pooled_block{pointer, bytes}, [](void* p) {
      auto* block = static_cast<pooled_block*>(p);
      staging_pool::instance().give(block->pointer, block->bytes);
      delete block;
    });
    return py::array(dtype, shape, strides, pointer, release);
  }
  void* pointer = nullptr;
  check(cudaMallocManaged(&pointer, bytes), "cudaMallocManaged");
  py::capsule release(pointer, [](void* p) { cudaFree(p); });
  return py::array(dtype, shape, strides, pointer, release);
}

// A device-memory buffer of the staging pool for one call (given back when the capsule goes):
// never seen by host code, so never a NumPy array.
inline py::capsule device_buffer(size_t bytes) {
  bytes = std::max<size_t>(bytes, 1);
  void* pointer = staging_pool::instance().take(bytes, true);
  return py::capsule(new pooled_block{pointer, bytes}, [](void* p) {
    auto* block = static_cast<pooled_block*>(p);
    staging_pool::instance().give(block->pointer, block->bytes, true);
    delete block;
  });
}

inline void* device_buffer_pointer(const py::capsule& buffer) {
  return static_cast<pooled_block*>(buffer.get_pointer())->pointer;
}

// np.empty for kernels built for cuda: the result is NumPy, its memory managed.
template <class T, int N>
py::array_t<T> empty(const std::array<int64_t, N>& shape) {
  std::vector<py::ssize_t> extents(shape.begin(), shape.end());
  for (auto& extent : extents) {
    if (extent < 0) throw py::value_error("negative dimensions are not allowed");
  }
  return py::reinterpret_steal<py::array_t<T>>(managed_array(py::dtype::of<T>(), extents, false).release());
}

// ---------------------------------------------------------------- 1-D launches

// Threads of a grid-stride launch: four per resident thread slot of the device.
inline int64_t grid_stride_threads() {
  static int64_t threads = [] {
    int device = current_device(), sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    return std::max<int64_t>(int64_t(sms) * per_sm * 4, 1024);
  }();
  return threads;
}

// One iteration per thread, 32-bit index arithmetic.
template <class Body>
__global__ void flat_kernel(const Body body, int64_t begin, int n) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (t < n) body(begin + t);
}

// Threads per block of range_for's plain launch; -DKPC_FLAT_BLOCK=N (through KPC_CXXFLAGS) to
// measure another size (benchmarks/cuda_percall.py).
#ifndef KPC_FLAT_BLOCK
#define KPC_FLAT_BLOCK 128
#endif
constexpr int kFlatBlock = KPC_FLAT_BLOCK;

// parallel_for over [begin, end): below 2^31 iterations, a plain CUDA launch of one iteration
// per thread (128 per block: 4.39 against 4.35 TB/s for 256, pipelined triad at 10^8 on an H200) on Kokkos' stream; above, Kokkos' parallel_for over
// min(n, grid_stride_threads()) threads, each taking iterations t, t + threads, ... Measured on an
// H200 (benchmarks/cuda_percall.py, STREAM triad with CuPy arrays): Kokkos' RangePolicy with one
// iteration per thread reached 2.5 TB/s at 10^8, the grid-stride form 4.0, the plain launch 4.2-4.3
// like CuPy's own kernel, and it launches about a microsecond sooner than parallel_for.
template <class Body>
void range_for(const char* label, int64_t begin, int64_t end, const Body& body) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  if (n < (int64_t(1) << 31) - kFlatBlock) {
    const int count = static_cast<int>(n);
    flat_kernel<<<(count + kFlatBlock - 1) / kFlatBlock, kFlatBlock, 0, Kokkos::Cuda().cuda_stream()>>>(body, begin,
                                                                                                     count);
    check(cudaGetLastError(), label);
    return;
  }
  const int64_t threads = std::min(n, grid_stride_threads());
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, threads),
                       KOKKOS_LAMBDA(const int64_t t) {
                         for (int64_t i = begin + t; i < end; i += threads) body(i);
                       });
}

// Per call: whether an argument was a CUDA array (results then go back as CuPy).
inline int& cuda_arguments() {
  static thread_local int count = 0;
  return count;
}

// What a CUDA array argument is: its memory, dtype, shape and strides (bytes).
struct cuda_array {
  void* data = nullptr;
  py::dtype dtype;
  bool readonly = false;
  std::vector<py::ssize_t> extents, strides;
  bool cupy = false;      // a cupy.ndarray: its stream is CuPy's current stream
  uintptr_t stream = 0;   // otherwise __cuda_array_interface__'s "stream" (0: none given)
};

// Whether an argument is a CUDA array: a cupy.ndarray by its type (asking CuPy for
// __cuda_array_interface__, even through hasattr, builds its dict: microseconds per argument),
// anything else not NumPy by the attribute.
inline bool is_cuda_array(py::handle object) {
  if (py::isinstance<py::array>(object)) return false;
  PyObject* cupy = cupy_ndarray_type();
  if (cupy != nullptr && PyObject_TypeCheck(object.ptr(), reinterpret_cast<PyTypeObject*>(cupy))) return true;
  return py::hasattr(object, "__cuda_array_interface__");
}

inline std::vector<py::ssize_t> ssize_tuple(py::handle tuple) {
  if (!PyTuple_Check(tuple.ptr())) throw py::type_error("kpc cuda: expected a tuple of integers");
  const Py_ssize_t size = PyTuple_GET_SIZE(tuple.ptr());
  std::vector<py::ssize_t> values(static_cast<size_t>(size));
  for (Py_ssize_t k = 0; k < size; ++k) {
    values[static_cast<size_t>(k)] = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple.ptr(), k));
    if (values[static_cast<size_t>(k)] == -1 && PyErr_Occurred()) throw py::error_already_set();
  }
  return values;
}

inline cuda_array describe_cuda_array(py::handle object) {
  cuda_array array;
  PyObject* cupy = cupy_ndarray_type();
  if (cupy != nullptr && PyObject_TypeCheck(object.ptr(), reinterpret_cast<PyTypeObject*>(cupy))) {
    const cupy_attribute_names& names = cupy_names();
    array.data = reinterpret_cast<void*>(attribute(attribute(object, names.data), names.ptr).cast<uintptr_t>());
    array.dtype = py::reinterpret_steal<py::dtype>(attribute(object, names.dtype).release());
    array.extents = ssize_tuple(attribute(object, names.shape));
    array.strides = ssize_tuple(attribute(object, names.strides));
    array.cupy = true;
    return array;
  }
  py::dict interface = object.attr("__cuda_array_interface__");
  if (interface.contains("stream") && !py::object(interface["stream"]).is_none()) {
    array.stream = py::object(interface["stream"]).cast<uintptr_t>();
  }
  array.extents = ssize_tuple(interface["shape"]);
  array.dtype = py::dtype(interface["typestr"].cast<std::string>());
  py::tuple data = interface["data"];
  array.data = reinterpret_cast<void*>(data[0].cast<uintptr_t>());
  array.readonly = data[1].cast<bool>();
  py::object given = interface.contains("strides") ? py::object(interface["strides"]) : py::object(py::none());
  if (given.is_none()) {
    array.strides.assign(array.extents.size(), 0);
    py::ssize_t stride = array.dtype.itemsize();
    for (size_t k = array.extents.size(); k-- > 0;) {
      array.strides[k] = stride;
      stride *= array.extents[k];
    }
  } else {
    array.strides = ssize_tuple(given);
  }
  return array;
}

// Copies a staged argument back into the caller's array after the call (written arrays only).
// Made only by copy_back_to (never copied: a copy's destructor would copy back too, and a
// temporary's did, before the kernel ran, for every staged argument).
struct CopyBack {
  py::object original;  // the caller's array
  py::array staged;     // the managed buffer the kernel used (none: device_data)
  bool cupy_target = false;  // original is a CUDA array: copy with cudaMemcpy, not NumPy
  bool direct = false;  // original is a NumPy array laid out as staged: one cudaMemcpy
  py::object device_buffer;  // or the device buffer (device_buffer above) the kernel used,
  void* device_data = nullptr;  // copied back from here if written
  size_t device_bytes = 0;

  CopyBack() = default;
  CopyBack(const CopyBack&) = delete;
  CopyBack& operator=(const CopyBack&) = delete;

  ~CopyBack() {
    try {
      Kokkos::fence();
      if (device_buffer) {
        if (device_data != nullptr && device_bytes > 0) {
          py::array target = py::reinterpret_borrow<py::array>(original);
          check(cudaMemcpy(target.mutable_data(), device_data, device_bytes, cudaMemcpyDeviceToHost),
                "copying a result back");
        }
      } else if (cupy_target) {
        void* pointer = describe_cuda_array(original).data;
        check(cudaMemcpy(pointer, staged.data(), static_cast<size_t>(staged.nbytes()), cudaMemcpyDefault),
              "copying a result back");
      } else if (direct) {
        py::array target = py::reinterpret_borrow<py::array>(original);
        check(cudaMemcpy(target.mutable_data(), staged.data(), static_cast<size_t>(staged.nbytes()),
                         cudaMemcpyDefault),
              "copying a result back");
      } else {
        prefetch(staged.data(), static_cast<size_t>(staged.nbytes()), cudaCpuDeviceId);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        py::module_::import("numpy").attr("copyto")(original, staged);
      }
    } catch (const std::exception& error) {
      PyErr_WarnEx(PyExc_RuntimeWarning, (std::string("kpc cuda: copy-back failed: ") + error.what()).c_str(), 1);
    } catch (py::error_already_set& error) {
      error.discard_as_unraisable(__func__);
    }
  }
};

inline std::shared_ptr<CopyBack> copy_back_to(py::handle original, py::array staged, bool cupy_target) {
  auto copy = std::make_shared<CopyBack>();
  copy->original = py::reinterpret_borrow<py::object>(original);
  copy->staged = std::move(staged);
  copy->cupy_target = cupy_target;
  return copy;
}

template <class T, int N, class Layout>
struct device_arg {
  ::kpc::view<T, N, Layout> view;
  py::object owner;
  std::shared_ptr<CopyBack> copy_back;
};

template <class T, int N, class Layout>
void check_layout(int flags, bool c_contiguous, bool f_contiguous, const char* function, const char* param) {
  (void)flags;
  if constexpr (std::is_same<Layout, Kokkos::LayoutRight>::value) {
    if (N > 1 && !c_contiguous) argument_error(false, function, param, "must be C-contiguous for this specialization");
  } else if constexpr (std::is_same<Layout, Kokkos::LayoutLeft>::value) {
    if (N > 1 && !f_contiguous) {
      argument_error(false, function, param, "must be Fortran-contiguous for this specialization");
    }
  }
}

// ---------------------------------------------------------------- stream order with the caller
//
// A call with CUDA arrays does not wait for its kernels (as CuPy's own calls do not): they run on
// Kokkos' stream, ordered with the stream the caller's arrays belong to. Kokkos creates its stream
// blocking (cudaStreamCreate), so work on the legacy default stream (CuPy's default, and
// __cuda_array_interface__'s stream 1) and on Kokkos' stream are ordered both ways by CUDA itself;
// any other caller stream (a cupy.cuda.Stream, the per-thread default stream 2) is joined by
// events: Kokkos' stream waits for what the caller queued before the call, and the caller's
// stream for the call's kernels. Calls with NumPy arrays only fence before they return.

// The caller's stream of the current call (set at its first CUDA array; kpc::call_guard makes
// the call the thread's own): 0 or 1 is the legacy default stream (or none given).
struct caller_stream {
  bool known = false;
  uintptr_t handle = 0;
  bool legacy() const { return handle <= 1; }
};

inline caller_stream& call_stream() {
  static thread_local caller_stream stream;
  return stream;
}

inline cudaEvent_t& ordering_event() {
  static thread_local cudaEvent_t event = [] {
    cudaEvent_t created = nullptr;
    check(cudaEventCreateWithFlags(&created, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    return created;
  }();
  return event;
}

// CuPy's current stream (its pointer: 0 for the legacy default stream), through
// cupy.cuda.stream.get_current_stream_ptr (an int, no Stream object) where CuPy has it.
inline uintptr_t cupy_current_stream() {
  static PyObject* pointer = nullptr;  // get_current_stream_ptr, or
  static PyObject* current = nullptr;  // get_current_stream (kept for the process)
  static const bool found = [] {
    PyObject* module = PyImport_ImportModule("cupy.cuda.stream");
    if (module != nullptr) {
      pointer = PyObject_GetAttrString(module, "get_current_stream_ptr");
      if (pointer == nullptr) PyErr_Clear();
      current = PyObject_GetAttrString(module, "get_current_stream");
      if (current == nullptr) PyErr_Clear();
      Py_DECREF(module);
    } else {
      PyErr_Clear();
    }
    return pointer != nullptr || current != nullptr;
  }();
  if (!found) return 0;
  if (pointer != nullptr) {
    py::object value = py::reinterpret_steal<py::object>(PyObject_CallNoArgs(pointer));
    if (!value) throw py::error_already_set();
    return value.cast<uintptr_t>();
  }
  py::object stream = py::reinterpret_steal<py::object>(PyObject_CallNoArgs(current));
  if (!stream) throw py::error_already_set();
  return attribute(stream, cupy_names().ptr).cast<uintptr_t>();
}

// At a call's first CUDA array: which stream it belongs to, and Kokkos' stream made to wait for
// the work queued there (none to do for the legacy default stream). host_access: the entry
// reads arrays from host code, so the host itself waits for that stream.
inline void join_caller_stream(const cuda_array& array, bool host_access) {
  caller_stream& stream = call_stream();
  if (stream.known) return;
  stream.known = true;
  stream.handle = array.cupy ? cupy_current_stream() : array.stream;
  if (stream.legacy()) return;
  auto* caller = reinterpret_cast<cudaStream_t>(stream.handle);
  if (host_access) {
    check(cudaStreamSynchronize(caller), "waiting for the arguments' stream");
    return;
  }
  check(cudaEventRecord(ordering_event(), caller), "cudaEventRecord");
  check(cudaStreamWaitEvent(Kokkos::Cuda().cuda_stream(), ordering_event(), 0), "cudaStreamWaitEvent");
}

// At the end of a call with CUDA arrays: the caller's stream waits for the call's kernels.
inline void release_to_caller_stream() {
  const caller_stream& stream = call_stream();
  if (stream.legacy()) return;
  check(cudaEventRecord(ordering_event(), Kokkos::Cuda().cuda_stream()), "cudaEventRecord");
  check(cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(stream.handle), ordering_event(), 0),
        "cudaStreamWaitEvent");
}

// A CUDA array (__cuda_array_interface__, e.g. CuPy): checked and viewed in place.
template <class T, int N, class Layout>
device_arg<T, N, Layout> from_cuda_array(py::handle object, const char* function, const char* param, bool written,
                                         bool host_access) {
  cuda_array described = describe_cuda_array(object);
  if (static_cast<int>(described.extents.size()) != N) {
    argument_error(true, function, param,
                   "must be a " + std::to_string(N) + "-D array, got a " + std::to_string(described.extents.size()) +
                       "-D array");
  }
  const py::dtype& dtype = described.dtype;
  if (dtype.kind() != dtype_of<T>::kind || dtype.itemsize() != static_cast<py::ssize_t>(sizeof(T)) ||
      dtype.byteorder() == '>') {
    argument_error(true, function, param,
                   std::string("must have dtype ") + dtype_of<T>::name + ", got " + std::string(py::str(dtype)));
  }
  if (written && described.readonly) {
    argument_error(false, function, param, std::string("is read-only, but ") + function + "() writes to it");
  }
  auto* pointer = static_cast<T*>(described.data);
  const std::vector<py::ssize_t>& extents = described.extents;
  const std::vector<py::ssize_t>& strides = described.strides;
  bool c_contiguous = true, f_contiguous = true;
  // An array with no elements is both, as NumPy says (CuPy gives (0, 0) strides (8, 8)).
  if (std::find(extents.begin(), extents.end(), 0) == extents.end()) {
    py::ssize_t expected = sizeof(T);
    for (int k = N; k-- > 0;) {
      if (extents[k] != 1 && strides[k] != expected) c_contiguous = false;
      expected *= extents[k];
    }
    expected = sizeof(T);
    for (int k = 0; k < N; ++k) {
      if (extents[k] != 1 && strides[k] != expected) f_contiguous = false;
      expected *= extents[k];
    }
  }
  check_layout<T, N, Layout>(0, c_contiguous, f_contiguous, function, param);
  for (int k = 0; k < N; ++k) {
    if (strides[k] % static_cast<py::ssize_t>(sizeof(T)) != 0 || (strides[k] < 0 && extents[k] > 1)) {
      argument_error(false, function, param,
                     "has negative strides or strides that are not a multiple of its item size; "
                     "pass cupy.ascontiguousarray(...)");
    }
  }
  cuda_arguments() += 1;
  join_caller_stream(described, host_access);
  if (!host_access || is_managed(pointer)) {
    return {view_of_memory<T, N, Layout>(pointer, extents, strides), py::reinterpret_borrow<py::object>(object),
            nullptr};
  }
  // The entry dereferences arrays in host code: stage device-only memory through managed memory.
  py::array staged = managed_array(dtype, extents, std::is_same<Layout, Kokkos::LayoutLeft>::value, true);
  if (c_contiguous || f_contiguous) {
    check(cudaMemcpy(staged.mutable_data(), pointer, static_cast<size_t>(staged.nbytes()), cudaMemcpyDefault),
          "staging a CUDA array");
  } else {
    py::module_ cupy = py::module_::import("cupy");
    py::object contiguous = cupy.attr("ascontiguousarray")(object);
    cuda_array dense = describe_cuda_array(contiguous);
    check(cudaMemcpy(staged.mutable_data(), dense.data, static_cast<size_t>(staged.nbytes()), cudaMemcpyDefault),
          "staging a CUDA array");
  }
  std::shared_ptr<CopyBack> copy_back;
  if (written) {
    if (!(c_contiguous || f_contiguous)) {
      argument_error(false, function, param,
                     "is a non-contiguous CUDA array that this kernel writes from host code; pass "
                     "cupy.ascontiguousarray(...) and copy back");
    }
    copy_back = copy_back_to(object, staged, true);
  }
  return {view_of_array<T, N, Layout>(staged), staged, copy_back};
}

// Any argument of a cuda kernel: a CUDA array in place, or a NumPy array (managed: in place;
// otherwise staged, and copied back if written). device_access: the entry has parallel regions
// (an entry without any runs on the host and takes host memory in place). Where no host code of
// the entry touches arrays (host_access false), a NumPy argument laid out as the view wants is
// staged in device memory; a returned argument is then the caller's array (owner_of).
template <class T, int N, class Layout>
device_arg<T, N, Layout> from_array(py::handle object, const char* function, const char* param, bool written,
                                    bool host_access, bool device_access) {
  if (is_cuda_array(object)) {
    return from_cuda_array<T, N, Layout>(object, function, param, written, host_access || !device_access);
  }
  array_arg<T, N, Layout> host = from_numpy<T, N, Layout>(object, function, param, written);
  if (!device_access || is_managed(host.view.data())) return {host.view, host.owner, nullptr};
  py::array array = py::reinterpret_borrow<py::array>(object);
  std::vector<py::ssize_t> extents(array.shape(), array.shape() + N);
  const bool fortran = std::is_same<Layout, Kokkos::LayoutLeft>::value;
  // Same layout: one DMA copy (fast; a host loop over fresh managed pages faults on every page).
  const bool direct = (array.flags() & (fortran ? py::array::f_style : py::array::c_style)) != 0;
  if (direct && !host_access) {
    const size_t bytes = static_cast<size_t>(array.nbytes());
    py::capsule buffer = device_buffer(bytes);
    void* pointer = device_buffer_pointer(buffer);
    if (bytes > 0) check(cudaMemcpy(pointer, array.data(), bytes, cudaMemcpyHostToDevice), "staging a NumPy array");
    std::vector<py::ssize_t> strides(array.strides(), array.strides() + N);
    // The buffer stays the call's (not given back, so not taken by another argument) until the
    // CopyBack goes; it is copied back only if written. The argument's owner, what the kernel
    // returns for it, is the caller's array (owner_of: staged_arguments).
    auto copy_back = copy_back_to(object, py::array(), false);
    copy_back->device_buffer = buffer;
    copy_back->device_data = written ? pointer : nullptr;
    copy_back->device_bytes = bytes;
    staged_arguments().emplace_back(pointer, object.ptr());
    return {view_of_memory<T, N, Layout>(pointer, extents, strides), py::reinterpret_borrow<py::object>(object),
            copy_back};
  }
  py::array staged = managed_array(array.dtype(), extents, fortran, true);
  if (direct) {
    check(cudaMemcpy(staged.mutable_data(), array.data(), static_cast<size_t>(staged.nbytes()), cudaMemcpyDefault),
          "staging a NumPy array");
  } else {
    py::module_::import("numpy").attr("copyto")(staged, array);
  }
  prefetch(staged.data(), static_cast<size_t>(staged.nbytes()), current_device());
  std::shared_ptr<CopyBack> copy_back;
  if (written) {
    copy_back = copy_back_to(object, staged, false);
    copy_back->direct = direct;
  }
  return {view_of_array<T, N, Layout>(staged), staged, copy_back};
}

// Results: NumPy arrays (managed memory) become CuPy arrays when an argument was one.
inline py::object to_cupy(py::object value) {
  if (py::isinstance<py::array>(value)) return py::module_::import("cupy").attr("asarray")(value);
  if (py::isinstance<py::tuple>(value)) {
    py::tuple tuple = value;
    py::tuple out(tuple.size());
    for (size_t k = 0; k < tuple.size(); ++k) out[k] = to_cupy(tuple[k]);
    return std::move(out);
  }
  return value;
}

// The host side of the module's device error slot (kpc_semantics.hpp's device_error_slot): mapped
// pinned memory, so that reading it after a fence costs no CUDA call.
inline volatile int* device_errors() {
  static volatile int* slot = [] {
    int* host = nullptr;
    check(cudaHostAlloc(reinterpret_cast<void**>(&host), sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
    *host = 0;
    int* device = nullptr;
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0), "cudaHostGetDevicePointer");
    check(cudaMemcpyToSymbol(device_error_slot, &device, sizeof(device)), "cudaMemcpyToSymbol");
    return static_cast<volatile int*>(host);
  }();
  return slot;
}

// One binding call, inside kpc::call_guard (so one at a time: the CUDA-argument count and the
// caller's stream are the call's own): resets them; result() converts what is returned and
// orders the call's kernels before what comes next: the caller's stream (see above) when an
// argument was a CUDA array and nothing is returned, otherwise a fence (what is returned, NumPy
// arrays in managed memory, scalars, is read by the host). The CUDA
// runtime keeps a current device per host thread, and a Python thread other than the one that
// initialized Kokkos starts on device 0, so each thread is moved to Kokkos' device once.
struct call_scope {
  call_scope() {
    thread_local const bool on_kokkos_device = [] {
      check(cudaSetDevice(Kokkos::Cuda().cuda_device()), "cudaSetDevice");
      return true;
    }();
    (void)on_kokkos_device;
    cuda_arguments() = 0;
    call_stream() = caller_stream{};
    staged_arguments().clear();
    *device_errors() = 0;
  }
  py::object result(py::object value) const {
    if (cuda_arguments() == 0) {
      Kokkos::fence();
      raise_device_errors();
      return value;
    }
    if (value.is_none()) {
      // returns before its kernels end (stream order): an error they flag is not seen by this call
      release_to_caller_stream();
      return value;
    }
    Kokkos::fence();  // what is returned is read on the host (cupy.asarray copies a result through it)
    raise_device_errors();
    return to_cupy(std::move(value));
  }

 private:
  // Python's exception for an error the call's kernels flagged on the device (check_errors).
  static void raise_device_errors() {
    const int error = *device_errors();
    if (error == 0) return;
    *device_errors() = 0;
    error_flag() = error;
    check_errors();
  }
};

}  // namespace cuda
}  // namespace kpc
