// kpc_semantics.hpp: Python/Numba semantics of scalar operations, for generated kernels.
//
// C++ and Python disagree on integer division and modulo of negative numbers, on
// negative indices, on min/max ties and on integer powers; generated code calls
// these helpers wherever the emitter cannot prove that the plain C++ operator gives
// the Python answer. Also: unmanaged view types over host memory, the reducer of
// kpc's reduction structs, trip counts of Python ranges and the cost guard.
#pragma once

#include "kpc_compat.hpp"

#include <algorithm>
#include <atomic>
#include <initializer_list>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace kpc {

// ------------------------------------------------------------------- views

template <class T, int N>
struct data_type {
  using type = typename data_type<T, N - 1>::type*;
};
template <class T>
struct data_type<T, 0> {
  using type = T;
};

// Where the arrays of a generated module live: host memory, or for `--space cuda` CUDA
// managed memory, which host code and device code can both dereference (kpc_cuda.hpp).
#if defined(KPC_CUDA)
#define KPC_MEMORY_SPACE Kokkos::CudaUVMSpace
#else
#define KPC_MEMORY_SPACE Kokkos::HostSpace
#endif

// A view of memory owned by someone else (a NumPy array): no reference counting.
template <class T, int N, class Layout>
using view = Kokkos::View<typename data_type<T, N>::type, Layout, KPC_MEMORY_SPACE,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// len(a) and a.shape[k] are signed in Python: `len(a) - 1` is -1 for an empty array.
template <class V>
KOKKOS_INLINE_FUNCTION int64_t extent(const V& v, int k) {
  return static_cast<int64_t>(v.extent(k));
}

template <class V>
KOKKOS_INLINE_FUNCTION int64_t size(const V& v) {
  return static_cast<int64_t>(v.size());
}

// a[i] with i possibly negative: Python counts from the end.
KOKKOS_INLINE_FUNCTION int64_t wrap(int64_t index, int64_t extent) {
  return index < 0 ? index + extent : index;
}

// The element at C-order position p of v (a reshape read without splitting p into indices): one
// load where v is LayoutRight (contiguous: kpc's views are never padded), else p split over v's
// extents and strides.
template <class V>
KOKKOS_INLINE_FUNCTION typename V::reference_type flat_element_of(const V& v, int64_t p, Kokkos::LayoutRight) {
  return v.data()[p];
}

template <class V, class Layout>
KOKKOS_INLINE_FUNCTION typename V::reference_type flat_element_of(const V& v, int64_t p, Layout) {
  int64_t offset = 0;
  for (int d = static_cast<int>(V::rank) - 1; d >= 0; --d) {
    const int64_t n = static_cast<int64_t>(v.extent(d));
    offset += (p % n) * static_cast<int64_t>(v.stride(d));
    p /= n;
  }
  return v.data()[offset];
}

template <class V>
KOKKOS_INLINE_FUNCTION typename V::reference_type flat_element(const V& v, int64_t p) {
  return flat_element_of(v, p, typename V::array_layout());
}

// The [lower, upper) of a step-1 slice a[lo:hi] of an axis of length n, clamped as Python does.
KOKKOS_INLINE_FUNCTION Kokkos::pair<int64_t, int64_t> slice(int64_t lo, int64_t hi, int64_t n) {
  lo = lo < 0 ? (lo + n < 0 ? 0 : lo + n) : (lo > n ? n : lo);
  hi = hi < 0 ? (hi + n < 0 ? 0 : hi + n) : (hi > n ? n : hi);
  return Kokkos::pair<int64_t, int64_t>(lo, hi < lo ? lo : hi);
}

// ------------------------------------------------------------------- ranges

// Number of iterations of range(start, stop, step).
KOKKOS_INLINE_FUNCTION int64_t trip_count(int64_t start, int64_t stop, int64_t step) {
  if (step > 0) return start < stop ? (stop - start + step - 1) / step : 0;
  return start > stop ? (start - stop - step - 1) / (-step) : 0;
}

// t = q * n + r with 0 <= r < n, for t >= 0 and n > 0: returns q and sets r. The indices of a
// region launched flat on a device (ParallelInfo.device_form) come from it; GPUs divide 64-bit
// integers in software, so the division is 32-bit while both operands fit.
KOKKOS_FORCEINLINE_FUNCTION int64_t flat_split(int64_t t, int64_t n, int64_t& r) {
  if ((static_cast<uint64_t>(t) | static_cast<uint64_t>(n)) <= 0xffffffffull) {
    const uint32_t q = static_cast<uint32_t>(t) / static_cast<uint32_t>(n);
    r = t - static_cast<int64_t>(q) * n;
    return q;
  }
  const int64_t q = t / n;
  r = t - q * n;
  return q;
}

