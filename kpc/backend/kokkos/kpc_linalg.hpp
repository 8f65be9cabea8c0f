// kpc_linalg.hpp: np.linalg.solve / inv / cholesky, np.histogram and np.cov on the host,
// with Numba's results, dtypes and errors.
//
// Each routine runs serially in the calling thread, outside parallel regions, and writes
// into arrays the generated code allocated (kpc::empty) with the result's shape. The
// dense routines are O(n^3) without blocking: meant for matrices up to a few hundred rows.
// Numba calls LAPACK (getrf/getrs/getri, potrf); these are the same factorizations
// (LU with partial pivoting, Cholesky of the lower triangle), so results agree to
// rounding and the errors are raised on the same matrices: LAPACK reports a singular
// matrix when a pivot is exactly zero, and a matrix that is not positive definite when a
// diagonal element of the factor is <= 0 (a NaN one is not, as with OpenBLAS).
#pragma once

#include "kpc_python.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kpc {
namespace linalg {

// Raised as numpy.linalg.LinAlgError.
struct error : exception {
  explicit error(const std::string& message) : exception("numpy.linalg", "LinAlgError", message) {}
};

template <class A>
void require_square(const A& a) {
  if (a.extent(0) != a.extent(1)) throw error("Last 2 dimensions of the array must be square.");
}

template <class A>
void require_finite(const A& a) {
  const int64_t columns = A::rank == 1 ? 1 : static_cast<int64_t>(a.extent(1));
  for (int64_t i = 0; i < static_cast<int64_t>(a.extent(0)); ++i) {
    for (int64_t j = 0; j < columns; ++j) {
      double v;
      if constexpr (A::rank == 1) {
        v = a(i);
      } else {
        v = a(i, j);
      }
      if (!std::isfinite(v)) throw error("Array must not contain infs or NaNs.");
    }
  }
}

// A square matrix factored as P A = L U (unit lower L and U in one row-major array).
template <class T>
struct lu_factors {
  int64_t n;
  std::vector<T> lu;
  std::vector<int64_t> row;  // row[k]: the row of A that is row k of P A

  T& at(int64_t i, int64_t j) { return lu[i * n + j]; }

  // Column of P^-1 (L U)^-1 applied to rhs (in place).
  void solve(std::vector<T>& rhs) {
    std::vector<T> y(n);
    for (int64_t i = 0; i < n; ++i) {
      T s = rhs[row[i]];
      for (int64_t k = 0; k < i; ++k) s -= at(i, k) * y[k];
      y[i] = s;
    }
    for (int64_t i = n - 1; i >= 0; --i) {
      T s = y[i];
      for (int64_t k = i + 1; k < n; ++k) s -= at(i, k) * y[k];
      y[i] = s / at(i, i);
    }
    rhs.swap(y);
  }
};

// LU with partial pivoting (the first row of largest magnitude, as LAPACK's getrf);
// LinAlgError on an exactly zero pivot.
template <class T, class A>
lu_factors<T> factor(const A& a) {
  lu_factors<T> f{static_cast<int64_t>(a.extent(0)), {}, {}};
  const int64_t n = f.n;
  f.lu.resize(n * n);
  f.row.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    f.row[i] = i;
    for (int64_t j = 0; j < n; ++j) f.at(i, j) = a(i, j);
  }
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i) {
      if (std::abs(f.at(i, k)) > std::abs(f.at(p, k))) p = i;
    }
    if (f.at(p, k) == T(0)) throw error("Matrix is singular to machine precision.");
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(f.at(k, j), f.at(p, j));
      std::swap(f.row[k], f.row[p]);
    }
    const T pivot = f.at(k, k);
    for (int64_t i = k + 1; i < n; ++i) {
      const T l = f.at(i, k) / pivot;
      f.at(i, k) = l;
      for (int64_t j = k + 1; j < n; ++j) f.at(i, j) -= l * f.at(k, j);
    }
  }
  return f;
}

