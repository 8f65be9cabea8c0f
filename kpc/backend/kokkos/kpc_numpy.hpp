// kpc_numpy.hpp: NumPy arrays in and out of generated kernels, through pybind11.
//
// Arguments are wrapped zero-copy as unmanaged Kokkos views with the array's real
// strides (LayoutRight / LayoutLeft for contiguous C / Fortran arrays, LayoutStride,
// whose strides count elements, for everything else). Arrays a kernel allocates are
// allocated as NumPy arrays first and viewed, so they are returned without a copy.
// Every check raises a Python TypeError or ValueError that names the parameter.
#pragma once

#include "kpc_semantics.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

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

inline void check_argument_count(const py::args& args, size_t expected, const char* function) {
  if (args.size() != expected) {
    throw py::type_error(std::string(function) + "() takes " + std::to_string(expected) + " arguments (" +
                         std::to_string(args.size()) + " given)");
  }
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

// Raise the Python exception for an error a kernel flagged (see kpc::error_flag).
inline void check_errors() {
  int error = error_flag();
  if (error == 0) return;
  error_flag() = 0;
  if (error == zero_division_error) {
    PyErr_SetString(PyExc_ZeroDivisionError, "integer division or modulo by zero");
    throw py::error_already_set();
  }
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

// -------------------------------------------------------------- session

// Functions through which kpc.runtime.kokkos_session initializes Kokkos once per
// process (libkokkoscore is shared by all modules) and finalizes it at exit.
inline void define_session_functions(py::module_& m) {
  read_serial_threshold_env();
  m.def("_kpc_initialize", [](int num_threads) {
    if (!Kokkos::is_initialized()) kpc::initialize(num_threads);
  });
  m.def("_kpc_finalize", []() {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  });
  m.def("_kpc_is_initialized", []() { return Kokkos::is_initialized(); });
  m.def("_kpc_concurrency", []() { return Kokkos::DefaultHostExecutionSpace::concurrency(); });
  m.attr("_kpc_kokkos_version") = KOKKOS_VERSION;
}

}  // namespace kpc