// ------------------------------------------------------------------- errors

// Set by kernels that hit an error Python raises on, such as an integer division by zero:
// the binding raises the Python exception once the kernel returns (and clears the flag),
// where C++ would otherwise stop the process (SIGFPE). One flag per module (hidden
// visibility). On CUDA, device code flags into device_error_slot below instead (a division by
// zero does not trap there either).
inline int& error_flag() {
  static int flag = 0;
  return flag;
}

// What a kernel flags, with Numba's messages (error_message): ZeroDivisionError for the
// first four and the last, IndexError for an index out of bounds under boundscheck=True, ValueError for
// np.random.randint(low, high) with high <= low.
enum : int {
  zero_division_error = 1,  // integer //
  integer_modulo_error = 2,
  division_error = 3,  // a / 0 (any type), float // 0.0
  modulo_error = 4,    // float % 0.0
  index_error = 5,
  empty_range_error = 6,
  complex_division_error = 7,  // z / 0j
  // np.percentile / np.quantile (kpc_order.hpp): ValueError, AssertionError for the last.
  percentile_range_error = 8,
  quantile_range_error = 9,
  empty_maximum_error = 10,
  empty_minimum_error = 11,
  empty_quantile_error = 12,
  // np.digitize, np.interp (kpc_order.hpp): ValueError.
  digitize_bins_error = 13,
  interp_empty_error = 14,
  interp_size_error = 15,
  // min/max/argmin/argmax of an empty array in CUDA device code (device_check): ValueError.
  empty_argmin_error = 16,
  empty_argmax_error = 17,
};

inline const char* error_message(int error) {
  switch (error) {
    case zero_division_error:
      return "integer division by zero";
    case integer_modulo_error:
      return "integer modulo by zero";
    case division_error:
      return "division by zero";
    case modulo_error:
      return "modulo by zero";
    case empty_range_error:
      return "empty range for randrange()";
    case complex_division_error:
      return "complex division by zero";
    case percentile_range_error:
      return "Percentiles must be in the range [0, 100]";
    case quantile_range_error:
      return "Quantiles must be in the range [0, 1]";
    case empty_maximum_error:
      return "zero-size array to reduction operation maximum which has no identity";
    case empty_minimum_error:
      return "zero-size array to reduction operation minimum which has no identity";
    case empty_argmin_error:
      return "attempt to get argmin of an empty sequence";
    case empty_argmax_error:
      return "attempt to get argmax of an empty sequence";
    case empty_quantile_error:
      return "";
    case digitize_bins_error:
      return "bins must be monotonically increasing or decreasing";
    case interp_empty_error:
      return "array of sample points is empty";
    case interp_size_error:
      return "fp and xp are not of the same size.";
    default:
      return "index is out of bounds";
  }
}

// Out of line and cold: a hot loop that may raise keeps its accumulators in registers (an atomic
// store inlined into the loop made GCC keep them in memory: Lennard-Jones 11 % slower).
[[gnu::noinline, gnu::cold]] inline void raise_error_on_host(int error) { kpc::atomic_store(&error_flag(), error); }

#if defined(KPC_CUDA) && defined(__CUDACC__)
// Device code flags an error into one int of mapped, pinned host memory: the module's slot,
// which kpc::cuda::call_scope allocates and hands to the device once. A call that waits for its
// kernels (call_scope::result) raises it then; a plain store (atomics on host memory over PCIe
// are not guaranteed), so of several errors one is kept.
static __device__ int* device_error_slot = nullptr;
#endif

KOKKOS_INLINE_FUNCTION void raise_error(int error) {
#if defined(KPC_CUDA) && defined(__CUDA_ARCH__)
  if (device_error_slot != nullptr) *static_cast<volatile int*>(device_error_slot) = error;
#else
  raise_error_on_host(error);
#endif
}

#if defined(__GNUC__)
#define KPC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define KPC_UNLIKELY(x) (x)
#endif

// A check lower-numpy adds (value_check) in CUDA device code, which cannot reach the host's
// message strings: flags `error` (one of the codes above) when not ok; the binding raises it.
KOKKOS_INLINE_FUNCTION bool device_check(bool ok, int error) {
  if (KPC_UNLIKELY(!ok)) raise_error(error);
  return ok;
}

// a[i] under boundscheck=True: a negative index counts from the end; outside the axis the
// kernel flags IndexError and reads element 0 instead, the binding raises once it returns.
KOKKOS_INLINE_FUNCTION int64_t checked_index(int64_t index, int64_t extent) {
  const int64_t wrapped = index < 0 ? index + extent : index;
  if (KPC_UNLIKELY(wrapped < 0 || wrapped >= extent)) {
    raise_error(index_error);
    return 0;
  }
  return wrapped;
}

