// kpc_order.hpp: np.sort, np.argsort, np.median, np.percentile and np.quantile, with Numba's
// orders, results and errors, in any execution space (inside parallel loops too).
//
// lower-numpy copies the operand into a fresh C-contiguous array (a stack or per-thread
// buffer inside a parallel loop) and orders that copy in place; the order statistics then
// read the sorted copy. NaNs sort after every number, as Numba's comparison for floats.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace kpc {
namespace order {

// Numba's order for sorting: a < b, and for floats a NaN after every number.
template <class T>
KOKKOS_INLINE_FUNCTION bool before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a < b || (b != b && a == a);
  } else {
    return a < b;
  }
}

struct by_value {
  template <class T>
  KOKKOS_INLINE_FUNCTION bool operator()(T a, T b) const {
    return before(a, b);
  }
};

// Indices compared by the keys they point at.
template <class T>
struct by_key {
  const T* keys;
  KOKKOS_INLINE_FUNCTION bool operator()(int64_t a, int64_t b) const { return before(keys[a], keys[b]); }
};

template <class Item>
KOKKOS_INLINE_FUNCTION void swap(Item& a, Item& b) {
  const Item t = a;
  a = b;
  b = t;
}

// Insertion sort of r[low..high] (inclusive); stable.
template <class Item, class Less>
KOKKOS_INLINE_FUNCTION void insertion_sort(Item* r, int64_t low, int64_t high, const Less& less) {
  for (int64_t i = low + 1; i <= high; ++i) {
    const Item item = r[i];
    int64_t j = i;
    while (j > low && less(item, r[j - 1])) {
      r[j] = r[j - 1];
      --j;
    }
    r[j] = item;
  }
}

// Partitions shorter than this are finished by insertion sort. Numba's quicksort (the default
// kind of np.argsort) uses the same cut-off, median-of-three pivot and partition scheme, so
// equal keys end in the same order as there (NumPy leaves that order unspecified).
constexpr int64_t small_partition = 15;

// Partitions r[low..high] around the median of its first, middle and last items; returns
// the pivot's final position.
template <class Item, class Less>
KOKKOS_INLINE_FUNCTION int64_t partition(Item* r, int64_t low, int64_t high, const Less& less) {
  const int64_t mid = (low + high) >> 1;
  if (less(r[mid], r[low])) swap(r[low], r[mid]);
  if (less(r[high], r[mid])) swap(r[high], r[mid]);
  if (less(r[mid], r[low])) swap(r[low], r[mid]);
  const Item pivot = r[mid];
  swap(r[high], r[mid]);
  int64_t i = low, j = high - 1;
  while (true) {
    while (i < high && less(r[i], pivot)) ++i;
    while (j >= low && less(pivot, r[j])) --j;
    if (i >= j) break;
    swap(r[i], r[j]);
    ++i;
    --j;
  }
  swap(r[i], r[high]);
  return i;
}

// Quicksort of r[0..n): the larger side of each partition waits on a stack while the
// smaller one is split further, so the stack holds at most log2(n) ranges.
template <class Item, class Less>
KOKKOS_INLINE_FUNCTION void quicksort(Item* r, int64_t n, const Less& less) {
  if (n < 2) return;
  int64_t lows[64], highs[64];
  int depth = 1;
  lows[0] = 0;
  highs[0] = n - 1;
  while (depth > 0) {
    --depth;
    int64_t low = lows[depth], high = highs[depth];
    while (high - low >= small_partition) {
      const int64_t i = partition(r, low, high, less);
      if (high - i > i - low) {
        if (high > i) {
          lows[depth] = i + 1;
          highs[depth] = high;
          ++depth;
        }
        high = i - 1;
      } else {
        if (i > low) {
          lows[depth] = low;
          highs[depth] = i - 1;
          ++depth;
        }
        low = i + 1;
      }
    }
    insertion_sort(r, low, high, less);
  }
}

// np.sort / ndarray.sort: each row (the last axis) of the C-contiguous array a, in place.
template <class V>
KOKKOS_INLINE_FUNCTION void sort_rows(const V& a) {
  const int64_t size = static_cast<int64_t>(a.size());
  const int64_t row = static_cast<int64_t>(a.extent(V::rank - 1));
  if (row < 2) return;
  for (int64_t start = 0; start < size; start += row) quicksort(a.data() + start, row, by_value{});
}

