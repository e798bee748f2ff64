// An FMA loop independent of attn-tutor's kernels, to check the peak `attn-tutor bench` states:
// GCC/clang vector extensions (no intrinsics), compiled with -ffp-contract=fast so `a * b + c`
// becomes one FMA, independent chains of the widest vector the machine has (x86-64: 24 x 16 lanes
// with AVX-512, and 12 x 8 with AVX2+FMA; arm64: 24 x 4), one thread, best of 15 trials of 0.1 s.
// Not a test: `make fma-check` or ./build/attn_fma_check.
#include <chrono>
#include <cstdio>

namespace {

template <int Lanes>
struct Vec {
  typedef float type __attribute__((vector_size(4 * Lanes)));
};

// n iterations of CHAINS independent FMAs on LANES-wide vectors.
#define FMA_LOOP(NAME, LANES, CHAINS, TARGET)                                                    \
  TARGET float NAME(long n) {                                                                    \
    typedef Vec<LANES>::type V;                                                                  \
    V acc[CHAINS];                                                                               \
    _Pragma("GCC unroll 24") for (int j = 0; j < CHAINS; ++j) acc[j] = V{} + (1.0f + 0.01f * j); \
    const V mul = V{} + 0.999999f, add = V{} + 1e-6f;                                            \
    for (long i = 0; i < n; ++i) {                                                               \
      _Pragma("GCC unroll 24") for (int j = 0; j < CHAINS; ++j) acc[j] = acc[j] * mul + add;     \
    }                                                                                            \
    V s = acc[0];                                                                                \
    _Pragma("GCC unroll 24") for (int j = 1; j < CHAINS; ++j) s += acc[j];                       \
    return s[0];                                                                                 \
  }

#if defined(__x86_64__)
FMA_LOOP(loop16, 16, 24, __attribute__((target("avx512f"))))
FMA_LOOP(loop8, 8, 12, __attribute__((target("avx2,fma"))))
#elif defined(__aarch64__)
FMA_LOOP(loop4, 4, 24, )
#endif

double best_gflops(float (*loop)(long), int lanes, int chains) {
  using clock = std::chrono::steady_clock;
  long n = 1000;
  volatile float sink = 0;
  for (;;) {  // about 0.1 s per trial
    const auto t0 = clock::now();
    sink = sink + loop(n);
    if (std::chrono::duration<double>(clock::now() - t0).count() > 0.1) break;
    n *= 2;
  }
  double best = 0;
  for (int t = 0; t < 15; ++t) {
    const auto t0 = clock::now();
    sink = sink + loop(n);
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    const double g = 2.0 * lanes * chains * n / s / 1e9;
    if (g > best) best = g;
  }
  return best;
}

}  // namespace

int main() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    std::printf("independent FMA loop, 1 thread, AVX-512 (24 x 16 lanes): %.1f GFLOP/s\n", best_gflops(loop16, 16, 24));
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    std::printf("independent FMA loop, 1 thread, AVX2+FMA (12 x 8 lanes): %.1f GFLOP/s\n", best_gflops(loop8, 8, 12));
  }
#elif defined(__aarch64__)
  std::printf("independent FMA loop, 1 thread, NEON (24 x 4 lanes): %.1f GFLOP/s\n", best_gflops(loop4, 4, 24));
#else
  std::printf("no vector FMA loop for this architecture\n");
#endif
  return 0;
}
