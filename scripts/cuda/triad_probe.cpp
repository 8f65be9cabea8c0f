// Probe of STREAM triad forms on a CUDA Kokkos (n = 1e8 doubles, best of 20, cudaEvent timing):
// Kokkos RangePolicy with int64 / int32 index, views typed CudaUVMSpace or CudaSpace over cudaMalloc
// memory, an explicit LaunchBounds, and a plain CUDA grid-stride kernel as the reference.
#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cuda_runtime.h>

template <class Space>
using uview = Kokkos::View<double*, Kokkos::LayoutRight, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

__global__ void raw_triad(double* a, const double* b, const double* c, double s, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x)
    a[i] = b[i] + s * c[i];
}

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

int main(int argc, char* argv[]) {
  Kokkos::initialize(argc, argv);
  {
    const long n = 100000000;
    double *a, *b, *c;
    cudaMalloc(&a, n * 8);
    cudaMalloc(&b, n * 8);
    cudaMalloc(&c, n * 8);
    cudaMemset(b, 0, n * 8);
    cudaMemset(c, 0, n * 8);
    const double s = 3.0;
    auto report = [&](const char* what, double ms) {
      std::printf("%-44s %.3f ms  %.2f TB/s\n", what, ms, 24.0 * n / (ms * 1e-3) / 1e12);
    };
    report("raw CUDA grid-stride 256 x 4*SMs*8", best_ms([&] { raw_triad<<<132 * 32, 256>>>(a, b, c, s, n); }));
    report("raw CUDA one element per thread 256", best_ms([&] { raw_triad<<<(n + 255) / 256, 256>>>(a, b, c, s, n); }));
    {
      uview<Kokkos::CudaUVMSpace> va(a, n), vb(b, n), vc(c, n);
      report("Kokkos int64 index, UVM-typed views", best_ms([&] {
        Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, n),
                             KOKKOS_LAMBDA(const int64_t i) { va(i) = vb(i) + s * vc(i); });
      }));
      report("Kokkos int32 index, UVM-typed views", best_ms([&] {
        Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int>>(0, (int)n),
                             KOKKOS_LAMBDA(const int i) { va(i) = vb(i) + s * vc(i); });
      }));
      report("Kokkos int64, LaunchBounds<256,4>", best_ms([&] {
        Kokkos::parallel_for(
            Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>, Kokkos::LaunchBounds<256, 4>>(0, n),
            KOKKOS_LAMBDA(const int64_t i) { va(i) = vb(i) + s * vc(i); });
      }));
    }
    {
      uview<Kokkos::CudaSpace> va(a, n), vb(b, n), vc(c, n);
      report("Kokkos int64 index, CudaSpace views", best_ms([&] {
        Kokkos::parallel_for(Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>(0, n),
                             KOKKOS_LAMBDA(const int64_t i) { va(i) = vb(i) + s * vc(i); });
      }));
    }
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  Kokkos::finalize();
  return 0;
}
