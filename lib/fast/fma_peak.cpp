#include "fast/fma_peak.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "fast/fast_gemm.h"

namespace attn {

namespace {

constexpr int kAccumulators = 12;  // FMA latency 4 cycles x 2 ports = 8 in flight; 12 is enough

// n iterations of 12 independent 8-lane FMAs: 12 * 8 * 2 flops each. Returns a value to keep.
__attribute__((target("avx2,fma"))) float fma_loop_avx2(long n) {
  const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-6f);  // fixed point 1: no denormals
  __m256 acc[kAccumulators];
  for (int j = 0; j < kAccumulators; ++j) acc[j] = _mm256_set1_ps(1.0f + 0.01f * j);
  for (long i = 0; i < n; ++i)
    for (int j = 0; j < kAccumulators; ++j) acc[j] = _mm256_fmadd_ps(acc[j], mul, add);
  __m256 s = acc[0];
  for (int j = 1; j < kAccumulators; ++j) s = _mm256_add_ps(s, acc[j]);
  alignas(32) float out[8];
  _mm256_store_ps(out, s);
  return out[0];
}

// Without AVX2/FMA: the portable kernels' own peak, a multiply and an add per lane.
float fma_loop_portable(long n) {
  float acc[kAccumulators * 8];
  for (int j = 0; j < kAccumulators * 8; ++j) acc[j] = 1.0f + 0.001f * j;
  for (long i = 0; i < n; ++i)
    for (int j = 0; j < kAccumulators * 8; ++j) acc[j] = acc[j] * 0.999999f + 1e-6f;
  float s = 0;
  for (float a : acc) s += a;
  return s;
}

double flops_per_iteration() { return kAccumulators * 8 * 2; }

}  // namespace

FmaPeak::FmaPeak(int threads) : threads_(std::max(1, threads)) {}

void FmaPeak::measure(int trials, double trial_ms) {
  using clock = std::chrono::steady_clock;
  const bool avx = kernel_path() == KernelPath::Avx2Fma;
  auto loop = [avx](long n) { return avx ? fma_loop_avx2(n) : fma_loop_portable(n); };
  volatile float sink = 0;
  if (iterations_ == 0) {  // calibrate on one thread: a trial lasts about trial_ms
    long n = 1 << 12;
    for (;;) {
      const auto t0 = clock::now();
      sink = sink + loop(n);
      const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
      if (ms > trial_ms / 8 || n > (1L << 34)) {
        iterations_ = std::max(1L, static_cast<long>(n * trial_ms / std::max(ms, 1e-3)));
        break;
      }
      n *= 4;
    }
  }
  const long n = iterations_;
  for (int t = 0; t < trials; ++t) {
    std::vector<float> keep(threads_);
    int team = 1;  // the threads OpenMP really started
    const auto t0 = clock::now();
#pragma omp parallel num_threads(threads_)
    {
      if (omp_get_thread_num() == 0) team = omp_get_num_threads();
      keep[omp_get_thread_num()] = loop(n);
    }
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    for (float v : keep) sink = sink + v;  // keeps the loops alive
    best_ = std::max(best_, team * n * flops_per_iteration() / s / 1e9);
    ++trials_;
  }
}

double FmaPeak::gflops() const { return best_; }

}  // namespace attn