// ------------------------------------------------------------------- arithmetic

// Python's a / b under Numba's error_model='python': a zero divisor flags ZeroDivisionError.
// The quotient is computed anyway (inf or nan, dropped when the binding raises), so a hot
// loop pays one compare and a branch that is never taken.
// a / b; for complex numbers CPython's algorithm (_Py_c_quot), which Numba uses too, so that
// quotients agree to the last bit (Kokkos scales by |b.real| + |b.imag| instead).
template <class T>
KOKKOS_INLINE_FUNCTION T quotient(T a, T b) {
  return a / b;
}

template <class T>
KOKKOS_INLINE_FUNCTION Kokkos::complex<T> quotient(Kokkos::complex<T> a, Kokkos::complex<T> b) {
  const T ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  if ((br < 0 ? -br : br) >= (bi < 0 ? -bi : bi)) {
    const T not_a_number = std::numeric_limits<T>::quiet_NaN();
    if (br == T(0)) return Kokkos::complex<T>(not_a_number, not_a_number);
    const T ratio = bi / br;
    const T denom = br + bi * ratio;
    return Kokkos::complex<T>((ar + ai * ratio) / denom, (ai - ar * ratio) / denom);
  }
  const T ratio = br / bi;
  const T denom = br * ratio + bi;
  return Kokkos::complex<T>((ar * ratio + ai) / denom, (ai * ratio - ar) / denom);
}

template <class T>
struct division_error_of : std::integral_constant<int, division_error> {};
template <class T>
struct division_error_of<Kokkos::complex<T>> : std::integral_constant<int, complex_division_error> {};

template <class T>
KOKKOS_INLINE_FUNCTION T truediv(T a, T b) {
  if (KPC_UNLIKELY(b == T(0))) raise_error(division_error_of<T>::value);
  return quotient(a, b);
}

// Python's // : the floor of the quotient, for integers and floats. Raise = false is NumPy's
// floor_divide (error_model='numpy', array expressions): 0 for integers, a / b for floats.
template <class T, bool Raise = true>
KOKKOS_INLINE_FUNCTION typename std::enable_if<std::is_integral<T>::value, T>::type floordiv(T a, T b) {
  if (b == 0) {
    if (Raise) raise_error(zero_division_error);
    return 0;
  }
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

template <class T, bool Raise = true>
KOKKOS_INLINE_FUNCTION typename std::enable_if<std::is_floating_point<T>::value, T>::type floordiv(T a, T b) {
  if (KPC_UNLIKELY(b == T(0))) {
    if (Raise) raise_error(division_error);
    return a / b;
  }
  // CPython's float_floor_div (Objects/floatobject.c), which Numba follows.
  T mod = math::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0)) {
    if ((b < T(0)) != (mod < T(0))) div -= T(1);
  }
  if (div != T(0)) {
    T floordiv = math::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
    return floordiv;
  }
  return std::copysign(T(0), a / b);
}

// Python's % : the result has the sign of the divisor. Raise = false is NumPy's remainder:
// 0 for integers, nan for floats.
template <class T, bool Raise = true>
KOKKOS_INLINE_FUNCTION typename std::enable_if<std::is_integral<T>::value, T>::type mod(T a, T b) {
  if (b == 0) {
    if (Raise) raise_error(integer_modulo_error);
    return 0;
  }
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

template <class T, bool Raise = true>
KOKKOS_INLINE_FUNCTION typename std::enable_if<std::is_floating_point<T>::value, T>::type mod(T a, T b) {
  if (Raise && KPC_UNLIKELY(b == T(0))) raise_error(modulo_error);
  T r = math::fmod(a, b);
  if (r != T(0)) {
    if ((b < T(0)) != (r < T(0))) r += b;
  } else {
    r = std::copysign(T(0), b);
  }
  return r;
}

// x ** n for an integer n known at compile time: multiplications, as LLVM does for Numba.
template <int N, class T>
KOKKOS_INLINE_FUNCTION T pow_n(T x) {
  if constexpr (N < 0) {
    return T(1) / pow_n<-N>(x);
  } else if constexpr (N == 0) {
    return T(1);
  } else if constexpr (N == 1) {
    return x;
  } else {
    T half = pow_n<N / 2>(x);
    if constexpr (N % 2 == 0) {
      return half * half;
    } else {
      return half * half * x;
    }
  }
}

// x ** n for an integer n known at run time (binary exponentiation).
template <class T, class I>
KOKKOS_INLINE_FUNCTION T powi(T x, I n) {
  bool invert = n < 0;
  // n may be the most negative integer; work with its magnitude as unsigned.
  typename std::make_unsigned<I>::type e = invert ? -static_cast<typename std::make_unsigned<I>::type>(n)
                                                  : static_cast<typename std::make_unsigned<I>::type>(n);
  T result = T(1);
  while (e) {
    if (e & 1u) result *= x;
    x *= x;
    e >>= 1;
  }
  return invert ? T(1) / result : result;
}

// int ** int stays an integer in Numba; a negative exponent gives 0 except for +-1 bases.
template <class T>
KOKKOS_INLINE_FUNCTION T ipow(T base, T n) {
  if (n < 0) {
    if (base == 1) return 1;
    if (base == -1) return (n % 2 == 0) ? 1 : -1;
    return 0;
  }
  T result = 1;
  while (n) {
    if (n & 1) result *= base;
    base *= base;
    n >>= 1;
  }
  return result;
}

// `taken if test else otherwise` for two integers already computed (if-convert's selects): bit
// arithmetic, because GCC compiles `?:` on a data-dependent test into a branch that mispredicts.
template <class T>
KOKKOS_INLINE_FUNCTION T select(bool test, T taken, T otherwise) {
  using U = std::make_unsigned_t<T>;
  const U mask = U(0) - static_cast<U>(test);
  return static_cast<T>(static_cast<U>(otherwise) ^ ((static_cast<U>(taken) ^ static_cast<U>(otherwise)) & mask));
}

// Python's min/max of two values: the first one wins ties.
template <class T>
KOKKOS_INLINE_FUNCTION T min(T a, T b) {
  return b < a ? b : a;
}
template <class T>
KOKKOS_INLINE_FUNCTION T max(T a, T b) {
  return b > a ? b : a;
}

template <class T>
KOKKOS_INLINE_FUNCTION T abs(T x) {
  return x < T(0) ? -x : x;
}

template <class T>
KOKKOS_INLINE_FUNCTION T sign(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);
}

