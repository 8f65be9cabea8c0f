// kpc_numpy.hpp: NumPy arrays in and out of generated kernels, through pybind11.
//
// Arguments are wrapped zero-copy as unmanaged Kokkos views with the array's real
// strides (LayoutRight / LayoutLeft for contiguous C / Fortran arrays, LayoutStride,
// whose strides count elements, for everything else). Arrays a kernel allocates are
// allocated as NumPy arrays first and viewed, so they are returned without a copy.
// Every check raises a Python TypeError or ValueError that names the parameter.
#pragma once

#include "kpc_semantics.hpp"

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <pthread.h>

#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Kokkos::complex<T> has std::complex<T>'s layout (NumPy's complex64/complex128): pybind11
// treats it as it treats std::complex, for arrays (py::array_t) and for Python complex values.
PYBIND11_NAMESPACE_BEGIN(PYBIND11_NAMESPACE)
template <typename T>
struct format_descriptor<Kokkos::complex<T>, detail::enable_if_t<std::is_floating_point<T>::value>>
    : format_descriptor<std::complex<T>> {};
PYBIND11_NAMESPACE_BEGIN(detail)
template <typename T>
struct is_fmt_numeric<Kokkos::complex<T>, detail::enable_if_t<std::is_floating_point<T>::value>>
    : is_fmt_numeric<std::complex<T>> {};
template <typename T>
struct is_complex<Kokkos::complex<T>> : std::true_type {};
template <typename T>
class type_caster<Kokkos::complex<T>> {
 public:
  bool load(handle src, bool convert) {
    type_caster<std::complex<T>> inner;
    if (!inner.load(src, convert)) return false;
    const std::complex<T>& z = static_cast<std::complex<T>&>(inner);
    value = Kokkos::complex<T>(z.real(), z.imag());
    return true;
  }
  static handle cast(const Kokkos::complex<T>& z, return_value_policy, handle) {
    return PyComplex_FromDoubles(static_cast<double>(z.real()), static_cast<double>(z.imag()));
  }
  PYBIND11_TYPE_CASTER(Kokkos::complex<T>, const_name("complex"));
};
PYBIND11_NAMESPACE_END(detail)
PYBIND11_NAMESPACE_END(PYBIND11_NAMESPACE)