// np.argsort(keys, kind=...) into order (1-D, C-contiguous): Numba's quicksort order, or the
// stable order for 'mergesort' / 'stable'.
template <class K, class O>
KOKKOS_INLINE_FUNCTION void argsort(const K& keys, const O& order, bool stable) {
  using T = typename K::non_const_value_type;
  const int64_t n = static_cast<int64_t>(keys.extent(0));
  int64_t* r = order.data();
  for (int64_t k = 0; k < n; ++k) r[k] = k;
  const by_key<T> less{keys.data()};
  if (!stable) {
    quicksort(r, n, less);
    return;
  }
#if defined(KPC_CUDA)
  insertion_sort(r, int64_t(0), n - 1, less);  // device code: no std::stable_sort, no scratch
#else
  std::stable_sort(r, r + n, less);
#endif
}

// np.median of the sorted copy s of a flattened array, as Numba: NaN when empty or when s
// holds a NaN (sorted last); the middle element, or the mean of the middle pair (summed in
// the array's type, int64 for smaller integers, then halved in float64).
template <class S>
KOKKOS_INLINE_FUNCTION double median_sorted(const S& s) {
  using T = typename S::non_const_value_type;
  const int64_t n = static_cast<int64_t>(s.extent(0));
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  if constexpr (std::is_floating_point_v<T>) {
    if (s(n - 1) != s(n - 1)) return std::numeric_limits<double>::quiet_NaN();
  }
  const int64_t half = n >> 1;
  if (n & 1) return static_cast<double>(s(half));
  using Sum = std::conditional_t<std::is_floating_point_v<T>, T,
                                 std::conditional_t<std::is_same_v<T, uint64_t>, uint64_t, int64_t>>;
  return static_cast<double>(static_cast<Sum>(s(half - 1)) + static_cast<Sum>(s(half))) / 2.0;
}

// np.percentile(a, q) (scale 1) or np.quantile(a, q) (scale 100) of the sorted float64 copy s
// of a flattened array, as Numba computes it: q outside its range (or NaN) is a ValueError; a
// NaN in a gives NaN; q = 100 and q = 0 take the greatest and least values with NumPy's
// infinity rules; otherwise linear interpolation between the closest ranks.
template <class S>
KOKKOS_INLINE_FUNCTION double quantile_sorted(const S& s, double q, double scale) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  if (!(q >= 0.0 && q <= 100.0 / scale)) {
    raise_error(scale == 1.0 ? percentile_range_error : quantile_range_error);
    return nan;
  }
  const double p = q * scale;
  const int64_t n = static_cast<int64_t>(s.extent(0));
  if (n == 0) {
    raise_error(p == 100.0 ? empty_maximum_error : p == 0.0 ? empty_minimum_error : empty_quantile_error);
    return nan;
  }
  const double least = s(0), greatest = s(n - 1);
  if (greatest != greatest) return nan;
  if (n == 1) return math::isfinite(least) ? least : nan;
  const bool finite = math::isfinite(least) && math::isfinite(greatest);
  if (p == 100.0) return math::isfinite(greatest) ? greatest : nan;
  if (p == 0.0) {
    if (finite) return least;
    int64_t negative = 0, positive = 0;
    while (negative < n && s(negative) == -inf) ++negative;
    while (positive < n && s(n - 1 - positive) == inf) ++positive;
    const int64_t rest = n - negative - positive;
    double value = least;
    if (rest == 0 || (positive == 1 && n == 2) || negative > 1 ||
        (rest == 1 && positive > 1 && negative != 1)) {
      value = nan;
    }
    return value;
  }
  const double rank = 1.0 + static_cast<double>(n - 1) * (p / 100.0);
  const double f = math::floor(rank);
  const double m = rank - f;
  const int64_t k = static_cast<int64_t>(f - 1.0);
  return s(k) * (1.0 - m) + s(k + 1) * m;
}

}  // namespace order
}  // namespace kpc