template <class T>
KOKKOS_INLINE_FUNCTION constexpr T inf() {
  return std::numeric_limits<T>::infinity();
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T nan() {
  return std::numeric_limits<T>::quiet_NaN();
}

// Identities of the reduction operators; float min/max start from +-inf so that an
// empty loop leaves the initial value of a reduction variable as Python would.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T min_identity() {
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::max();
}
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T max_identity() {
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::lowest();
}

// ------------------------------------------------------------------- reductions

// A reducer over a struct of reduction variables: Acc provides init() and join(const Acc&).
// One parallel_reduce thus carries several reduction variables of different kinds and
// types, which Kokkos 3.x cannot do with its built-in reducers.
template <class Acc>
struct Reduce {
  using reducer = Reduce<Acc>;
  using value_type = Acc;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  result_view_type result;

  KOKKOS_INLINE_FUNCTION explicit Reduce(value_type& value) : result(&value) {}

#if defined(KPC_CUDA) && !KPC_KOKKOS_4
  // Kokkos 3.x's CUDA block reduction joins through volatile shared memory; casting the volatile
  // away (as KPC_REDUCER_JOINS does) let stale values be reused: sums came out 17x too large on
  // an H200 (scripts/cuda/reduce_probe.cpp). Acc has a volatile join for cuda (module.cpp.j2).
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest.join(src); }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    dest.join(src);
  }
#else
#define KPC_REDUCE_JOIN(dest, src) dest.join(src)
  KPC_REDUCER_JOINS(value_type, KPC_REDUCE_JOIN)