namespace kpc {

namespace py = pybind11;

template <class T>
struct dtype_of;
#define KPC_DTYPE(T, KIND, NAME)                   \
  template <>                                      \
  struct dtype_of<T> {                             \
    static constexpr char kind = KIND;             \
    static constexpr const char* name = NAME;      \
  };
KPC_DTYPE(double, 'f', "float64")
KPC_DTYPE(float, 'f', "float32")
KPC_DTYPE(int64_t, 'i', "int64")
KPC_DTYPE(int32_t, 'i', "int32")
KPC_DTYPE(int16_t, 'i', "int16")
KPC_DTYPE(int8_t, 'i', "int8")
KPC_DTYPE(uint64_t, 'u', "uint64")
KPC_DTYPE(uint32_t, 'u', "uint32")
KPC_DTYPE(uint16_t, 'u', "uint16")
KPC_DTYPE(uint8_t, 'u', "uint8")
KPC_DTYPE(bool, 'b', "bool")
KPC_DTYPE(Kokkos::complex<double>, 'c', "complex128")
KPC_DTYPE(Kokkos::complex<float>, 'c', "complex64")
#undef KPC_DTYPE

// A view of an argument and the object that keeps its memory alive.
template <class T, int N, class Layout>
struct array_arg {
  ::kpc::view<T, N, Layout> view;
  py::object owner;
};

[[noreturn]] inline void argument_error(bool type_error, const char* function, const char* param,
                                        const std::string& what) {
  std::string message = std::string(function) + "(): argument '" + param + "' " + what;
  if (type_error) throw py::type_error(message);
  throw py::value_error(message);
}

template <class V, class Shape, std::size_t... I>
V make_view(void* data, const Shape& shape, std::index_sequence<I...>) {
  return V(static_cast<typename V::pointer_type>(data), static_cast<size_t>(shape[I])...);
}

// The NumPy array among ``owners`` whose memory the view ``v`` holds: what a returned name
// refers to after ``u, v = v, u`` swapped the views of two arrays.
template <class View>
py::object owner_of(const View& v, std::initializer_list<py::object> owners) {
  for (const py::object& owner : owners) {
    if (py::isinstance<py::array>(owner) &&
        py::reinterpret_borrow<py::array>(owner).data() == static_cast<const void*>(v.data())) {
      return owner;
    }
  }
  throw std::runtime_error("kpc: the returned array's memory belongs to no array of the kernel");
}

template <class T, int N, class Layout>
view<T, N, Layout> view_of_array(const py::array& array) {
  using V = view<T, N, Layout>;
  void* data = const_cast<void*>(array.data());
  if constexpr (std::is_same<Layout, Kokkos::LayoutStride>::value) {
    Kokkos::LayoutStride layout;
    for (int k = 0; k < N; ++k) {
      layout.dimension[k] = static_cast<size_t>(array.shape(k));
      layout.stride[k] = static_cast<size_t>(array.strides(k) / static_cast<py::ssize_t>(sizeof(T)));
    }
    return V(static_cast<T*>(data), layout);
  } else {
    return make_view<V>(data, array.shape(), std::make_index_sequence<N>{});
  }
}

// Check an argument (array, rank, dtype, layout, writability) and view it.
template <class T, int N, class Layout>
array_arg<T, N, Layout> from_numpy(py::handle object, const char* function, const char* param, bool written) {
  if (!py::isinstance<py::array>(object)) {
    argument_error(true, function, param,
                   std::string("must be a NumPy array of ") + dtype_of<T>::name + ", got " +
                       std::string(py::str(py::type::handle_of(object).attr("__name__"))));
  }
  py::array array = py::reinterpret_borrow<py::array>(object);
  if (array.ndim() != N) {
    argument_error(true, function, param,
                   "must be a " + std::to_string(N) + "-D array, got a " + std::to_string(array.ndim()) +
                       "-D array");
  }
  py::dtype dtype = array.dtype();
  if (dtype.kind() != dtype_of<T>::kind || dtype.itemsize() != static_cast<py::ssize_t>(sizeof(T)) ||
      dtype.byteorder() == '>') {
    argument_error(true, function, param,
                   std::string("must have dtype ") + dtype_of<T>::name + ", got " +
                       std::string(py::str(dtype)));
  }
  if (written && !array.writeable()) {
    argument_error(false, function, param,
                   std::string("is read-only, but ") + function + "() writes to it");
  }
  const int flags = array.flags();
  if constexpr (std::is_same<Layout, Kokkos::LayoutRight>::value) {
    if (N > 1 && !(flags & py::array::c_style)) {
      argument_error(false, function, param, "must be C-contiguous for this specialization");
    }
  } else if constexpr (std::is_same<Layout, Kokkos::LayoutLeft>::value) {
    if (N > 1 && !(flags & py::array::f_style)) {
      argument_error(false, function, param, "must be Fortran-contiguous for this specialization");
    }
  } else {
    bool negative = false;
    for (int k = 0; k < N; ++k) {
      py::ssize_t stride = array.strides(k);
      if (stride % static_cast<py::ssize_t>(sizeof(T)) != 0) {
        argument_error(false, function, param,
                       "has a stride that is not a multiple of its item size; pass np.ascontiguousarray(...)");
      }
      negative = negative || (stride < 0 && array.shape(k) > 1);
    }
    if (negative) {
      // Kokkos strides are unsigned. A kernel that only reads gets a contiguous copy;
      // one that writes would write to the copy, so it is refused.
      if (written) {
        argument_error(false, function, param,
                       "has negative strides (a reversed view such as a[::-1]), which kpc cannot pass to a "
                       "kernel that writes to it; pass np.ascontiguousarray(...) and copy back");
      }
      py::array copy = py::array::ensure(array, py::array::c_style | py::array::forcecast);
      return {view_of_array<T, N, Layout>(copy), copy};
    }
  }
  return {view_of_array<T, N, Layout>(array), py::reinterpret_borrow<py::object>(object)};
}

inline void check_argument_count(Py_ssize_t given, size_t expected, const char* function) {
  if (static_cast<size_t>(given) != expected) {
    throw py::type_error(std::string(function) + "() takes " + std::to_string(expected) + " arguments (" +
                         std::to_string(given) + " given)");
  }
}

// The entries of a module are plain METH_FASTCALL functions, not pybind11 bindings: a call
// skips pybind11's overload dispatch and argument tuple (about 0.2 us of the per-call cost).
// A C++ exception leaving an entry becomes the Python exception pybind11 would raise.
inline PyObject* raise_current_exception() {
#if PYBIND11_VERSION_HEX >= 0x020D0000
  py::detail::try_translate_exceptions();  // the module's registered translators included
#else
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "kpc: unknown C++ exception");
  }