// np.linalg.solve(a, b) into x (b's shape). Numba checks finiteness, then a.shape[0] ==
// b.shape[0]; a non-square a is an error here (Numba reads it as n x n, n = a.shape[1]).
template <class A, class B, class X>
void solve(const A& a, const B& b, const X& x) {
  using T = typename X::non_const_value_type;
  require_finite(a);
  require_finite(b);
  if (a.extent(0) != b.extent(0)) throw error("Incompatible array sizes, system is not dimensionally valid.");
  require_square(a);
  const int64_t n = static_cast<int64_t>(a.extent(0));
  if (n == 0) return;
  lu_factors<T> f = factor<T>(a);
  const int64_t columns = B::rank == 1 ? 1 : static_cast<int64_t>(b.extent(1));
  std::vector<T> column(n);
  for (int64_t c = 0; c < columns; ++c) {
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (B::rank == 1) {
        column[i] = b(i);
      } else {
        column[i] = b(i, c);
      }
    }
    f.solve(column);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (X::rank == 1) {
        x(i) = column[i];
      } else {
        x(i, c) = column[i];
      }
    }
  }
}

// np.linalg.inv(a) into x.
template <class A, class X>
void inv(const A& a, const X& x) {
  using T = typename X::non_const_value_type;
  require_square(a);
  require_finite(a);
  const int64_t n = static_cast<int64_t>(a.extent(0));
  if (n == 0) return;
  lu_factors<T> f = factor<T>(a);
  std::vector<T> column(n);
  for (int64_t c = 0; c < n; ++c) {
    for (int64_t i = 0; i < n; ++i) column[i] = T(i == c ? 1 : 0);
    f.solve(column);
    for (int64_t i = 0; i < n; ++i) x(i, c) = column[i];
  }
}

// np.linalg.cholesky(a) into l: the lower factor of a's lower triangle (the upper one is
// not read), zeros above the diagonal.
template <class A, class L>
void cholesky(const A& a, const L& l) {
  using T = typename L::non_const_value_type;
  require_square(a);
  const int64_t n = static_cast<int64_t>(a.extent(0));
  for (int64_t j = 0; j < n; ++j) {
    T d = a(j, j);
    for (int64_t k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    if (d <= T(0)) throw error("Matrix is not positive definite.");
    d = std::sqrt(d);
    l(j, j) = d;
    for (int64_t i = j + 1; i < n; ++i) {
      T s = a(i, j);
      for (int64_t k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      l(i, j) = s / d;
    }
    for (int64_t i = 0; i < j; ++i) l(i, j) = T(0);
  }
}

// np.histogram(x, bins, range=(lo, hi)) into counts and edges, as Numba computes it: bin
// floor((v - lo) * (bins / (hi - lo))), the last bin closed on the right, values outside
// [lo, hi] (and NaNs) skipped; edges np.linspace(lo, hi, bins + 1). D is the type Numba
// computes v - lo in (x's dtype and lo's, promoted).
template <class D, class R, class X, class C, class E>
void histogram(const X& x, int64_t bins, R lo, R hi, const C& counts, const E& edges) {
  if (bins <= 0) throw value_error("histogram(): `bins` should be a positive integer");
  if (!(lo <= hi)) throw value_error("histogram(): max must be larger than min in range parameter");
  for (int64_t k = 0; k < bins; ++k) counts(k) = 0;
  if (hi > lo) {
    const double ratio = static_cast<double>(bins) / static_cast<double>(hi - lo);
    for (int64_t i = 0; i < static_cast<int64_t>(x.extent(0)); ++i) {
      const auto v = x(i);
      const double b = std::floor(static_cast<double>(static_cast<D>(v) - static_cast<D>(lo)) * ratio);
      if (b >= 0 && b < static_cast<double>(bins)) {
        counts(static_cast<int64_t>(b)) += 1;
      } else if (v == hi) {
        counts(bins - 1) += 1;
      }
    }
  }
  const double start = static_cast<double>(lo), stop = static_cast<double>(hi);
  const double step = (stop - start) / static_cast<double>(bins);
  for (int64_t k = 0; k <= bins; ++k) edges(k) = start + static_cast<double>(k) * step;
  edges(bins) = stop;
}

// np.histogram(x, bins): the range is the least and greatest value (NaNs skipped; an
// empty x gives (inf, -inf), which Numba rejects as a range).
template <class X, class C, class E>
void histogram(const X& x, int64_t bins, const C& counts, const E& edges) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int64_t i = 0; i < static_cast<int64_t>(x.extent(0)); ++i) {
    const double v = static_cast<double>(x(i));
    if (lo > v) lo = v;
    if (hi < v) hi = v;
  }
  histogram<double>(x, bins, lo, hi, counts, edges);
}