#undef KPC_REDUCE_JOIN
#endif

  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value.init(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *result.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return result; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

// ------------------------------------------------------------------- cost guard

// KPC_SERIAL_THRESHOLD, read once when a module is initialized (-1: not set).
inline int64_t& serial_threshold_override() {
  static int64_t value = -1;
  return value;
}

inline void read_serial_threshold_env() {
  const char* text = std::getenv("KPC_SERIAL_THRESHOLD");
  if (text != nullptr && *text != '\0') {
    char* end = nullptr;
    long long value = std::strtoll(text, &end, 10);
    if (end != text && value >= 0) serial_threshold_override() = value;
  }
}

// One empty reduction over `threads` iterations: what measure_serial_scale times.
template <class ExecSpace>
void calibration_launch(int threads) {
  int64_t sum = 0;
  Kokkos::parallel_reduce("kpc_calibrate", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>(0, threads),
                          KOKKOS_LAMBDA(const int64_t i, int64_t& acc) { acc += i; }, sum);
}

// Run a parallel region serially when it has at most one iteration, or fewer iterations than
// the threshold the compiler chose (serial_below) or, when set, than KPC_SERIAL_THRESHOLD.
// ``work``: the trip count times the run-time trip counts of the loops inside an iteration
// (ParallelInfo.serial_work), when there are such loops.
// How much more work a region needs here than on the machine serial_below was tuned on
// (2 threads, where a dispatch cost about 2 us) before running it in parallel pays: the
// measured cost of launching a region on ExecSpace's threads, over that reference, times
// what P threads save against 2 ((1 - 1/2) / (1 - 1/P)). Measured once per process and
// module (about a hundred empty reductions, well under a millisecond), so a 16-core machine
// whose dispatch costs 10 us keeps regions under ~2.7 times more work serial; clamped to
// [0.25, 64] against a disturbed measurement.
template <class ExecSpace>
double measure_serial_scale() {
  const int threads = ExecSpace().concurrency();
  if (threads <= 1) return 1.0;
  // Rounds after one that wakes the threads; the best round is the cost of a launch in a
  // loop of calls, where the guard matters (the median of a few rounds at a module's first
  // call, threads just woken, kept a 10^4-element min/max serial at 15 us on 16 threads
  // where the region takes 5.4 us, in one process but not in the next).
  auto launch = [threads] { calibration_launch<ExecSpace>(threads); };
  for (int k = 0; k < 4; ++k) launch();
  constexpr int rounds = 8, launches = 8;
  double best_us[rounds];
  for (int round = 0; round < rounds; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < launches; ++k) launch();
    const std::chrono::duration<double, std::micro> spent = std::chrono::steady_clock::now() - start;
    best_us[round] = spent.count() / launches;
  }
  const double launch_us = *std::min_element(best_us, best_us + rounds);
  const double scale = (launch_us / 2.0) * (0.5 / (1.0 - 1.0 / threads));
  return std::min(64.0, std::max(0.25, scale));
}

// The scale shared by the process's modules (kpc_runtime.hpp: a field of the session every
// module attaches to; nullptr without a session).
inline double* session_serial_scale();

// Measured once per process, by the first module of a multi-threaded host space that needs it:
// one module's measurement, disturbed, once made another's guard keep a 10^5-element min/max
// serial at twice its parallel time in the same process.
template <class ExecSpace>
double serial_scale() {
  static const double scale = [] {
    if (ExecSpace().concurrency() <= 1) return 1.0;
    double* shared = session_serial_scale();
    if (shared != nullptr && *shared > 0.0) return *shared;
    const double measured = measure_serial_scale<ExecSpace>();
    if (shared != nullptr) *shared = measured;
    return measured;
  }();
  return scale;
}

template <class ExecSpace>
inline bool run_serially(int64_t trip_count, int64_t work, int64_t serial_below) {
#if defined(KPC_CUDA)
  // On a GPU every region runs on the device: its arrays may be device-only memory.
  (void)trip_count;
  (void)work;
  (void)serial_below;
  return false;
#else
  // A region of one iteration has nothing to share out: launching it only costs a fork and join.
  if (trip_count <= 1) return true;
  if (serial_threshold_override() >= 0) return work < serial_threshold_override();
  if (serial_below <= 0 || work >= static_cast<int64_t>(64.0 * static_cast<double>(serial_below))) return false;
  return static_cast<double>(work) < static_cast<double>(serial_below) * serial_scale<ExecSpace>();
#endif
}

template <class ExecSpace>
inline bool run_serially(int64_t trip_count, int64_t serial_below) {
  return run_serially<ExecSpace>(trip_count, trip_count, serial_below);
}

// Where the model is unsure, a region learns its own break-even from its calls. The model
// prices every operation alike on a machine; a region's real cost is not (16 threads: a
// 10^4-point stencil launched at 5.5 us where its serial loop takes about 4.4 us). For work
// within kGuardBand of the model's threshold, the calls of each size class (two per octave of
// work) alternate between the serial loop and the parallel launch until each has run
// kGuardSamples times, then take the one whose best time was lower, untimed, except two calls
// after kGuardRecheck decided calls of the class, and again after each doubling of that count
// (64, 128, 256, ...), which run the other path once more and the chosen one once more, both
// timed (one path sampled more often would win on its luckiest sample; rechecks at a fixed
// rate cost a 16-thread launch every 64 calls, a quarter of a 0.6 µs kernel's time): a
// learning call that something else slowed (another pool's threads spinning, a page fault)
// does not settle the choice for the life of the process (in one run of the 2-thread suite jacobi_2d
// 100², whose regions are inside the band, took 147 µs a call against 68 µs in the run before).
constexpr double kGuardBand = 8.0;
constexpr int kGuardSamples = 3;
constexpr int kGuardRecheck = 64;

struct guard_site;
inline void register_guard_site(guard_site* site);  // kpc_runtime.hpp: the session's list

// One region's measurements (a static of the function that launches it).
struct guard_site {
  static constexpr int classes = 128;
  const char* label;
  std::atomic<int64_t> best_ns[2][classes];  // [0]: serial loop, [1]: parallel launch
  std::atomic<int> runs[2][classes];
  std::atomic<int> decided[classes];  // calls since the class was learned

