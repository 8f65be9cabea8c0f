// Probe of STREAM triad forms on a CUDA Kokkos (n = 1e6 and 1e8 doubles, best of 20, cudaEvent
// timing): plain CUDA kernels (one element per thread, grid-stride, 32/64-bit index, double2
// loads), cudaMemcpy device to device (the attainable bandwidth), Kokkos RangePolicy, and the
// grid-stride form kpc emits (kpc::cuda::grid_stride_for) with 64- and 32-bit loop indices and
// several thread counts. Then the fixed costs of a call: launch + fence, a fence alone.
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>

template <class Space>
using uview = Kokkos::View<double*, Kokkos::LayoutRight, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class I>
__global__ void raw_stride(double* a, const double* b, const double* c, double s, I n) {
  for (I i = blockIdx.x * (I)blockDim.x + threadIdx.x; i < n; i += (I)blockDim.x * gridDim.x) a[i] = b[i] + s * c[i];
}

template <class I>
__global__ void raw_flat(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c, double s,
                         I n) {
  const I i = blockIdx.x * (I)blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}

__global__ void raw_double2(double2* a, const double2* b, const double2* c, double s, long n2) {
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n2) {
    double2 x = b[i], y = c[i];
    a[i] = make_double2(x.x + s * y.x, x.y + s * y.y);
  }
}

__global__ void empty_kernel() {}

template <class F>
double best_ms(F&& f) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best = 1e30f;
  for (int r = 0; r < 20; ++r) {
    cudaEventRecord(start);
    f();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (r > 0 && ms < best) best = ms;
  }
  return best;
}

template <class F>
double best_wall_us(F&& f) {
  double best = 1e30;
  for (int r = 0; r < 300; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    auto t1 = std::chrono::steady_clock::now();
    const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    if (r > 10 && us < best) best = us;
  }
  return best;
}

template <class I, class V>
void kpc_stride(const V& va, const V& vb, const V& vc, double s, I n, I threads) {
  Kokkos::parallel_for("kpc", Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<I>>(0, threads),
                       KOKKOS_LAMBDA(const I t) {
                         for (I i = t; i < n; i += threads) va(i) = vb(i) + s * vc(i);
                       });
}

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    std::printf("SMs %d, threads per SM %d\n", sms, per_sm);
    const long big = 100000000;
    double *a, *b, *c;
    cudaMalloc(&a, big * 8);
    cudaMalloc(&b, big * 8);
    cudaMalloc(&c, big * 8);
    cudaMemset(a, 0, big * 8);
    cudaMemset(b, 0, big * 8);
    cudaMemset(c, 0, big * 8);
    const double s = 3.0;
    for (long n : {1000000L, 10000000L, 100000000L}) {
      auto report = [&](const char* what, double ms, double bytes_per_element = 24.0) {
        std::printf("n=%-10ld %-48s %9.2f us  %.2f TB/s\n", n, what, ms * 1e3, bytes_per_element * n / (ms * 1e-3) / 1e12);
      };
      report("cudaMemcpy device to device (16 B/elem)", best_ms([&] { cudaMemcpyAsync(a, b, n * 8, cudaMemcpyDeviceToDevice); }), 16.0);
      report("raw grid-stride 256 x SMs*32, int64", best_ms([&] { raw_stride<long><<<sms * 32, 256>>>(a, b, c, s, n); }));
      report("raw grid-stride 256 x SMs*32, int32", best_ms([&] { raw_stride<int><<<sms * 32, 256>>>(a, b, c, s, (int)n); }));
      report("raw flat 128, int32 (CuPy-like)", best_ms([&] { raw_flat<int><<<(n + 127) / 128, 128>>>(a, b, c, s, (int)n); }));
      report("raw flat 256, int64", best_ms([&] { raw_flat<long><<<(n + 255) / 256, 256>>>(a, b, c, s, n); }));
      report("raw flat 512, int32", best_ms([&] { raw_flat<int><<<(n + 511) / 512, 512>>>(a, b, c, s, (int)n); }));
      report("raw double2 256", best_ms([&] {
        raw_double2<<<(n / 2 + 255) / 256, 256>>>((double2*)a, (const double2*)b, (const double2*)c, s, n / 2);
      }));
      uview<Kokkos::CudaUVMSpace> va(a, n), vb(b, n), vc(c, n);
      report("Kokkos RangePolicy int64", best_ms([&] {
        Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, n),
                             KOKKOS_LAMBDA(const int64_t i) { va(i) = vb(i) + s * vc(i); });
      }));
      report("Kokkos RangePolicy int32", best_ms([&] {
        Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int>>(0, (int)n),
                             KOKKOS_LAMBDA(const int i) { va(i) = vb(i) + s * vc(i); });
      }));
      report("Kokkos RangePolicy int32 LaunchBounds<128>", best_ms([&] {
        Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int>, Kokkos::LaunchBounds<128, 1>>(0, (int)n),
                             KOKKOS_LAMBDA(const int i) { va(i) = vb(i) + s * vc(i); });
      }));
      for (int waves : {1, 2, 4, 8}) {
        const long threads = std::min<long>(n, (long)sms * per_sm * waves);
        char label[96];
        std::snprintf(label, sizeof label, "kpc grid-stride int64, %d x resident", waves);
        report(label, best_ms([&] { kpc_stride<int64_t>(va, vb, vc, s, n, threads); }));
        std::snprintf(label, sizeof label, "kpc grid-stride int32, %d x resident", waves);
        report(label, best_ms([&] { kpc_stride<int>(va, vb, vc, s, (int)n, (int)threads); }));
      }
    }
    // Fixed costs of a call (wall clock, best of 300).
    uview<Kokkos::CudaUVMSpace> va(a, 1000), vb(b, 1000), vc(c, 1000);
    std::printf("launch+fence, Kokkos parallel_for n=1000:   %.2f us\n", best_wall_us([&] {
      Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, 1000),
                           KOKKOS_LAMBDA(const int64_t i) { va(i) = vb(i) + s * vc(i); });
      Kokkos::fence();
    }));
    std::printf("launch+instance fence, Kokkos n=1000:       %.2f us\n", best_wall_us([&] {
      Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, 1000),
                           KOKKOS_LAMBDA(const int64_t i) { va(i) = vb(i) + s * vc(i); });
      Kokkos::Cuda().fence();
    }));
    std::printf("launch only, Kokkos n=1000:                 %.2f us\n", best_wall_us([&] {
      Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, 1000),
                           KOKKOS_LAMBDA(const int64_t i) { va(i) = vb(i) + s * vc(i); });
    }));
    Kokkos::fence();
    std::printf("raw launch+cudaDeviceSynchronize:           %.2f us\n",
                best_wall_us([&] { empty_kernel<<<1, 32>>>(); cudaDeviceSynchronize(); }));
    std::printf("Kokkos::fence() alone:                      %.2f us\n", best_wall_us([&] { Kokkos::fence(); }));
    std::printf("Kokkos::Cuda().fence() alone:               %.2f us\n", best_wall_us([&] { Kokkos::Cuda().fence(); }));
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  Kokkos::finalize();
  return 0;
}
