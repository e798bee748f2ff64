// The AVX2+FMA kernels (x86-64): a 6x16 micro-kernel (12 YMM accumulators, two 8-lane vectors of B),
// flash tiles of 48x48, exp on 8 lanes, and the peak loop: 12 independent 8-lane FMA chains (kernels.h). Compiled per function with target("avx2,fma") and chosen at run time, so the
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

const KernelSet& avx2_kernels() { return simd_kernel_set<Isa::Avx2Fma, Avx2>(); }

}  // namespace attn
#endif