  explicit guard_site(const char* label_) : label(label_) {
    for (int path = 0; path < 2; ++path) {
      for (int c = 0; c < classes; ++c) {
        best_ns[path][c].store(std::numeric_limits<int64_t>::max(), std::memory_order_relaxed);
        runs[path][c].store(0, std::memory_order_relaxed);
      }
    }
    for (int c = 0; c < classes; ++c) decided[c].store(0, std::memory_order_relaxed);
    register_guard_site(this);
  }

  // Two classes per octave: 2 * floor(log2(work)), plus one in the octave's upper half.
  static int class_of(int64_t work) {
    const uint64_t w = work > 1 ? static_cast<uint64_t>(work) : 1;
    const int top = 63 - __builtin_clzll(w);
    return 2 * top + (top > 0 ? static_cast<int>((w >> (top - 1)) & 1) : 0);
  }

  bool learned(int c) const {
    return runs[0][c].load(std::memory_order_relaxed) >= kGuardSamples &&
           runs[1][c].load(std::memory_order_relaxed) >= kGuardSamples;
  }

  // While learning class c: the path run fewer times (the model's on a tie).
  bool learning_serially(int c, bool model) const {
    const int serial_runs = runs[0][c].load(std::memory_order_relaxed);
    const int parallel_runs = runs[1][c].load(std::memory_order_relaxed);
    return serial_runs == parallel_runs ? model : serial_runs < parallel_runs;
  }

  // Once learned: the faster path.
  bool faster_serially(int c) const {
    return best_ns[0][c].load(std::memory_order_relaxed) <= best_ns[1][c].load(std::memory_order_relaxed);
  }

  // How this learned call of class c runs: 1 the slower path, timed (the call before each
  // power of two from `first`, itself a power of two), 2 the faster, timed (the call at it), 0 the faster.
  // The count is a load and a store, not an atomic add: a locked add on every decided call cost
  // more than the rest of a placed call's choice, and a count two threads race on only moves a
  // recheck by a call.
  int recheck(int c, int first = kGuardRecheck) { return recheck_at(tick(c), first); }

  // The decided calls of class c before this one (counted).
  int tick(int c) {
    const int d = decided[c].load(std::memory_order_relaxed);
    decided[c].store(d < std::numeric_limits<int>::max() - 1 ? d + 1 : d, std::memory_order_relaxed);
    return d;
  }

  // Whether the call after d decided calls may be a recheck (d or d + 1 a power of two).
  static bool near_recheck(int d) { return ((d + 1) & d) == 0 || (d & (d - 1)) == 0; }

  static int recheck_at(int d, int first) {
    if (d + 1 >= first && ((d + 1) & d) == 0) return 1;
    if (d >= first && (d & (d - 1)) == 0) return 2;
    return 0;
  }

  void record(bool serial, int c, int64_t ns) {
    std::atomic<int64_t>& best = best_ns[serial ? 0 : 1][c];
    int64_t seen = best.load(std::memory_order_relaxed);
    while (ns < seen && !best.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
    }
    runs[serial ? 0 : 1][c].fetch_add(1, std::memory_order_relaxed);
  }
};

// One call of a region: times it, when the guard asked for that, until the end of its scope.
class guard_call {
 public:
  explicit guard_call(guard_site& site) : site_(site) {}
  ~guard_call() {
    if (class_ < 0) return;
    const std::chrono::duration<double, std::nano> spent = std::chrono::steady_clock::now() - start_;
    site_.record(serial_, class_, static_cast<int64_t>(spent.count()));
  }
  guard_call(const guard_call&) = delete;
  guard_call& operator=(const guard_call&) = delete;

  bool timed(int c, bool serial) {
    class_ = c;
    serial_ = serial;
    start_ = std::chrono::steady_clock::now();
    return serial;
  }
  // Record nothing for this call (it failed: its time says nothing about the path).
  void cancel() { class_ = -1; }
  bool timing() const { return class_ >= 0; }
  guard_site& site() const { return site_; }

 private:
  guard_site& site_;
  int class_ = -1;
  bool serial_ = false;
  std::chrono::steady_clock::time_point start_;
};

// run_serially, learning at the call site where the model is unsure.
// The learned choice of size class c (serial: true): the model's while the class learns (each
// path timed kGuardSamples times, alternating), then the faster, with its rechecks.
inline bool learned_serially(int c, bool model, guard_call& call) {
  guard_site& site = call.site();
  if (!site.learned(c)) return call.timed(c, site.learning_serially(c, model));
  const bool faster = site.faster_serially(c);
  switch (site.recheck(c)) {
    case 1: return call.timed(c, !faster);
    case 2: return call.timed(c, faster);
    default: return faster;
  }
}

