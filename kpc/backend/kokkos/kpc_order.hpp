// kpc_order.hpp: np.sort, np.argsort, np.median, np.percentile and np.quantile, and the searches
// of sorted data (np.searchsorted, np.digitize, np.interp), with Numba's orders, results and
// errors, in any execution space (inside parallel loops too).
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

// ---------------------------------------------------------------- selections (Numba's _select)

// Moves the k-th smallest item of r[low..high] to r[k], smaller or equal items before it and
// greater or equal ones after it, by the partitions of quicksort that hold k (Numba's _select,
// NaNs last). Returns the last range that held k: r[k + 1..range_end] are unordered, the items
// after range_end are placed and not smaller.
template <class Item, class Less>
KOKKOS_INLINE_FUNCTION int64_t select(Item* r, int64_t k, int64_t low, int64_t high, const Less& less) {
  while (high - low >= small_partition) {
    const int64_t i = partition(r, low, high, less);
    if (i == k) return high;
    if (i < k) {
      low = i + 1;
    } else {
      high = i - 1;
    }
  }
  insertion_sort(r, low, high, less);
  return high;
}

// The position of the least (or, with greatest, the greatest) item of r[low..high].
template <class Item>
KOKKOS_INLINE_FUNCTION int64_t extreme(const Item* r, int64_t low, int64_t high, bool greatest) {
  int64_t at = low;
  for (int64_t i = low + 1; i <= high; ++i) {
    if (greatest ? before(r[at], r[i]) : before(r[i], r[at])) at = i;
  }
  return at;
}

// Orders r[0..n) just enough for what median_sorted and quantile_sorted read: r[k] and r[k + 1]
// (k < n - 1) hold the items a sort would put there, r[0] the least and r[n - 1] the greatest
// (NaN when r holds one). Expected linear time where a sort takes n log n.
template <class Item>
KOKKOS_INLINE_FUNCTION void select_pair(Item* r, int64_t n, int64_t k) {
  if (n < 2) return;
  const int64_t end = select(r, k, int64_t(0), n - 1, by_value{});
  if (k + 1 <= end) swap(r[k + 1], r[extreme(r, k + 1, end, false)]);
  if (k > 0) swap(r[0], r[extreme(r, int64_t(0), k - 1, false)]);
  if (k + 1 < n - 1) swap(r[n - 1], r[extreme(r, k + 1, n - 1, true)]);
}

// np.median's selection in the flat copy s: the middle item or pair (see median_sorted).
template <class S>
KOKKOS_INLINE_FUNCTION void select_median(const S& s) {
  const int64_t n = static_cast<int64_t>(s.extent(0));
  select_pair(s.data(), n, n > 1 ? (n - 1) >> 1 : int64_t(0));
}

// The rank quantile_sorted interpolates from for q (none: -1, q invalid or an end of s).
KOKKOS_INLINE_FUNCTION int64_t quantile_rank(int64_t n, double q, double scale) {
  const double p = q * scale;
  if (!(p > 0.0 && p < 100.0) || n < 2) return -1;
  return static_cast<int64_t>(math::floor(1.0 + static_cast<double>(n - 1) * (p / 100.0)) - 1.0);
}

// np.percentile / np.quantile's selection in the flat float64 copy s for one q.
template <class S>
KOKKOS_INLINE_FUNCTION void select_quantile(const S& s, double q, double scale) {
  const int64_t n = static_cast<int64_t>(s.extent(0));
  const int64_t k = quantile_rank(n, q, scale);
  select_pair(s.data(), n, k < 0 ? int64_t(0) : k);
}

// np.median of the sorted (or select_median'd) copy s of a flattened array, as Numba: NaN when empty or when s
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
    for (int64_t i = 0; i < n; ++i) {
      negative += s(i) == -inf;
      positive += s(i) == inf;
    }
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

// np.percentile / np.quantile of each q of the 1-D q into out, selecting in the flat float64
// copy s before each read, as Numba does.
template <class Q, class O, class S>
KOKKOS_INLINE_FUNCTION void quantile_values(const Q& q, const O& out, const S& s, double scale) {
  for (int64_t i = 0; i < static_cast<int64_t>(q.extent(0)); ++i) {
    select_quantile(s, static_cast<double>(q(i)), scale);
    out(i) = quantile_sorted(s, static_cast<double>(q(i)), scale);
  }
}

// ---------------------------------------------------------------- searches of sorted data

// Numba's comparisons for np.searchsorted: a < b, with a NaN key after every number; a <= b,
// true for a NaN key. Mixed signed and unsigned 64-bit integers compare as float64 (Numba's
// promotion), other pairs as C++ promotes them (as Numba does).
template <class A, class B>
KOKKOS_INLINE_FUNCTION auto common(A a, B b) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B> && std::is_signed_v<A> != std::is_signed_v<B> &&
                (sizeof(A) == 8 || sizeof(B) == 8)) {
    return Kokkos::pair<double, double>(static_cast<double>(a), static_cast<double>(b));
  } else {
    using C = std::common_type_t<A, B>;
    return Kokkos::pair<C, C>(static_cast<C>(a), static_cast<C>(b));
  }
}