#endif
  return nullptr;
}

// Add the fastcall entry ``function`` to module ``m`` under ``name`` (``definitions`` must
// live as long as the module: a static array of the generated source).
inline void add_entry(py::module_& m, PyMethodDef* definition) {
  PyObject* function = PyCFunction_NewEx(definition, nullptr, m.attr("__name__").ptr());
  if (function == nullptr) throw py::error_already_set();
  m.add_object(definition->ml_name, py::reinterpret_steal<py::object>(function));
}

// A scalar argument converted as pybind11 converts it (Python int to float, NumPy scalars, ...).
template <class T>
T scalar_arg(py::handle object, const char* function, const char* param) {
  try {
    return object.cast<T>();
  } catch (const py::cast_error&) {
    argument_error(true, function, param,
                   std::string("must be a number convertible to ") + dtype_of<T>::name + ", got " +
                       std::string(py::str(py::type::handle_of(object).attr("__name__"))));
  }
}

inline std::atomic<int>& broadcast_failed();
inline std::string& broadcast_failure();

// Raise the Python exception for an error a kernel flagged (see kpc::error_flag).
inline void check_errors() {
  if (broadcast_failed().load()) {
    std::string message;
    message.swap(broadcast_failure());
    broadcast_failed() = 0;
    throw py::value_error(message);
  }
  int error = error_flag();
  if (error == 0) return;
  error_flag() = 0;
  PyObject* type = error == index_error         ? PyExc_IndexError
                   : error == empty_range_error ? PyExc_ValueError
                                                : PyExc_ZeroDivisionError;
  PyErr_SetString(type, error_message(error));
  throw py::error_already_set();
}

// A new NumPy array (C order), as np.empty would make it.
template <class T, int N>
py::array_t<T> empty(const std::array<int64_t, N>& shape) {
  std::vector<py::ssize_t> extents(shape.begin(), shape.end());
  for (auto& extent : extents) {
    if (extent < 0) throw py::value_error("negative dimensions are not allowed");
  }
  return py::array_t<T>(extents);
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
    throw py::value_error(message);
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
};

