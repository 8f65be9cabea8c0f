// kpc_blas.hpp: matrix products (`@`, np.dot, a.dot) computed at the host level of a kernel.
//
// kpc::blas::matmul<Exec, TA, TB>(a, b, out[, alpha]) writes alpha * (a @ b) into `out` (a fresh C-order array of the
// result's shape); TA/TB say that the operand is the transpose of the view given (`A.T @ y`
// passes A, so no copy of A is made). Operands are 1-D or 2-D views of any layout.
//
// On a host memory space, float32/float64/complex64/complex128 products call the BLAS that
// Numba itself calls: SciPy's scipy.linalg.cython_blas, whose __pyx_capi__ exports the
// Fortran routines (sgemm/dgemm/cgemm/zgemm, *gemv) as capsules. A module that computes
// products loads them at import (load(), with the GIL); without SciPy, with KPC_BLAS=0, with
// extents beyond a C int or mixed dtypes, the product is a parallel loop nest over the
// result in the module's execution space (the only form on CUDA). Operands whose strides
// BLAS cannot express are copied into a contiguous buffer first, as Numba does.
//
// Errors are Numba's: incompatible inner extents raise ValueError ("incompatible array
// sizes for np.dot(a, b) (matrix * matrix)").
#pragma once

#include "kpc_python.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace kpc {
namespace blas {

// The Fortran BLAS entry points, as cython_blas declares them (every argument a pointer).
template <class T>
using gemm_fn = void(char*, char*, int*, int*, int*, T*, T*, int*, T*, int*, T*, T*, int*);
template <class T>
using gemv_fn = void(char*, int*, int*, T*, T*, int*, T*, int*, T*, T*, int*);

struct routines {
  gemm_fn<float>* sgemm = nullptr;
  gemm_fn<double>* dgemm = nullptr;
  gemm_fn<std::complex<float>>* cgemm = nullptr;
  gemm_fn<std::complex<double>>* zgemm = nullptr;
  gemv_fn<float>* sgemv = nullptr;
  gemv_fn<double>* dgemv = nullptr;
  gemv_fn<std::complex<float>>* cgemv = nullptr;
  gemv_fn<std::complex<double>>* zgemv = nullptr;
};

inline routines& loaded() {
  static routines table;
  return table;
}

// Take the BLAS routines from SciPy (once per module, at import, with the GIL held). A
// missing SciPy or routine leaves the loops in place; nothing here raises.
inline void load() {
  const char* setting = std::getenv("KPC_BLAS");
  if (setting != nullptr && std::strcmp(setting, "0") == 0) return;
  routines& table = loaded();
  if (table.dgemm != nullptr) return;
  PyObject* module = PyImport_ImportModule("scipy.linalg.cython_blas");
  PyObject* capi = module == nullptr ? nullptr : PyObject_GetAttrString(module, "__pyx_capi__");
  Py_XDECREF(module);
  if (capi == nullptr) {
    PyErr_Clear();  // No SciPy: products run as loops.
    return;
  }
  auto get = [&](const char* name) -> void* {
    PyObject* capsule = PyDict_Check(capi) ? PyDict_GetItemString(capi, name) : nullptr;  // borrowed
    if (capsule == nullptr || !PyCapsule_CheckExact(capsule)) return nullptr;
    void* pointer = PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule));
    if (pointer == nullptr) PyErr_Clear();
    return pointer;
  };
  routines found;
  found.sgemm = reinterpret_cast<gemm_fn<float>*>(get("sgemm"));
  found.dgemm = reinterpret_cast<gemm_fn<double>*>(get("dgemm"));
  found.cgemm = reinterpret_cast<gemm_fn<std::complex<float>>*>(get("cgemm"));
  found.zgemm = reinterpret_cast<gemm_fn<std::complex<double>>*>(get("zgemm"));
  found.sgemv = reinterpret_cast<gemv_fn<float>*>(get("sgemv"));
  found.dgemv = reinterpret_cast<gemv_fn<double>*>(get("dgemv"));
  found.cgemv = reinterpret_cast<gemv_fn<std::complex<float>>*>(get("cgemv"));
  found.zgemv = reinterpret_cast<gemv_fn<std::complex<double>>*>(get("zgemv"));
  Py_DECREF(capi);
  table = found;
}

// The BLAS scalar of a Kokkos value type (Kokkos::complex has std::complex's layout).
template <class T>
struct blas_scalar {
  using type = void;
};
template <>
struct blas_scalar<float> {
  using type = float;
};
template <>
struct blas_scalar<double> {
  using type = double;
};
template <>
struct blas_scalar<Kokkos::complex<float>> {
  using type = std::complex<float>;
};
template <>
struct blas_scalar<Kokkos::complex<double>> {
  using type = std::complex<double>;
};

// The one of four values that belongs to the BLAS scalar S (s, d, c, z).
template <class S, class F, class D, class C, class Z>
auto by_scalar(F f, D d, C c, Z z) {
  if constexpr (std::is_same_v<S, float>) {
    return f;
  } else if constexpr (std::is_same_v<S, double>) {
    return d;
  } else if constexpr (std::is_same_v<S, std::complex<float>>) {
    return c;
  } else {
    return z;
  }
}