// np.histogram(x, bins) with an array of bin edges into counts, as Numba computes it:
// the edges must not decrease (a NaN edge is an error), v counts in the bin k with
// bins[k] <= v < bins[k + 1], found by bisection, the last bin closed on the right;
// values outside [bins[0], bins[-1]] (and NaNs) are skipped. Empty edges are NumPy's
// negative dimension (Numba allocates len(bins) - 1 counts). D is the type Numba compares
// in (x's dtype and the edges', promoted).
template <class D, class X, class B, class C>
void histogram_edges(const X& x, const B& bins, const C& counts) {
  const int64_t nbins = static_cast<int64_t>(bins.extent(0)) - 1;
  for (int64_t k = 0; k < nbins; ++k) {
    if (!(bins(k) <= bins(k + 1))) throw value_error("histogram(): bins must increase monotonically");
  }
  if (nbins < 0) throw value_error("negative dimensions not allowed");
  for (int64_t k = 0; k < nbins; ++k) counts(k) = 0;
  if (nbins == 0) return;
  const D first = static_cast<D>(bins(0)), last = static_cast<D>(bins(nbins));
  for (int64_t i = 0; i < static_cast<int64_t>(x.extent(0)); ++i) {
    const D v = static_cast<D>(x(i));
    if (!(first <= v && v <= last)) continue;
    int64_t lo = 0, hi = nbins - 1;
    while (lo < hi) {
      const int64_t mid = (lo + hi + 1) >> 1;
      if (v < static_cast<D>(bins(mid))) {
        hi = mid - 1;
      } else {
        lo = mid;
      }
    }
    counts(lo) += 1;
  }
}

// The covariance of the rows of x (vars x obs, row-major, float64) into out, as Numba's
// np.cov: ddof defaults to 0 with bias, else 1; each row is centred on its mean, then
// out = X X^T * (1 / max(obs - ddof, 0)); no variables or no observations give NaNs.
template <class O>
void cov_of_rows(std::vector<double>& x, int64_t vars, int64_t obs, bool bias, bool has_ddof, int64_t ddof,
                 const O& out) {
  if (vars == 0 || obs == 0) {
    for (int64_t i = 0; i < vars; ++i) {
      for (int64_t j = 0; j < vars; ++j) out(i, j) = std::numeric_limits<double>::quiet_NaN();
    }
    return;
  }
  if (!has_ddof) ddof = bias ? 0 : 1;
  const double fact = std::max(static_cast<double>(obs - ddof), 0.0);
  for (int64_t i = 0; i < vars; ++i) {
    double sum = 0.0;
    for (int64_t k = 0; k < obs; ++k) sum += x[i * obs + k];
    const double mean = sum / static_cast<double>(obs);
    for (int64_t k = 0; k < obs; ++k) x[i * obs + k] -= mean;
  }
  const double scale = 1.0 / fact;
  for (int64_t i = 0; i < vars; ++i) {
    for (int64_t j = i; j < vars; ++j) {
      double s = 0.0;
      for (int64_t k = 0; k < obs; ++k) s += x[i * obs + k] * x[j * obs + k];
      out(i, j) = s * scale;
      out(j, i) = s * scale;
    }
  }
}

// Numba rejects a 2-D m of one row (its type would have to depend on the shape).
template <class M>
void require_not_single_row(const M& m) {
  if constexpr (M::rank == 2) {
    if (m.extent(0) == 1) {
      throw std::runtime_error(
          "2D array containing a single row is unsupported due to ambiguity in type inference. To use "
          "numpy.cov in this case simply pass the row as a 1D array, i.e. m[0].");
    }
  }
}

