// kpc_numpy.hpp: NumPy arrays in and out of kernels through pybind11, for the support library
// (kpc_support.cpp, which host-space modules call through kpc_python.hpp) and CUDA modules.
//
// Arguments are wrapped zero-copy as unmanaged Kokkos views with the array's real
// strides (LayoutRight / LayoutLeft for contiguous C / Fortran arrays, LayoutStride,
// whose strides count elements, for everything else). Arrays a kernel allocates are
// allocated as NumPy arrays first and viewed, so they are returned without a copy.
// Every check raises a Python TypeError or ValueError that names the parameter.
#pragma once

#include "kpc_runtime.hpp"

// kpc touches Python objects only with the GIL held (it is released around kernels, which touch
// none): pybind11's check of that on every reference count change (on where NDEBUG is not
// defined) cost about 50 ns per call.
#ifndef PYBIND11_NO_ASSERT_GIL_HELD_INCREF_DECREF
#define PYBIND11_NO_ASSERT_GIL_HELD_INCREF_DECREF
#endif

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
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

// NumPy arguments of the current call of a CUDA module that stand in device buffers
// (kpc_cuda.hpp's from_array): the buffer's address and the caller's array (borrowed: the
// call's argument holds it). Cleared when a call starts.
inline std::vector<std::pair<const void*, PyObject*>>& staged_arguments() {
  thread_local std::vector<std::pair<const void*, PyObject*>> staged;
  return staged;
}

// The NumPy array among ``owners`` whose memory the view ``v`` holds: what a returned name
// refers to after ``u, v = v, u`` swapped the views of two arrays.
// (A CUDA module's owners may be CUDA arrays: their memory is __cuda_array_interface__'s; or
// NumPy arguments staged in device buffers: staged_arguments.)
template <class View>
py::object owner_of(const View& v, std::initializer_list<py::object> owners) {
  for (const auto& [buffer, original] : staged_arguments()) {
    if (buffer != static_cast<const void*>(v.data())) continue;
    for (const py::object& owner : owners) {
      if (owner.ptr() == original) return owner;
    }
  }
  for (const py::object& owner : owners) {
    if (py::isinstance<py::array>(owner) &&
        py::reinterpret_borrow<py::array>(owner).data() == static_cast<const void*>(v.data())) {
      return owner;
    }
    if (!py::isinstance<py::array>(owner) && py::hasattr(owner, "__cuda_array_interface__")) {
      py::dict interface = owner.attr("__cuda_array_interface__");
      if (interface["data"].cast<py::tuple>()[0].cast<uintptr_t>() == reinterpret_cast<uintptr_t>(v.data())) {
        return owner;
      }
    }
  }
  throw std::runtime_error("kpc: the returned array's memory belongs to no array of the kernel");
}

template <class T, int N, class Layout>
view<T, N, Layout> view_of_array(const py::array& array) {
  return view_of_memory<T, N, Layout>(const_cast<void*>(array.data()), array.shape(), array.strides());
}

