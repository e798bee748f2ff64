// The AVX2+FMA kernels (x86-64): a 6x16 micro-kernel (12 YMM accumulators), flash tiles of 48x48,
// exp on 8 lanes. Compiled per function with target("avx2,fma") and chosen at run time, so the
// build runs on any x86-64.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <limits>

#define ATTN_AVX2 __attribute__((target("avx2,fma")))
#define ATTN_SIMD_TARGET ATTN_AVX2

#include "fast/kernels.h"
#include "fast/simd_kernels.h"

namespace attn {

namespace {

// The vector traits of fast/simd_kernels.h: 8 lanes of __m256.
struct Avx2 {
  using reg = __m256;
  using mask = __m256;
  static constexpr int lanes = 8;
  static ATTN_AVX2 reg set1(float x) { return _mm256_set1_ps(x); }
  static ATTN_AVX2 reg max(reg a, reg b) { return _mm256_max_ps(a, b); }
  static ATTN_AVX2 reg min(reg a, reg b) { return _mm256_min_ps(a, b); }
  static ATTN_AVX2 reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
  static ATTN_AVX2 reg round(reg v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static ATTN_AVX2 reg pow2(reg n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
  }
  // NaN lanes are kept (and stay NaN), as _CMP_LT_OQ's complement does
  static ATTN_AVX2 mask at_least(reg x, reg lo) { return _mm256_cmp_ps(x, lo, _CMP_NLT_UQ); }
  static ATTN_AVX2 reg keep(mask m, reg v) { return _mm256_and_ps(m, v); }
  static ATTN_AVX2 float reduce_add(reg v) {  // lane 0 first, one after the other
    float total = 0;
    for (float x : lanes_of<Avx2>(v).v) total += x;
    return total;
  }
  static ATTN_AVX2 float reduce_max(reg v) {
    float m = -std::numeric_limits<float>::infinity();
    for (float x : lanes_of<Avx2>(v).v) m = std::max(m, x);
    return m;
  }
};

constexpr int64_t MR = 6, NR = 16;

// A(r, p) at a[r*rs + p*ks]: six row pointers, each stepped by ks (rows in place: rs = lda, ks = 1).
ATTN_AVX2 void micro_kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc,
                            Start start, const float* v) {
  __m256 acc[MR][2];
  for (int r = 0; r < MR; ++r)  // C's rows are needed at the end: start fetching them now
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + NR - 1), _MM_HINT_T0);
  for (int r = 0; r < MR; ++r)
    for (int h = 0; h < 2; ++h) {
      const float* cr = c + r * ldc + 8 * h;
      acc[r][h] = start == Start::C         ? _mm256_loadu_ps(cr)
                  : start == Start::ScaledC ? _mm256_mul_ps(_mm256_broadcast_ss(v + r), _mm256_loadu_ps(cr))
                  : start == Start::Bias    ? _mm256_loadu_ps(v + 8 * h)
                                            : _mm256_setzero_ps();
    }
  const float *a0 = a, *a1 = a + rs, *a2 = a + 2 * rs, *a3 = a + 3 * rs, *a4 = a + 4 * rs, *a5 = a + 5 * rs;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p, a0 += ks, a1 += ks, a2 += ks, a3 += ks, a4 += ks, a5 += ks, b += NR) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    __m256 x = _mm256_broadcast_ss(a0);
    acc[0][0] = _mm256_fmadd_ps(x, b0, acc[0][0]), acc[0][1] = _mm256_fmadd_ps(x, b1, acc[0][1]);
    x = _mm256_broadcast_ss(a1);
    acc[1][0] = _mm256_fmadd_ps(x, b0, acc[1][0]), acc[1][1] = _mm256_fmadd_ps(x, b1, acc[1][1]);
    x = _mm256_broadcast_ss(a2);
    acc[2][0] = _mm256_fmadd_ps(x, b0, acc[2][0]), acc[2][1] = _mm256_fmadd_ps(x, b1, acc[2][1]);
    x = _mm256_broadcast_ss(a3);
    acc[3][0] = _mm256_fmadd_ps(x, b0, acc[3][0]), acc[3][1] = _mm256_fmadd_ps(x, b1, acc[3][1]);
    x = _mm256_broadcast_ss(a4);
    acc[4][0] = _mm256_fmadd_ps(x, b0, acc[4][0]), acc[4][1] = _mm256_fmadd_ps(x, b1, acc[4][1]);
    x = _mm256_broadcast_ss(a5);
    acc[5][0] = _mm256_fmadd_ps(x, b0, acc[5][0]), acc[5][1] = _mm256_fmadd_ps(x, b1, acc[5][1]);
  }
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_ps(c + r * ldc, acc[r][0]);
    _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
  }
}

}  // namespace

// The peak loop: 12 independent 8-lane FMA chains: latency 4 x 2 FMA units = 8 in flight at least; 12 of
// the 16 YMM registers, the rest for the constants.
const KernelSet& avx2_kernels() {
  return simd_kernel_set<Avx2, 1, 12>(Isa::Avx2Fma, MR, NR, {384, 120, 2304}, micro_kernel, 48,
                                      "12 independent 8-lane FMAs");
}

}  // namespace attn
#endif