// The rows a (1-D or 2-D) array contributes to np.cov: a 1-D array is one row; with rowvar
// false a 2-D array is transposed unless it has one row (NumPy's atleast_2d, then .T).
template <class A>
struct cov_rows {
  const A& a;
  bool transposed;
  cov_rows(const A& array, bool rowvar) : a(array), transposed(A::rank == 2 && !rowvar && array.extent(0) != 1) {}
  int64_t rows() const {
    if constexpr (A::rank == 1) {
      return 1;
    } else {
      return static_cast<int64_t>(transposed ? a.extent(1) : a.extent(0));
    }
  }
  int64_t cols() const {
    if constexpr (A::rank == 1) {
      return static_cast<int64_t>(a.extent(0));
    } else {
      return static_cast<int64_t>(transposed ? a.extent(0) : a.extent(1));
    }
  }
  double operator()(int64_t i, int64_t k) const {
    if constexpr (A::rank == 1) {
      return static_cast<double>(a(k));
    } else {
      return static_cast<double>(transposed ? a(k, i) : a(i, k));
    }
  }
};

// np.cov(m, rowvar=..., bias=..., ddof=...) of a 2-D m into out, in float64 as Numba: rows
// are variables unless rowvar is false.
template <class M, class O>
void cov(const M& m, bool rowvar, bool bias, bool has_ddof, int64_t ddof, const O& out) {
  require_not_single_row(m);
  const cov_rows<M> rows(m, rowvar);
  const int64_t vars = rows.rows(), obs = rows.cols();
  std::vector<double> x(vars * obs);
  for (int64_t i = 0; i < vars; ++i) {
    for (int64_t k = 0; k < obs; ++k) x[i * obs + k] = rows(i, k);
  }
  cov_of_rows(x, vars, obs, bias, has_ddof, ddof, out);
}

// np.cov(m, y, ...): the rows of y (1-D or 2-D) stacked below those of m (1-D or 2-D).
template <class M, class Y, class O>
void cov_xy(const M& m, const Y& y, bool rowvar, bool bias, bool has_ddof, int64_t ddof, const O& out) {
  require_not_single_row(m);
  const cov_rows<M> top(m, rowvar);
  const cov_rows<Y> bottom(y, rowvar);
  if (top.cols() != bottom.cols()) throw value_error("m and y have incompatible dimensions");
  const int64_t upper = top.rows(), vars = upper + bottom.rows(), obs = top.cols();
  std::vector<double> x(vars * obs);
  for (int64_t k = 0; k < obs; ++k) {
    for (int64_t i = 0; i < upper; ++i) x[i * obs + k] = top(i, k);
    for (int64_t i = upper; i < vars; ++i) x[i * obs + k] = bottom(i - upper, k);
  }
  cov_of_rows(x, vars, obs, bias, has_ddof, ddof, out);
}

// np.bincount(x, weights=None, minlength=0): the result's length, max(x) + 1 and minlength,
// with Numba's errors in Numba's order (weights' length, minlength, a negative value); then
// the counts (int64) or the sums of the weights (float64).
template <class X>
int64_t bincount_length(const X& x, int64_t minlength) {
  if (minlength < 0) throw value_error("'minlength' must not be negative");
  int64_t length = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(x.extent(0)); ++i) {
    const int64_t v = static_cast<int64_t>(x(i));
    if (x(i) < 0) throw value_error("bincount(): first argument must be non-negative");
    if (v + 1 > length) length = v + 1;
  }
  return std::max(length, minlength);
}

template <class X, class W>
int64_t bincount_length(const X& x, const W& weights, int64_t minlength) {
  if (weights.extent(0) != x.extent(0)) throw value_error("bincount(): weights and list don't have the same length");
  return bincount_length(x, minlength);
}

template <class X, class O>
void bincount(const X& x, const O& out) {
  for (int64_t k = 0; k < static_cast<int64_t>(out.extent(0)); ++k) out(k) = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(x.extent(0)); ++i) out(static_cast<int64_t>(x(i))) += 1;
}

template <class X, class W, class O>
void bincount(const X& x, const W& weights, const O& out) {
  for (int64_t k = 0; k < static_cast<int64_t>(out.extent(0)); ++k) out(k) = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(x.extent(0)); ++i) {
    out(static_cast<int64_t>(x(i))) += static_cast<double>(weights(i));
  }
}

}  // namespace linalg
}  // namespace kpc