template <class A, class B>
KOKKOS_INLINE_FUNCTION bool search_less(A a, B b) {
  const auto [x, y] = common(a, b);
  if constexpr (std::is_floating_point_v<B>) {
    return x < y || (b != b && a == a);
  } else {
    return x < y;
  }
}

template <class A, class B>
KOKKOS_INLINE_FUNCTION bool search_less_equal(A a, B b) {
  if constexpr (std::is_floating_point_v<B>) {
    if (b != b) return true;
  }
  const auto [x, y] = common(a, b);
  return x <= y;
}

// Reads a 1-D view forwards, or backwards (np.digitize's decreasing bins: bins[::-1]).
template <class V>
struct sequence {
  V v;
  bool reversed;
  KOKKOS_INLINE_FUNCTION int64_t size() const { return static_cast<int64_t>(v.extent(0)); }
  KOKKOS_INLINE_FUNCTION auto operator[](int64_t i) const { return reversed ? v(size() - 1 - i) : v(i); }
};

// Numba's bisection of a[low, high) for key: the first index whose element is not before it
// (side 'left': a[i] < key), or not at or before it (side 'right': a[i] <= key).
template <class S, class K>
KOKKOS_INLINE_FUNCTION int64_t bisect(const S& a, K key, int64_t low, int64_t high, bool right) {
  while (low < high) {
    const int64_t mid = low + ((high - low) >> 1);
    const bool before = right ? search_less_equal(a[mid], key) : search_less(a[mid], key);
    if (before) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

// np.searchsorted(a, v, side) of one value.
template <class A, class K>
KOKKOS_INLINE_FUNCTION int64_t searchsorted(const A& a, K key, bool right) {
  return bisect(sequence<A>{a, false}, key, int64_t(0), static_cast<int64_t>(a.extent(0)), right);
}

// np.searchsorted(a, v, side) of the values of the 1-D view v into out, in order, as Numba:
// each search starts from the previous value's result where the keys ascend (so the result
// matches Numba's for an unsorted a too).
template <class S, class V, class O>
KOKKOS_INLINE_FUNCTION void search_values(const S& a, const V& v, const O& out, bool right) {
  const int64_t n = a.size();
  const int64_t count = static_cast<int64_t>(v.extent(0));
  if (count == 0) return;
  auto last = v(0);
  int64_t low = 0, high = n;
  for (int64_t i = 0; i < count; ++i) {
    const auto key = v(i);
    if (right ? search_less_equal(last, key) : search_less(last, key)) {
      high = n;
    } else {
      low = 0;
      high = high < n ? high + 1 : n;
    }
    last = key;
    low = bisect(a, key, low, high, right);
    high = low;
    out(i) = low;
  }
}

template <class A, class V, class O>
KOKKOS_INLINE_FUNCTION void searchsorted_values(const A& a, const V& v, const O& out, bool right) {
  search_values(sequence<A>{a, false}, v, out, right);
}

// np.digitize's check of its bins: 1 increasing (or all equal, or empty), -1 decreasing, 0
// neither (Numba's ValueError).
template <class B>
KOKKOS_INLINE_FUNCTION int monotonicity(const B& bins) {
  const int64_t n = static_cast<int64_t>(bins.extent(0));
  if (n == 0) return 1;
  auto last = bins(0);
  int64_t i = 1;
  while (i < n && bins(i) == last) ++i;
  if (i == n) return 1;
  auto next = bins(i);
  const bool increasing = last < next;
  for (++i; i < n; ++i) {
    last = next;
    next = bins(i);
    if (increasing ? last > next : last < next) return 0;
  }
  return increasing ? 1 : -1;
}

// np.digitize(x, bins, right) of one value, as Numba: searchsorted on the bins (side 'right'
// for right=False), decreasing bins searched reversed and the index counted from the end.
template <class B, class K>
KOKKOS_INLINE_FUNCTION int64_t digitize(K x, const B& bins, bool right) {
  const int mono = monotonicity(bins);
  if (mono == 0) {
    raise_error(digitize_bins_error);
    return 0;
  }
  const int64_t n = static_cast<int64_t>(bins.extent(0));
  const int64_t found = bisect(sequence<B>{bins, mono == -1}, x, int64_t(0), n, !right);
  return mono == -1 ? n - found : found;
}

template <class X, class B, class O>
KOKKOS_INLINE_FUNCTION void digitize_values(const X& x, const B& bins, const O& out, bool right) {
  const int mono = monotonicity(bins);
  if (mono == 0) {
    raise_error(digitize_bins_error);
    return;
  }
  search_values(sequence<B>{bins, mono == -1}, x, out, !right);
  if (mono == -1) {
    const int64_t n = static_cast<int64_t>(bins.extent(0));
    for (int64_t i = 0; i < static_cast<int64_t>(out.extent(0)); ++i) out(i) = n - out(i);
  }
}

// NumPy's bisection with a guess (np.interp's, Numba's copy of NumPy 1.15's): the index j with
// xp[j] <= key < xp[j + 1], -1 below xp[0], n above xp[n - 1].
template <class P>
KOKKOS_INLINE_FUNCTION int64_t search_with_guess(double key, const P& xp, int64_t n, int64_t guess) {
  constexpr int64_t cached = 8;
  int64_t low = 0, high = n;
  if (key > static_cast<double>(xp(n - 1))) return n;
  if (key < static_cast<double>(xp(0))) return -1;
  if (n <= 4) {
    int64_t i = 1;
    while (i < n && key >= static_cast<double>(xp(i))) ++i;
    return i - 1;
  }
  if (guess > n - 3) guess = n - 3;
  if (guess < 1) guess = 1;
  if (key < static_cast<double>(xp(guess))) {
    if (key < static_cast<double>(xp(guess - 1))) {
      high = guess - 1;
      if (guess > cached && key >= static_cast<double>(xp(guess - cached))) low = guess - cached;
    } else {
      return guess - 1;
    }
  } else {
    if (key < static_cast<double>(xp(guess + 1))) return guess;
    if (key < static_cast<double>(xp(guess + 2))) return guess + 1;
    low = guess + 2;
    if (guess < n - cached - 1 && key < static_cast<double>(xp(guess + cached))) high = guess + cached;
  }
  while (low < high) {
    const int64_t mid = low + ((high - low) >> 1);
    if (key >= static_cast<double>(xp(mid))) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low - 1;
}

// np.interp(x, xp, fp) at one point, as Numba (in float64): NaN stays NaN, the ends are held
// outside xp, an exact sample point gives its value, and a NaN from one side is tried from
// the other. ``guess`` carries the previous point's interval (the points are taken in order).
template <class P, class F>
KOKKOS_INLINE_FUNCTION double interp_at(double x, const P& xp, const F& fp, int64_t& guess) {
  const int64_t n = static_cast<int64_t>(xp.extent(0));
  if (n == 1) return static_cast<double>(fp(0));
  if (x != x) return x;
  const int64_t j = guess = search_with_guess(x, xp, n, guess);
  if (j == -1) return static_cast<double>(fp(0));
  if (j == n) return static_cast<double>(fp(n - 1));
  if (j == n - 1) return static_cast<double>(fp(j));
  const double x0 = static_cast<double>(xp(j)), x1 = static_cast<double>(xp(j + 1));
  const double y0 = static_cast<double>(fp(j)), y1 = static_cast<double>(fp(j + 1));
  if (x0 == x) return y0;
  const double slope = (y1 - y0) / (x1 - x0);
  double value = slope * (x - x0) + y0;
  if (value != value) {
    value = slope * (x - x1) + y1;
    if (value != value && y0 == y1) value = y0;
  }
  return value;
}

// Numba's errors of np.interp: no sample points, or xp and fp of different lengths.
template <class P, class F>
KOKKOS_INLINE_FUNCTION bool interp_checked(const P& xp, const F& fp) {
  if (xp.extent(0) == 0) {
    raise_error(interp_empty_error);
    return false;
  }
  if (xp.extent(0) != fp.extent(0)) {
    raise_error(interp_size_error);
    return false;
  }
  return true;
}

template <class P, class F>
KOKKOS_INLINE_FUNCTION double interp(double x, const P& xp, const F& fp) {
  int64_t guess = 0;
  return interp_checked(xp, fp) ? interp_at(x, xp, fp, guess) : 0.0;
}

// np.interp of the values of the 1-D view x into out, in order.
template <class X, class P, class F, class O>
KOKKOS_INLINE_FUNCTION void interp_values(const X& x, const P& xp, const F& fp, const O& out) {
  if (!interp_checked(xp, fp)) return;
  int64_t guess = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(x.extent(0)); ++i) {
    out(i) = interp_at(static_cast<double>(x(i)), xp, fp, guess);
  }
}

// np.unique of the sorted copy s, as Numba: how many distinct values (NaNs, sorted last,
// count as one), then those values in order.
template <class S>
KOKKOS_INLINE_FUNCTION bool starts_value(const S& s, int64_t i) {
  return i == 0 || (s(i) != s(i - 1) && !(s(i) != s(i) && s(i - 1) != s(i - 1)));
}

template <class S>
KOKKOS_INLINE_FUNCTION int64_t unique_count(const S& s) {
  int64_t count = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(s.extent(0)); ++i) count += starts_value(s, i);
  return count;
}

template <class S, class O>
KOKKOS_INLINE_FUNCTION void unique_values(const S& s, const O& out) {
  int64_t at = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(s.extent(0)); ++i) {
    if (starts_value(s, i)) out(at++) = s(i);
  }
}

}  // namespace order
}  // namespace kpc