inline session*& attached_session() {
  static session* current = nullptr;
  return current;
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

// _kpc_key(*args): the key of a call's arguments in a drop-in module's dispatch table, as
// kpc.runtime.dispatch.python_key computes it (the drop-in module switches to this one once
// a module is loaded): per argument an int for a NumPy array (dtype number << 20 | rank << 12
// | the C-contiguous, F-contiguous and writeable flags), id(type) for a plain number, else
// arg_key(value).
inline PyObject* dispatch_key(PyObject*, PyObject* const* args, Py_ssize_t nargs) try {
  // Never destroyed: their destructors would run after the interpreter is gone.
  static py::object* dispatch = new py::object(py::module_::import("kpc.runtime.dispatch"));
  static py::object* plain = new py::object(dispatch->attr("PLAIN_SCALARS"));
  static py::object* fallback = new py::object(dispatch->attr("arg_key"));
  PyObject* key = PyTuple_New(nargs);
  if (key == nullptr) return nullptr;
  py::object owned = py::reinterpret_steal<py::object>(key);
  for (Py_ssize_t k = 0; k < nargs; ++k) {
    PyObject* value = args[k];
    PyObject* item = nullptr;
    if (py::isinstance<py::array>(value)) {
      py::array array = py::reinterpret_borrow<py::array>(value);
      const long long bits = (static_cast<long long>(array.dtype().num()) << 20) |
                             (static_cast<long long>(array.ndim()) << 12) | (array.flags() & 0x403);
      item = PyLong_FromLongLong(bits);
    } else {
      const int contained = PySet_Contains(plain->ptr(), reinterpret_cast<PyObject*>(Py_TYPE(value)));
      if (contained < 0) return nullptr;
      item = contained ? PyLong_FromVoidPtr(reinterpret_cast<void*>(Py_TYPE(value)))
                       : PyObject_CallOneArg(fallback->ptr(), value);
    }
    if (item == nullptr) return nullptr;
    PyTuple_SET_ITEM(key, k, item);
  }
  return owned.release().ptr();
} catch (...) {
  return raise_current_exception();
}

// _kpc_call(table, dispatcher, *args): a drop-in module's whole fast path in one call: the
// arguments' key (dispatch_key), the compiled function the table holds for it, called with the
// arguments; on a miss (or an unhashable argument) the dispatcher (a Python callable) is called.
// kpc.runtime.dispatch.python_call does the same in Python.
inline PyObject* dispatch_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 2 || !PyDict_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "_kpc_call(table, dispatcher, *args)");
    return nullptr;
  }
  PyObject* key = dispatch_key(self, args + 2, nargs - 2);
  PyObject* function = nullptr;
  if (key != nullptr) {
    function = PyDict_GetItemWithError(args[0], key);  // borrowed
    Py_DECREF(key);
  }
  if (function == nullptr) {
    if (PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_TypeError)) return nullptr;
      PyErr_Clear();  // an unhashable argument: the dispatcher says what is wrong with it
    }
    function = args[1];
  }
  return PyObject_Vectorcall(function, args + 2, static_cast<size_t>(nargs - 2), nullptr);
}

// Functions through which kpc.runtime.kokkos_session initializes Kokkos once per
// process (libkokkoscore is shared by all modules), shares the session between modules,
// and finalizes Kokkos at exit; and _kpc_key and _kpc_call (dispatch_key, dispatch_call).
inline void define_session_functions(py::module_& m) {
  static PyMethodDef key_definition = {"_kpc_key", reinterpret_cast<PyCFunction>(
                                           reinterpret_cast<void (*)(void)>(&dispatch_key)), METH_FASTCALL, nullptr};
  static PyMethodDef call_definition = {"_kpc_call", reinterpret_cast<PyCFunction>(
                                            reinterpret_cast<void (*)(void)>(&dispatch_call)), METH_FASTCALL, nullptr};
  add_entry(m, &key_definition);
  add_entry(m, &call_definition);
  read_serial_threshold_env();
  m.def("_kpc_initialize", [](int num_threads) {
    if (!Kokkos::is_initialized()) kpc::initialize(num_threads);
  });
  // Called on the thread that initialized Kokkos, right after: that thread is the master.
  m.def("_kpc_start_session", []() {
    attached_session() = started_session();
    return py::capsule(attached_session(), "kpc.session");
  });
  m.def("_kpc_attach_session", [](py::capsule capsule) {
    attached_session() = capsule.get_pointer<session>();
  });
  m.def("_kpc_finalize", []() {
    call_guard guard;
    if (Kokkos::is_initialized()) Kokkos::finalize();
    attached_session()->state.store(session::finalized);
  });
  m.def("_kpc_is_initialized", []() { return Kokkos::is_initialized(); });
  m.def("_kpc_concurrency", []() {
    call_guard guard;
    return Kokkos::DefaultHostExecutionSpace().concurrency();
  });
  m.attr("_kpc_kokkos_version") = KOKKOS_VERSION;
}

}  // namespace kpc