// every_size (ParallelInfo.learn_every_size): a region of a kernel Numba runs serially learns
// above the band too, so that it runs in parallel only where that measures faster here (on a
// loaded machine a 2-thread launch waits for its second thread: a 4 * 10^6-element scatter took
// 8 ms in parallel against 3 ms serially).
template <class ExecSpace>
inline bool run_serially(int64_t trip_count, int64_t work, int64_t serial_below, guard_call& call,
                         bool every_size = false) {
#if defined(KPC_CUDA)
  (void)call;
  (void)every_size;
  return run_serially<ExecSpace>(trip_count, work, serial_below);
#else
  if (trip_count <= 1 || serial_threshold_override() >= 0 || serial_below <= 0) {
    return run_serially<ExecSpace>(trip_count, work, serial_below);
  }
  static const bool threads = ExecSpace().concurrency() > 1;
  const double threshold = static_cast<double>(serial_below) * serial_scale<ExecSpace>();
  const double amount = static_cast<double>(work);
  const bool model = run_serially<ExecSpace>(trip_count, work, serial_below);
  if (!threads || amount < threshold / kGuardBand || (!every_size && amount > threshold * kGuardBand)) return model;
  return learned_serially(guard_site::class_of(work), model, call);
#endif
}

// A region whose work per iteration the cost guard cannot estimate (ParallelInfo.learn_below:
// it calls a function whose loops have run-time trip counts, as a gufunc's loop kernel does, or
// runs a while loop) learns serial against parallel per size class of its trip count below
// `learn_below` iterations, starting parallel; from there on it runs parallel. A gufunc over 3
// to 10 rows launched its threads for a few microseconds of work (0.68x Numba's own gufunc).
template <class ExecSpace>
inline bool learn_serially(int64_t trip_count, int64_t learn_below, guard_call& call, bool every_size = false) {
#if defined(KPC_CUDA)
  (void)trip_count;
  (void)learn_below;
  (void)call;
  (void)every_size;
  return false;
#else
  if (trip_count <= 1) return true;
  if (serial_threshold_override() >= 0) return trip_count < serial_threshold_override();
  static const bool threads = ExecSpace().concurrency() > 1;
  if (!threads) return true;
  if (trip_count >= learn_below && !every_size) return false;
  return learned_serially(guard_site::class_of(trip_count), false, call);
#endif
}

// The team size of a Team region's launch (choose-teams), for a league of `league` teams:
// -1 for Kokkos::AUTO (CUDA), 0 to launch the flat region instead. On host spaces a team of
// T threads runs one iteration at a time, P / T teams side by side: the size that minimizes
// ceil(league / (P / T)) / T (rounds of iterations, each T times faster), 0 when that is 1 (the
// iterations alone fill the threads, and the flat region needs no barriers). KPC_TEAMS=always
// asks for teams of every thread (tests run the team code on a few iterations that way).
inline bool teams_always() {
  // Read once, at a module's first Team launch (not a getenv and a string per launch).
  static const bool always = [] {
    const char* text = std::getenv("KPC_TEAMS");
    return text != nullptr && std::string(text) == "always";
  }();
  return always;
}

//
// `inner`: the run-time trip count of the longest inner loop of one iteration (-1 when it varies
// with the iteration, as a triangular loop's). On host spaces a team synchronizes its threads at
// each inner loop (about a microsecond at 16 threads), which only pays for long inner loops:
// below kTeamInner iterations, or when unknown, the flat region runs (whose dynamic schedule
// also balances triangular loops). Measured: Lennard-Jones at 100 atoms, 16 threads, ran
// 118 us in teams of 4 against 21 us serially.
constexpr int64_t kTeamInner = 4096;

// The largest of a few trip counts (host code).
inline int64_t max_of(std::initializer_list<int64_t> values) { return std::max(values); }

template <class ExecSpace>
inline int team_size(int64_t league, int64_t inner = -1) {
#if defined(KPC_CUDA)
  (void)inner;
  return league > 0 && league <= INT32_MAX ? -1 : 0;
#else
  const int threads = static_cast<int>(ExecSpace().concurrency());
  if (league <= 0 || league > INT32_MAX || threads < 2) return 0;
  if (teams_always()) return threads;
  if (inner < kTeamInner) return 0;
  int best = 1;
  double best_rounds = static_cast<double>((league + threads - 1) / threads);
  for (int size = 2; size <= threads; ++size) {
    const int64_t teams = threads / size;
    const double rounds = static_cast<double>((league + teams - 1) / teams) / size;
    if (rounds < 0.9 * best_rounds) {
      best = size;
      best_rounds = rounds;
    }
  }
  return best == 1 ? 0 : best;
#endif
}

