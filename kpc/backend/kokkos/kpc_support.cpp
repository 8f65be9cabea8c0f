// kpc_support.cpp: kpc's support library, the pybind11 side of every host-space module.
//
// Compiled once per compiler and flag set (kpc.runtime.support_library) and linked into each
// module, so that a module's own translation unit instantiates no pybind11: it calls the C
// functions of kpc_python.hpp, defined here on kpc_numpy.hpp. Every function catches what it
// throws and reports it as a Python exception (nullptr or -1).
#include "kpc_numpy.hpp"

namespace {

namespace py = pybind11;

template <class T>
struct tag {
  using type = T;
};

// Call `body(tag<T>{})` with the C++ type T of kpc_dtype `code`.
template <class Body>
auto with_dtype(int code, Body&& body) {
  switch (code) {
    case kpc_float64: return body(tag<double>{});
    case kpc_float32: return body(tag<float>{});
    case kpc_int64: return body(tag<int64_t>{});
    case kpc_int32: return body(tag<int32_t>{});
    case kpc_int16: return body(tag<int16_t>{});
    case kpc_int8: return body(tag<int8_t>{});
    case kpc_uint64: return body(tag<uint64_t>{});
    case kpc_uint32: return body(tag<uint32_t>{});
    case kpc_uint16: return body(tag<uint16_t>{});
    case kpc_uint8: return body(tag<uint8_t>{});
    case kpc_bool: return body(tag<bool>{});
    case kpc_complex128: return body(tag<Kokkos::complex<double>>{});
    case kpc_complex64: return body(tag<Kokkos::complex<float>>{});
  }
  throw std::logic_error("kpc: unknown dtype code " + std::to_string(code));
}

void describe(const py::array& array, int ndim, void** data, Py_ssize_t* extents, Py_ssize_t* strides) {
  *data = const_cast<void*>(array.data());
  for (int k = 0; k < ndim; ++k) {
    extents[k] = array.shape(k);
    strides[k] = array.strides(k);
  }
}

}  // namespace

extern "C" {

int kpc_support_array(PyObject* object, const char* function, const char* param, int dtype, int ndim, int layout,
                      int written, void** data, Py_ssize_t* extents, Py_ssize_t* strides, PyObject** owner) try {
  py::array array = with_dtype(dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    return kpc::checked_array(object, function, param, kpc::dtype_of<T>::name, kpc::dtype_of<T>::kind,
                              static_cast<py::ssize_t>(sizeof(T)), ndim, layout, written != 0);
  });
  describe(array, ndim, data, extents, strides);
  *owner = array.release().ptr();
  return 0;
} catch (...) {
  kpc::translate_current_exception();
  return -1;
}

int kpc_support_describe(PyObject* object, int ndim, void** data, Py_ssize_t* extents, Py_ssize_t* strides) try {
  *data = nullptr;
  if (py::isinstance<py::array>(object) && py::reinterpret_borrow<py::array>(object).ndim() == ndim) {
    describe(py::reinterpret_borrow<py::array>(object), ndim, data, extents, strides);
  }
  return 0;
} catch (...) {
  kpc::translate_current_exception();
  return -1;
}

PyObject* kpc_support_empty(int dtype, int ndim, const int64_t* shape) try {
  return with_dtype(dtype, [&](auto t) -> PyObject* {
    return kpc::empty_array<typename decltype(t)::type>(shape, ndim).release().ptr();
  });
} catch (...) {
  return kpc::translate_current_exception();
}

int kpc_support_scalar(PyObject* object, int dtype, void* out, const char* function, const char* param) try {
  with_dtype(dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    *static_cast<T*>(out) = kpc::scalar_arg<T>(object, function, param);
    return 0;
  });
  return 0;
} catch (...) {
  kpc::translate_current_exception();
  return -1;
}

PyObject* kpc_support_box(int dtype, const void* value) try {
  return with_dtype(dtype, [&](auto t) -> PyObject* {
    return py::cast(*static_cast<const typename decltype(t)::type*>(value)).release().ptr();
  });
} catch (...) {
  return kpc::translate_current_exception();
}

PyObject* kpc_support_raise_current_exception(void) { return kpc::translate_current_exception(); }

PyObject* kpc_support_create_module(const char* name, PyMethodDef* entries) try {
  // Never freed: a module's definition must outlive it, and modules live until the process exits.
  auto* definition = new PyModuleDef{PyModuleDef_HEAD_INIT, name, nullptr, -1, nullptr, nullptr, nullptr, nullptr,
                                     nullptr};
  PyObject* created = PyModule_Create(definition);
  if (created == nullptr) return nullptr;
  py::module_ module = py::reinterpret_steal<py::module_>(created);
  kpc::define_session_functions(module);
  for (PyMethodDef* entry = entries; entry->ml_name != nullptr; ++entry) kpc::add_entry(module, entry);
  return module.release().ptr();
} catch (...) {
  return kpc::translate_current_exception();
}

}  // extern "C"
