// kpc_host.hpp: NumPy arrays in and out of kernels built for a host space (Serial, OpenMP),
// without pybind11.
//
// Arguments are wrapped zero-copy as unmanaged Kokkos views with the array's real strides
// (LayoutRight / LayoutLeft for contiguous C / Fortran arrays, LayoutStride for everything
// else); arrays a kernel allocates are NumPy arrays, viewed, so they are returned without a
// copy. What needs NumPy's API or pybind11 (checking an argument, converting a scalar,
// translating a C++ exception, creating the module) is done by kpc's support library
// (kpc_support.cpp, declared in kpc_python.hpp), compiled once and linked into every module.
#pragma once

#include "kpc_runtime.hpp"

#include <initializer_list>
#include <tuple>
#include <type_traits>

// PyInit_<name>: a module's initialization function (KPC_MODULE_NAME is set per compile).
#define KPC_JOIN_(a, b) a##b
#define KPC_JOIN(a, b) KPC_JOIN_(a, b)
#define KPC_TEXT_(a) #a
#define KPC_TEXT(a) KPC_TEXT_(a)
#define KPC_MODULE_INIT(name) extern "C" __attribute__((visibility("default"))) PyObject* KPC_JOIN(PyInit_, name)()

namespace kpc {

// What the generated code holds Python objects in (returned arrays, their owners).
using object = ref;

inline object none() { return ref::borrow(Py_None); }

// A view of an argument and the object that keeps its memory alive.
template <class T, int N, class Layout>
struct numpy_arg {
  ::kpc::view<T, N, Layout> view;
  object owner;
};

// Check an argument (array, rank, dtype, layout, writability) and view it.
template <class T, int N, class Layout>
numpy_arg<T, N, Layout> from_numpy(PyObject* argument, const char* function, const char* param, bool written) {
  void* data = nullptr;
  Py_ssize_t extents[N > 0 ? N : 1];
  Py_ssize_t strides[N > 0 ? N : 1];
  PyObject* owner = nullptr;
  if (kpc_support_array(argument, function, param, dtype_of<T>::code, N, layout_code<Layout>(), written, &data,
                        extents, strides, &owner) != 0) {
    throw error_already_set();
  }
  return {view_of_memory<T, N, Layout>(data, extents, strides), ref::steal(owner)};
}

// A view of an array kpc allocated (kpc::empty).
template <class T, int N, class Layout>
view<T, N, Layout> view_of_array(const object& array) {
  void* data = nullptr;
  Py_ssize_t extents[N > 0 ? N : 1];
  Py_ssize_t strides[N > 0 ? N : 1];
  if (kpc_support_describe(array.ptr(), N, &data, extents, strides) != 0) throw error_already_set();
  return view_of_memory<T, N, Layout>(data, extents, strides);
}

// A new NumPy array (C order), as np.empty would make it.
template <class T, int N>
object empty(const std::array<int64_t, N>& shape) {
  return checked(kpc_support_empty(dtype_of<T>::code, N, shape.data()));
}

// A scalar argument converted as pybind11 converts it (Python int to float, NumPy scalars, ...).
template <class T>
T scalar_arg(PyObject* argument, const char* function, const char* param) {
  T value{};
  if (kpc_support_scalar(argument, dtype_of<T>::code, &value, function, param) != 0) throw error_already_set();
  return value;
}

// The NumPy array among ``owners`` whose memory the view ``v`` holds: what a returned name
// refers to after ``u, v = v, u`` swapped the views of two arrays.
template <class View>
object owner_of(const View& v, std::initializer_list<object> owners) {
  for (const object& owner : owners) {
    void* data = nullptr;
    Py_ssize_t extents[View::rank > 0 ? View::rank : 1];
    Py_ssize_t strides[View::rank > 0 ? View::rank : 1];
    if (kpc_support_describe(owner.ptr(), View::rank, &data, extents, strides) != 0) throw error_already_set();
    if (data != nullptr && data == static_cast<const void*>(v.data())) return owner;
  }
  throw std::runtime_error("kpc: the returned array's memory belongs to no array of the kernel");
}

template <class T, class = void>
struct has_dtype : std::false_type {};
template <class T>
struct has_dtype<T, std::void_t<decltype(dtype_of<T>::code)>> : std::true_type {};

template <class... Items>
object make_tuple(Items&&... items) {
  object tuple = checked(PyTuple_New(sizeof...(Items)));
  if constexpr (sizeof...(Items) > 0) {
    object elements[] = {object(std::forward<Items>(items))...};
    for (std::size_t k = 0; k < sizeof...(Items); ++k) PyTuple_SET_ITEM(tuple.ptr(), k, elements[k].release());
  }
  return tuple;
}

// A returned value as a Python object: numbers as pybind11 converts them, tuples as tuples.
template <class T>
object box(const T& value) {
  if constexpr (has_dtype<T>::value) {
    return checked(kpc_support_box(dtype_of<T>::code, &value));
  } else if constexpr (std::is_floating_point<T>::value) {
    return box(static_cast<double>(value));
  } else if constexpr (std::is_signed<T>::value) {
    return box(static_cast<int64_t>(value));
  } else {
    static_assert(std::is_unsigned<T>::value, "kpc::box: not a number");
    return box(static_cast<uint64_t>(value));
  }
}

template <class... T>
object box(const std::tuple<T...>& values) {
  return std::apply([](const auto&... value) { return make_tuple(box(value)...); }, values);
}

// The Python exception for the C++ exception being handled (in an entry's catch block).
inline PyObject* raise_current_exception() { return kpc_support_raise_current_exception(); }

// The module `name` with kpc's session functions and the fastcall `entries`.
inline PyObject* create_module(const char* name, PyMethodDef* entries) {
  return kpc_support_create_module(name, entries);
}

}  // namespace kpc