// The vector lanes of each thread of a team whose loops hold ThreadVectorRange loops (CUDA: a
// warp; its lanes read consecutive elements of a contiguous innermost dimension together).
constexpr int kVectorLength = 32;
// CUDA threads (threads x lanes) of such a team. Kokkos::AUTO gave teams too small to fill the
// GPU when batches are few: on an H100, 4 batches of 512 rows of 4096 ran a batched matvec in
// 13.5 ms with AUTO, 3.7 ms with 256, 1.4 ms with 1024 (the serial-columns build: 5.8 ms). 256
// always launches (255 registers a thread fit one block); 1024 may not for a large body.
constexpr int kVectorTeamThreads = 256;

// Measurement knobs (CUDA), read once: KPC_VECTOR_LENGTH replaces the lanes of regions that have
// vector loops; KPC_TEAM_THREADS fixes threads x lanes per team (instead of kVectorTeamThreads in
// those regions, of Kokkos::AUTO in the others).
inline int env_count(const char* name) {
  const char* text = std::getenv(name);
  return text != nullptr ? std::atoi(text) : 0;
}

// A TeamPolicy of `league` teams of `size` threads (Kokkos::AUTO when size < 0), each with `vector`
// lanes on CUDA (host spaces run one lane).
template <class Policy>
inline Policy team_policy(int64_t league, int size, int vector = 1) {
#if defined(KPC_CUDA)
  static const int lanes = env_count("KPC_VECTOR_LENGTH");
  static const int threads = env_count("KPC_TEAM_THREADS");
  if (vector > 1 && lanes > 0) vector = lanes;
  const int team_threads = threads > 0 ? threads : (vector > 1 ? kVectorTeamThreads : 0);
  if (size < 0 && team_threads > 0) size = team_threads / vector > 1 ? team_threads / vector : 1;
  return size < 0 ? Policy(static_cast<int>(league), Kokkos::AUTO, vector)
                  : Policy(static_cast<int>(league), size, vector);
#else
  (void)vector;
  return size < 0 ? Policy(static_cast<int>(league), Kokkos::AUTO) : Policy(static_cast<int>(league), size);
#endif
}

// Elements per block of a parallel element copy (dst[i] = src[i] over contiguous arrays, run as
// one memmove per block): one block per thread, at least 16384 elements.
template <class ExecSpace>
inline int64_t copy_block(int64_t elements) {
  const int64_t threads = static_cast<int64_t>(ExecSpace().concurrency());
  const int64_t block = (elements + threads - 1) / (threads > 0 ? threads : 1);
  return block > 16384 ? block : 16384;
}

// Iterations per chunk of a chunked host reduction: about 8 chunks per thread, at least 1024
// iterations each. Each chunk accumulates into a local copy of the reduction variables, which
// the compiler keeps in registers (Kokkos's own per-iteration update goes through a reference
// to per-thread storage that may alias the arrays read).
template <class ExecSpace>
inline int64_t reduce_chunk(int64_t iterations) {
  const int64_t chunks = 8 * static_cast<int64_t>(ExecSpace().concurrency());
  const int64_t chunk = (iterations + chunks - 1) / (chunks > 0 ? chunks : 1);
  return chunk > 1024 ? chunk : 1024;
}

// The token an iteration of a parallel loop holds while it uses its thread's block of a
// per-thread pool (an array allocated inside the loop; see allocate_pooled in functions.py):
// acquired when made, released when the iteration's scope ends, whatever way it ends.
template <class Token>
struct token_slot {
  Token token;
  int id;
  KOKKOS_INLINE_FUNCTION explicit token_slot(const Token& t) : token(t), id(t.acquire()) {}
  KOKKOS_INLINE_FUNCTION ~token_slot() { token.release(id); }
  token_slot(const token_slot&) = delete;
  token_slot& operator=(const token_slot&) = delete;
};

// The memory of an array with a run-time shape allocated inside a parallel loop, or in a
// function called from one, on a host execution space (see allocate_heap in allocations.py):
// taken from the heap where the allocation runs and given back when its scope ends, as Numba
// allocates such an array each time. Never emitted for CUDA.
template <class T>
struct heap_scratch {
  T* data;
  explicit heap_scratch(int64_t count) : data(new T[count > 0 ? count : 1]) {}
  ~heap_scratch() { delete[] data; }
  heap_scratch(const heap_scratch&) = delete;
  heap_scratch& operator=(const heap_scratch&) = delete;
  // `prices = tmp` where tmp's scope ends first: prices takes tmp's memory, and drops its own.
  void take(heap_scratch& other) {
    delete[] data;
    data = other.data;
    other.data = nullptr;
  }
};

}  // namespace kpc