template <class S>
gemm_fn<S>* gemm() {
  const routines& r = loaded();
  return by_scalar<S>(r.sgemm, r.dgemm, r.cgemm, r.zgemm);
}

template <class S>
gemv_fn<S>* gemv() {
  const routines& r = loaded();
  return by_scalar<S>(r.sgemv, r.dgemv, r.cgemv, r.zgemv);
}

inline bool fits_int(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max(); }

// A logical matrix (the view, or its transpose) as BLAS sees column-major storage: either
// the memory is the column-major M (trans 'N'), or the column-major M^T (trans 'T'), with
// leading dimension ld; otherwise a row-major copy is made (`copy`).
template <class S>
struct operand {
  const S* data = nullptr;
  int64_t rows = 0, cols = 0;
  char trans = 'N';
  int64_t ld = 1;
  std::vector<S> copy;
};

// rs/cs: element strides between rows/columns of the logical matrix.
template <class S, class Read>
void describe(operand<S>& m, const S* data, int64_t rows, int64_t cols, int64_t rs, int64_t cs, Read read) {
  m.rows = rows;
  m.cols = cols;
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<int64_t>(1, cols))) {
    m.data = data;
    m.trans = 'T';  // the memory is M^T, column-major
    m.ld = rows <= 1 ? std::max<int64_t>(1, cols) : rs;
  } else if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<int64_t>(1, rows))) {
    m.data = data;
    m.trans = 'N';
    m.ld = cols <= 1 ? std::max<int64_t>(1, rows) : cs;
  } else {
    m.copy.resize(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) m.copy[static_cast<size_t>(i * cols + j)] = read(i, j);
    }
    m.data = m.copy.data();
    m.trans = 'T';
    m.ld = std::max<int64_t>(1, cols);
  }
}

// The logical 2-D operand of a view (transposed when T).
template <bool T, class V>
int64_t rows_of(const V& v) {
  return static_cast<int64_t>(T ? v.extent(1) : v.extent(0));
}
template <bool T, class V>
int64_t cols_of(const V& v) {
  return static_cast<int64_t>(T ? v.extent(0) : v.extent(1));
}

template <bool T, class S, class V>
void describe_view(operand<S>& m, const V& v) {
  const int64_t s0 = static_cast<int64_t>(v.stride(0)), s1 = static_cast<int64_t>(v.stride(1));
  const S* data = reinterpret_cast<const S*>(v.data());
  auto read = [&](int64_t i, int64_t j) {
    const typename V::non_const_value_type x = T ? v(j, i) : v(i, j);
    S s;
    std::memcpy(&s, &x, sizeof(S));  // Kokkos::complex has std::complex's layout
    return s;
  };
  describe(m, data, rows_of<T>(v), cols_of<T>(v), T ? s1 : s0, T ? s0 : s1, read);
}

[[noreturn]] inline void incompatible(const char* kinds) {
  throw std::invalid_argument(std::string("incompatible array sizes for np.dot(a, b) (") + kinds + ")");
}

// out = a @ b through BLAS; false when BLAS is not available for these operands.
template <bool TA, bool TB, class A, class B, class C, class V>
bool with_blas(const A& a, const B& b, const C& out, V alpha) {
  using S = typename blas_scalar<V>::type;
  if constexpr (std::is_void_v<S> || !std::is_same_v<typename A::non_const_value_type, V> ||
                !std::is_same_v<typename B::non_const_value_type, V> ||
                !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename C::memory_space>::accessible ||
                !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename A::memory_space>::accessible ||
                !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename B::memory_space>::accessible) {
    return false;
  } else {
    S one, zero(0);
    std::memcpy(&one, &alpha, sizeof(S));
    S* c = reinterpret_cast<S*>(out.data());
    if constexpr (A::rank == 2 && B::rank == 2) {
      gemm_fn<S>* f = gemm<S>();
      if (f == nullptr) return false;
      operand<S> x, y;
      describe_view<TA>(x, a);
      describe_view<TB>(y, b);
      // out (m x n, row-major) is out^T column-major: out^T = y^T x^T.
      int m = static_cast<int>(x.rows), n = static_cast<int>(y.cols), k = static_cast<int>(x.cols);
      int ldx = static_cast<int>(x.ld), ldy = static_cast<int>(y.ld), ldc = std::max(1, n);
      // The memory of an operand described 'T' is its transpose column-major: as an operand
      // of the transposed product it is used as stored ('N'), and the other way round.
      char ty = y.trans == 'T' ? 'N' : 'T', tx = x.trans == 'T' ? 'N' : 'T';
      if (!(fits_int(x.rows) && fits_int(y.cols) && fits_int(x.cols) && fits_int(x.ld) && fits_int(y.ld)))
        return false;
      f(&ty, &tx, &n, &m, &k, &one, const_cast<S*>(y.data), &ldy, const_cast<S*>(x.data), &ldx, &zero, c, &ldc);
      return true;
    } else {
      // A matrix times a vector: out = M v, M the logical matrix (b^T for v @ b).
      gemv_fn<S>* f = gemv<S>();
      if (f == nullptr) return false;
      operand<S> mat;
      const S* v;
      int64_t inc;
      if constexpr (A::rank == 2) {
        describe_view<TA>(mat, a);
        v = reinterpret_cast<const S*>(b.data());
        inc = static_cast<int64_t>(b.stride(0));
      } else {
        describe_view<!TB>(mat, b);
        v = reinterpret_cast<const S*>(a.data());
        inc = static_cast<int64_t>(a.stride(0));
      }
      if (inc <= 0) inc = 1;  // an extent of at most 1
      if (!(fits_int(mat.rows) && fits_int(mat.cols) && fits_int(mat.ld) && fits_int(inc))) return false;
      int incx = static_cast<int>(inc), one_step = 1, lda = static_cast<int>(mat.ld);
      char t = mat.trans;
      // 'N': the memory is M (rows x cols); 'T': it is M^T (cols x rows), transposed back.
      int r = static_cast<int>(t == 'N' ? mat.rows : mat.cols), k = static_cast<int>(t == 'N' ? mat.cols : mat.rows);
      f(&t, &r, &k, &one, const_cast<S*>(mat.data), &lda, const_cast<S*>(v), &incx, &zero, c, &one_step);
      return true;
    }
  }
}