// Check an argument (array, rank, dtype, layout, writability): the array to view, the
// argument itself or a contiguous copy of it.
inline py::array checked_array(py::handle object, const char* function, const char* param, const char* dtype_name,
                               char kind, py::ssize_t itemsize, int ndim, int layout, bool written) {
  if (!py::isinstance<py::array>(object)) {
    argument_error(true, function, param,
                   std::string("must be a NumPy array of ") + dtype_name + ", got " +
                       std::string(py::str(py::type::handle_of(object).attr("__name__"))));
  }
  py::array array = py::reinterpret_borrow<py::array>(object);
  if (array.ndim() != ndim) {
    argument_error(true, function, param,
                   "must be a " + std::to_string(ndim) + "-D array, got a " + std::to_string(array.ndim()) +
                       "-D array");
  }
  py::dtype dtype = array.dtype();
  if (dtype.kind() != kind || dtype.itemsize() != itemsize || dtype.byteorder() == '>') {
    argument_error(true, function, param,
                   std::string("must have dtype ") + dtype_name + ", got " + std::string(py::str(dtype)));
  }
  if (written && !array.writeable()) {
    argument_error(false, function, param,
                   std::string("is read-only, but ") + function + "() writes to it");
  }
  const int flags = array.flags();
  if (layout == kpc_layout_right) {
    if (ndim > 1 && !(flags & py::array::c_style)) {
      argument_error(false, function, param, "must be C-contiguous for this specialization");
    }
  } else if (layout == kpc_layout_left) {
    if (ndim > 1 && !(flags & py::array::f_style)) {
      argument_error(false, function, param, "must be Fortran-contiguous for this specialization");
    }
  } else {
    bool negative = false;
    for (int k = 0; k < ndim; ++k) {
      py::ssize_t stride = array.strides(k);
      if (stride % itemsize != 0) {
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
      return py::array::ensure(array, py::array::c_style | py::array::forcecast);
    }
  }
  return array;
}

// Check an argument and view it.
template <class T, int N, class Layout>
array_arg<T, N, Layout> from_numpy(py::handle object, const char* function, const char* param, bool written) {
  py::array array = checked_array(object, function, param, dtype_of<T>::name, dtype_of<T>::kind,
                                  static_cast<py::ssize_t>(sizeof(T)), N, layout_code<Layout>(), written);
  return {view_of_array<T, N, Layout>(array), array};
}

// The entries of a module are plain METH_FASTCALL functions, not pybind11 bindings: a call
// skips pybind11's overload dispatch and argument tuple (about 0.2 us of the per-call cost).
// A C++ exception leaving an entry becomes the Python exception pybind11 would raise (a
// kpc::exception the one it names).
inline PyObject* translate_current_exception() {
  try {
    throw;
  } catch (const exception& e) {
    e.restore();
  } catch (const error_already_set&) {
  } catch (...) {
#if PYBIND11_VERSION_HEX >= 0x020D0000
    py::detail::try_translate_exceptions();  // the registered translators included
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
  }
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

// A new NumPy array (C order), as np.empty would make it.
template <class T>
py::array_t<T> empty_array(const int64_t* shape, int ndim) {
  std::vector<py::ssize_t> extents(shape, shape + ndim);
  for (auto& extent : extents) {
    if (extent < 0) throw py::value_error("negative dimensions are not allowed");
  }
  return py::array_t<T>(extents);
}

// _kpc_key(*args): the key of a call's arguments in a drop-in module's dispatch table, as
// kpc.runtime.dispatch.python_key computes it (the drop-in module switches to this one once
// a module is loaded). Each argument has a 16-bit code when it is a NumPy array of a built-in
// dtype (odd: 1 | C-contiguous << 1 | F-contiguous << 2 | writeable << 3 | dtype number << 4 |
// rank << 9) or a number of a class of dispatch.PLAIN_SCALAR_TYPES (even: (index + 1) << 1).
// Coded arguments pack into one int, four to 64 bits (a tuple of those ints past four
// arguments); otherwise the key is the tuple of the codes, with arg_key(value) for the others.
// One int costs a fraction of a tuple of ints to build, hash and compare.
// A CuPy array (cupy.ndarray, once CuPy is imported): even, 0x8000 | C-contiguous << 1 |
// F-contiguous << 2 | dtype number << 4 | rank << 9 (rank below 64), as
// kpc.runtime.dispatch.argument_code computes it; -1 for anything else.
// Attribute names of CuPy arrays, interned once: PyObject_GetAttrString makes a string per call,
// and a call with CuPy arguments reads a dozen attributes.
struct cupy_attribute_names {
  PyObject *dtype, *num, *ndim, *c_contiguous, *f_contiguous, *flags, *c_contiguous_flag, *f_contiguous_flag, *data,
      *ptr, *shape, *strides, *nbytes;
};

inline const cupy_attribute_names& cupy_names() {
  static const cupy_attribute_names names{
      PyUnicode_InternFromString("dtype"),         PyUnicode_InternFromString("num"),
      PyUnicode_InternFromString("ndim"),          PyUnicode_InternFromString("_c_contiguous"),
      PyUnicode_InternFromString("_f_contiguous"), PyUnicode_InternFromString("flags"),
      PyUnicode_InternFromString("c_contiguous"),  PyUnicode_InternFromString("f_contiguous"),
      PyUnicode_InternFromString("data"),          PyUnicode_InternFromString("ptr"),
      PyUnicode_InternFromString("shape"),         PyUnicode_InternFromString("strides"),
      PyUnicode_InternFromString("nbytes")};
  return names;
}

// value.name (a new reference; throws on failure).
inline py::object attribute(py::handle value, PyObject* name) {
  PyObject* found = PyObject_GetAttr(value.ptr(), name);
  if (found == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(found);
}

// cupy.ndarray, once CuPy is imported (nullptr before): its arrays are read through their
// attributes, several times cheaper than building __cuda_array_interface__'s dict per call
// (the dispatch key here, kpc_cuda.hpp's arguments).
inline PyObject* cupy_ndarray_type() {
  static PyObject* type = nullptr;
  if (type == nullptr) {
    PyObject* cupy = PyDict_GetItemString(PyImport_GetModuleDict(), "cupy");  // borrowed
    if (cupy != nullptr) type = PyObject_GetAttrString(cupy, "ndarray");  // kept for the process
    if (type == nullptr) PyErr_Clear();
  }
  return type;
}

inline int cupy_argument_code(PyObject* value) {
  PyObject* cupy_type = cupy_ndarray_type();
  if (cupy_type == nullptr || !PyObject_TypeCheck(value, reinterpret_cast<PyTypeObject*>(cupy_type))) return -1;
  try {
    const cupy_attribute_names& names = cupy_names();
    py::handle array(value);
    const int number = attribute(attribute(array, names.dtype), names.num).cast<int>();
    const int ndim = attribute(array, names.ndim).cast<int>();
    if (number < 0 || number >= 32 || ndim >= 64) return -1;
    // cupy.ndarray's own _c_contiguous / _f_contiguous where it has them: `flags` builds an
    // object per access (a third of this function's time)
    static int own_flags = -1;
    if (own_flags < 0) own_flags = py::hasattr(array, "_c_contiguous") && py::hasattr(array, "_f_contiguous");
    py::object flags = own_flags ? py::object() : attribute(array, names.flags);
    const bool c_contiguous =
        (own_flags ? attribute(array, names.c_contiguous) : attribute(flags, names.c_contiguous_flag)).cast<bool>();
    const bool f_contiguous =
        (own_flags ? attribute(array, names.f_contiguous) : attribute(flags, names.f_contiguous_flag)).cast<bool>();
    return 0x8000 | (c_contiguous ? 2 : 0) | (f_contiguous ? 4 : 0) | (number << 4) | (ndim << 9);
  } catch (const py::error_already_set&) {
    PyErr_Clear();
    return -1;
  }
}

inline int argument_code(PyObject* value) {
  static const std::vector<PyTypeObject*>* scalar_types = [] {
    auto* types = new std::vector<PyTypeObject*>();  // never destroyed (see dispatch_key)
    py::tuple listed = py::module_::import("kpc.runtime.dispatch").attr("PLAIN_SCALAR_TYPES");
    for (py::handle type : listed) types->push_back(reinterpret_cast<PyTypeObject*>(type.ptr()));
    return types;
  }();
  if (py::isinstance<py::array>(value)) {
    auto* array = py::detail::array_proxy(value);
    const int number = py::detail::array_descriptor_proxy(array->descr)->type_num;
    if (number < 0 || number >= 32 || array->nd >= 128) return -1;
    const int flags = array->flags;
    return 1 | ((flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) ? 2 : 0) |
           ((flags & py::detail::npy_api::NPY_ARRAY_F_CONTIGUOUS_) ? 4 : 0) |
           ((flags & py::detail::npy_api::NPY_ARRAY_WRITEABLE_) ? 8 : 0) | (number << 4) | (array->nd << 9);
  }
  PyTypeObject* type = Py_TYPE(value);
  for (size_t k = 0; k < scalar_types->size(); ++k) {
    if ((*scalar_types)[k] == type) return static_cast<int>(k + 1) << 1;
  }
  return cupy_argument_code(value);
}

inline PyObject* dispatch_key(PyObject*, PyObject* const* args, Py_ssize_t nargs) try {
  constexpr Py_ssize_t per_word = 4;
  unsigned long long word = 0;
  PyObject* words = nullptr;  // past four arguments: the tuple of the words
  if (nargs > per_word) {
    words = PyTuple_New((nargs + per_word - 1) / per_word);
    if (words == nullptr) return nullptr;
  }
  py::object owned_words = py::reinterpret_steal<py::object>(words);
  for (Py_ssize_t k = 0; k < nargs; ++k) {
    const int code = argument_code(args[k]);
    if (code < 0) {
      // Not every argument has a code: the tuple of codes and arg_key(value).
      static py::object* fallback =
          new py::object(py::module_::import("kpc.runtime.dispatch").attr("arg_key"));  // never destroyed
      py::tuple key(nargs);
      for (Py_ssize_t j = 0; j < nargs; ++j) {
        const int item_code = argument_code(args[j]);
        PyObject* item = item_code >= 0 ? PyLong_FromLong(item_code) : PyObject_CallOneArg(fallback->ptr(), args[j]);
        if (item == nullptr) return nullptr;
        PyTuple_SET_ITEM(key.ptr(), j, item);
      }
      return key.release().ptr();
    }
    word |= static_cast<unsigned long long>(code) << (16 * (k % per_word));
    if (words != nullptr && (k % per_word == per_word - 1 || k == nargs - 1)) {
      PyObject* item = PyLong_FromUnsignedLongLong(word);
      if (item == nullptr) return nullptr;
      PyTuple_SET_ITEM(words, k / per_word, item);
      word = 0;
    }
  }
  return words != nullptr ? owned_words.release().ptr() : PyLong_FromUnsignedLongLong(word);
} catch (...) {
  return translate_current_exception();
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

}  // namespace kpc

#include "kpc_placement.hpp"

namespace kpc {

// Functions through which kpc.runtime.kokkos_session initializes Kokkos once per
// process (libkokkoscore is shared by all modules), shares the session between modules,
// and finalizes Kokkos at exit; _kpc_key and _kpc_call (dispatch_key, dispatch_call); and
// _kpc_placed (kpc_placement.hpp).
inline void define_session_functions(py::module_& m) {
  static PyMethodDef key_definition = {"_kpc_key", reinterpret_cast<PyCFunction>(
                                           reinterpret_cast<void (*)(void)>(&dispatch_key)), METH_FASTCALL, nullptr};
  static PyMethodDef call_definition = {"_kpc_call", reinterpret_cast<PyCFunction>(
                                            reinterpret_cast<void (*)(void)>(&dispatch_call)), METH_FASTCALL, nullptr};
  static PyMethodDef placed_definition = {"_kpc_placed", reinterpret_cast<PyCFunction>(
                                              reinterpret_cast<void (*)(void)>(&placement::make_placed)),
                                          METH_FASTCALL, nullptr};
  add_entry(m, &key_definition);
  add_entry(m, &call_definition);
  add_entry(m, &placed_definition);
  read_serial_threshold_env();
  m.def("_kpc_initialize", [](int num_threads) {
    if (!Kokkos::is_initialized()) kpc::initialize(num_threads);
  });
  // With the device of this rank (kpc.runtime.rank_layout); modules that lack it take Kokkos' choice.
  m.def("_kpc_initialize_on", [](int num_threads, int device_id) {
    if (!Kokkos::is_initialized()) kpc::initialize(num_threads, device_id);
  });
  m.def("_kpc_device_count", []() { return kpc::device_count(); });
  m.def("_kpc_device_id", []() { return kpc::device_in_use(); });
  // Called on the thread that initialized Kokkos, right after: that thread is the master.
  m.def("_kpc_start_session", []() {
    attached_session() = started_session();
    session_lists_guard_sites() = true;
    return py::capsule(attached_session(), session_capsule_name);
  });
  m.def("_kpc_attach_session", [](py::capsule capsule) {
    attached_session() = capsule.get_pointer<session>();
    const char* name = capsule.name();
    session_lists_guard_sites() = name != nullptr && std::string(name) == session_capsule_name;
  });
  m.def("_kpc_finalize", []() {
    call_guard guard;
    if (Kokkos::is_initialized()) Kokkos::finalize();
    attached_session()->state.store(session::finalized);
  });
  m.def("_kpc_is_initialized", []() { return Kokkos::is_initialized(); });
  // The cost guard's scale measured in this process (0.0 before a module measured it).
  m.def("_kpc_serial_scale", []() {
    double* shared = session_serial_scale();
    return shared == nullptr ? 0.0 : *shared;
  });
  // What each region's guard measured: (label, size class, serial runs, parallel runs, best
  // serial ns, best parallel ns) for every class it timed.
  m.def("_kpc_guard_sites", []() {
    py::list sites;
    session* current = attached_session();
    if (current == nullptr || !session_lists_guard_sites()) return sites;
    for (const guard_site* site : current->guard_sites) {
      for (int c = 0; c < guard_site::classes; ++c) {
        const int serial = site->runs[0][c].load(), parallel = site->runs[1][c].load();
        if (serial + parallel == 0) continue;
        sites.append(py::make_tuple(site->label, c, serial, parallel, site->best_ns[0][c].load(),
                                    site->best_ns[1][c].load()));
      }
    }
    return sites;
  });
  m.def("_kpc_concurrency", []() {
    call_guard guard;
    return Kokkos::DefaultHostExecutionSpace().concurrency();
  });
  m.attr("_kpc_kokkos_version") = KOKKOS_VERSION;
  // Which Kokkos library this module uses (an address in it): modules of one process that use
  // two (the host and the device build of a --space cuda module) keep a session for each.
  m.attr("_kpc_kokkos_identity") = reinterpret_cast<uintptr_t>(&Kokkos::is_initialized);
}

}  // namespace kpc
