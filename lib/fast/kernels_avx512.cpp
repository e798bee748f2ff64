// The AVX-512 kernels (x86-64 with AVX512F): an 8x32 micro-kernel (16 ZMM accumulators, two
// 16-lane columns of B, A broadcast from memory), flash tiles of 64 queries x 64 keys, exp on 16
// lanes, and the peak loop: 16 independent 16-lane FMA chains, enough for two FMA units of
// latency 4 with room to spare. Compiled per function with target("avx512f,...") and chosen at
// run time, so the build runs on any x86-64.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <limits>

#define ATTN_AVX512 __attribute__((target("avx512f,avx2,fma")))
#define ATTN_SIMD_TARGET ATTN_AVX512

#include "fast/kernels.h"
#include "fast/simd_kernels.h"

// GCC 12 warns inside its own avx512fintrin.h (the _mm512_undefined_ps() of the unmasked forms).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace attn {

namespace {

constexpr int MR = 8, NV = 2, NR = 16 * NV;

// The vector traits of fast/simd_kernels.h: 16 lanes of __m512.
struct Avx512 {
  using reg = __m512;
  using mask = __mmask16;
  static constexpr int lanes = 16;
  static ATTN_AVX512 reg set1(float x) { return _mm512_set1_ps(x); }
  static ATTN_AVX512 reg max(reg a, reg b) { return _mm512_max_ps(a, b); }
  static ATTN_AVX512 reg min(reg a, reg b) { return _mm512_min_ps(a, b); }
  static ATTN_AVX512 reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
  static ATTN_AVX512 reg round(reg v) { return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static ATTN_AVX512 reg pow2(reg n) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
  }
  static ATTN_AVX512 mask at_least(reg x, reg lo) { return _mm512_cmp_ps_mask(x, lo, _CMP_GE_OQ); }
  static ATTN_AVX512 reg keep(mask m, reg v) { return _mm512_maskz_mov_ps(m, v); }
  static ATTN_AVX512 float reduce_add(reg v) { return _mm512_reduce_add_ps(v); }
  static ATTN_AVX512 float reduce_max(reg v) { return _mm512_reduce_max_ps(v); }
};

// kPacked: A(r, p) at a[r + p*ks] (packed strips, flash's P^T); else at a[r*rs + p] (rows in place).
template <bool kPacked>
ATTN_AVX512 void kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc,
                        Start start, const float* v) {
  __m512 acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 2
    for (int h = 0; h < NV; ++h) {
      const float* cr = c + r * ldc + 16 * h;
      acc[r][h] = start == Start::C         ? _mm512_loadu_ps(cr)
                  : start == Start::ScaledC ? _mm512_mul_ps(_mm512_set1_ps(v[r]), _mm512_loadu_ps(cr))
                  : start == Start::Bias    ? _mm512_loadu_ps(v + 16 * h)
                                            : _mm512_setzero_ps();
    }
  if (kPacked) {
#pragma GCC unroll 4
    for (int64_t p = 0; p < kc; ++p, a += ks, b += NR) {
      const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const __m512 x = _mm512_set1_ps(a[r]);
        acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
      }
    }
  } else {
    const float* rows[MR];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) rows[r] = a + r * rs;
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p, b += NR) {
      const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 8
      for (int r = 0; r < MR; ++r) {
        const __m512 x = _mm512_set1_ps(rows[r][p]);
        acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    _mm512_storeu_ps(c + r * ldc, acc[r][0]);
    _mm512_storeu_ps(c + r * ldc + 16, acc[r][1]);
  }
}

ATTN_AVX512 void micro_kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c,
                              int64_t ldc, Start start, const float* v) {
  if (rs == 1) kernel<true>(kc, a, rs, ks, b, c, ldc, start, v);
  else kernel<false>(kc, a, rs, ks, b, c, ldc, start, v);
}

}  // namespace

const KernelSet& avx512_kernels() {
  return simd_kernel_set<Avx512, 2, 16>(Isa::Avx512, MR, NR, {256, 128, 2304},
                                        micro_kernel, 64, "16 independent 16-lane FMAs");
}

}  // namespace attn
#endif
