// kpc_python.hpp: what a generated module and kpc's support library share, on CPython's C API.
//
// A host-space module (kpc_host.hpp) instantiates no pybind11: its entries call the support
// library (kpc_support.cpp, compiled once per toolchain and linked into every module) through
// the C functions declared here, which check and describe NumPy arrays, convert scalars, raise
// C++ exceptions as Python exceptions and create the module. Each returns nullptr or -1 with a
// Python exception set when it fails.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

// The element types kpc passes between Python and kernels (kpc::dtype_of<T>::code).
enum kpc_dtype : int {
  kpc_float64,
  kpc_float32,
  kpc_int64,
  kpc_int32,
  kpc_int16,
  kpc_int8,
  kpc_uint64,
  kpc_uint32,
  kpc_uint16,
  kpc_uint8,
  kpc_bool,
  kpc_complex128,
  kpc_complex64,
};

// The layout an argument must have: C- or Fortran-contiguous (rank > 1), or any strides.
enum kpc_layout : int { kpc_layout_right, kpc_layout_left, kpc_layout_stride };

extern "C" {
// Check that `object` is a NumPy array of `dtype`, rank `ndim` and `layout` (writable when
// `written`), raising the TypeError or ValueError naming `function` and `param` otherwise; give
// the memory to view: its data, extents and strides (in bytes), and a new reference to the array
// that owns it (a contiguous copy of a read-only array with negative strides).
int kpc_support_array(PyObject* object, const char* function, const char* param, int dtype, int ndim, int layout,
                      int written, void** data, Py_ssize_t* extents, Py_ssize_t* strides, PyObject** owner);
// The data, extents and strides of `ndim`-D array `object`; data is nullptr when it is no NumPy array.
int kpc_support_describe(PyObject* object, int ndim, void** data, Py_ssize_t* extents, Py_ssize_t* strides);
// A new C-order NumPy array (np.empty); ValueError for a negative extent.
PyObject* kpc_support_empty(int dtype, int ndim, const int64_t* shape);
// Convert a scalar argument into `*out` (a value of `dtype`), as pybind11 converts it.
int kpc_support_scalar(PyObject* object, int dtype, void* out, const char* function, const char* param);
// `*value` (of `dtype`) as a Python number.
PyObject* kpc_support_box(int dtype, const void* value);
// Set the Python exception for the C++ exception being handled; returns nullptr.
PyObject* kpc_support_raise_current_exception(void);
// The module `name` with kpc's session functions and `entries` (a static array ending in a
// zeroed entry).
PyObject* kpc_support_create_module(const char* name, PyMethodDef* entries);
}

namespace kpc {

// A strong reference to a Python object (nullptr or owned), released when destroyed.
class ref {
 public:
  ref() = default;
  static ref steal(PyObject* object) { return ref(object); }
  static ref borrow(PyObject* object) {
    Py_XINCREF(object);
    return ref(object);
  }
  ref(const ref& other) : object_(other.object_) { Py_XINCREF(object_); }
  ref(ref&& other) noexcept : object_(other.object_) { other.object_ = nullptr; }
  ref& operator=(ref other) noexcept {
    std::swap(object_, other.object_);
    return *this;
  }
  ~ref() { Py_XDECREF(object_); }

  PyObject* ptr() const { return object_; }
  PyObject* release() {
    PyObject* object = object_;
    object_ = nullptr;
    return object;
  }

 private:
  explicit ref(PyObject* object) : object_(object) {}
  PyObject* object_ = nullptr;
};

// A Python exception to raise once the entry returns: a builtin type (PyExc_ValueError) or
// one named by module and attribute (numpy.linalg.LinAlgError), imported when it is raised.
// Throwing one needs no GIL.
class exception : public std::runtime_error {
 public:
  exception(PyObject* type, const std::string& message) : std::runtime_error(message), type_(type) {}
  exception(const char* module, const char* name, const std::string& message)
      : std::runtime_error(message), module_(module), name_(name) {}
  // Without arguments, as Python's `raise ValueError` (its args are (), not ('',)).
  exception(const char* module, const char* name) : std::runtime_error(""), module_(module), name_(name), bare_(true) {}

  // Set it as the current Python exception (with the GIL held).
  void restore() const {
    if (type_ != nullptr) {
      PyErr_SetString(type_, what());
      return;
    }
    PyObject* module = PyImport_ImportModule(module_);
    if (module == nullptr) return;
    PyObject* type = PyObject_GetAttrString(module, name_);
    Py_DECREF(module);
    if (type == nullptr) return;
    if (bare_) {
      PyErr_SetNone(type);
    } else {
      PyErr_SetString(type, what());
    }
    Py_DECREF(type);
  }

 private:
  PyObject* type_ = nullptr;
  const char* module_ = nullptr;
  const char* name_ = nullptr;
  bool bare_ = false;
};

inline exception type_error(const std::string& message) { return exception(PyExc_TypeError, message); }
inline exception value_error(const std::string& message) { return exception(PyExc_ValueError, message); }

// Thrown after a C API call failed: the Python exception is already set.
struct error_already_set : std::exception {
  const char* what() const noexcept override { return "kpc: a Python exception is set"; }
};

inline ref checked(PyObject* object) {
  if (object == nullptr) throw error_already_set();
  return ref::steal(object);
}

}  // namespace kpc