// out = a @ b as a parallel loop nest over the result in Exec (any dtypes, any space).
template <class Exec, bool TA, bool TB, class A, class B, class C, class V>
void with_loops(const A& a, const B& b, const C& out, int64_t k, V alpha) {
  if constexpr (A::rank == 2 && B::rank == 2) {
    const int64_t m = static_cast<int64_t>(out.extent(0)), n = static_cast<int64_t>(out.extent(1));
    Kokkos::parallel_for(
        "kpc::matmul", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2, Kokkos::Iterate::Right, Kokkos::Iterate::Right>>({0, 0}, {m, n}),
        KOKKOS_LAMBDA(const int64_t i, const int64_t j) {
          V s = V(0);
          for (int64_t p = 0; p < k; ++p) {
            s += static_cast<V>(TA ? a(p, i) : a(i, p)) * static_cast<V>(TB ? b(j, p) : b(p, j));
          }
          out(i, j) = alpha * s;
        });
  } else if constexpr (A::rank == 2) {
    // (no `if constexpr` inside a device lambda: nvcc refuses its captures there)
    Kokkos::parallel_for(
        "kpc::matvec", Kokkos::RangePolicy<Exec>(0, static_cast<int64_t>(out.extent(0))),
        KOKKOS_LAMBDA(const int64_t i) {
          V s = V(0);
          for (int64_t p = 0; p < k; ++p) s += static_cast<V>(TA ? a(p, i) : a(i, p)) * static_cast<V>(b(p));
          out(i) = alpha * s;
        });
  } else {
    Kokkos::parallel_for(
        "kpc::vecmat", Kokkos::RangePolicy<Exec>(0, static_cast<int64_t>(out.extent(0))),
        KOKKOS_LAMBDA(const int64_t i) {
          V s = V(0);
          for (int64_t p = 0; p < k; ++p) s += static_cast<V>(a(p)) * static_cast<V>(TB ? b(i, p) : b(p, i));
          out(i) = alpha * s;
        });
  }
  Kokkos::fence();
}

// out = alpha * (a @ b) (a or b 2-D; out fresh, of the result's shape).
template <class Exec, bool TA, bool TB, class A, class B, class C>
void matmul(const A& a, const B& b, const C& out,
            typename C::non_const_value_type alpha = typename C::non_const_value_type(1)) {
  static_assert(A::rank == 2 || B::rank == 2, "a product of two vectors is a reduction");
  const int64_t inner_a = static_cast<int64_t>(A::rank == 1 ? a.extent(0) : (TA ? a.extent(0) : a.extent(1)));
  const int64_t inner_b = static_cast<int64_t>(B::rank == 1 ? b.extent(0) : (TB ? b.extent(1) : b.extent(0)));
  if (inner_a != inner_b) {
    incompatible(A::rank == 1 ? "vector * matrix" : B::rank == 1 ? "matrix * vector" : "matrix * matrix");
  }
  if (out.size() == 0) return;
  if (inner_a == 0) {
    // An empty inner extent gives zeros. On the host a plain fill: Kokkos::deep_copy would
    // open an OpenMP region, whose idle threads then spin beside BLAS's (a Cholesky's first
    // column calls this once per call: 11 ms instead of 30 us at n = 50 on 2 loaded cores).
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename C::memory_space>::accessible) {
      auto* data = out.data();
      for (size_t i = 0; i < out.span(); ++i) data[i] = typename C::non_const_value_type(0);
    } else {
      Kokkos::deep_copy(out, typename C::non_const_value_type(0));
    }
    return;
  }
  if (with_blas<TA, TB>(a, b, out, alpha)) return;
  with_loops<Exec, TA, TB>(a, b, out, inner_a, alpha);
}

}  // namespace blas
}  // namespace kpc
