// The AVX-512 kernels (x86-64 with AVX512F): a 6x64 GEMM micro-kernel (24 ZMM accumulators, four
// 16-lane columns of B, A broadcast from memory: 6 broadcasts and 4 loads feed 24 FMAs), a 4x64 one for
// flash attention's tiles of 64 queries x 64 keys (one 64-query strip of Q, one 64-wide head of V),
// exp on 16 lanes, and the peak loop: 16 independent 16-lane FMA chains, enough for two FMA units of
// latency 4 with room to spare. Compiled per function with target("avx512f,...") and chosen at run
// time, so the build runs on any x86-64.
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

// GEMM: 6 rows x 4 vectors; flash: 4 x 4. A full-width core (two 512-bit FMA units) needs the broadcasts
// few against the FMAs: at 8x32 (8 broadcasts, 2 loads, 16 FMAs) its loop is modelled at 89% of the FMA
// ports, at 6x64 and 4x64 at 99% (docs/performance.md).
constexpr int kGemmMR = 6, kFlashMR = 4, NV = 4, NR = 16 * NV;

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
  static constexpr bool has_scale2 = true;
  static ATTN_AVX512 reg scale2(reg p, reg n) { return _mm512_scalef_ps(p, n); }  // p · 2^n, 0 when it underflows
  static ATTN_AVX512 mask at_least(reg x, reg lo) { return _mm512_cmp_ps_mask(x, lo, _CMP_GE_OQ); }
  static ATTN_AVX512 reg keep(mask m, reg v) { return _mm512_maskz_mov_ps(m, v); }
  static ATTN_AVX512 float reduce_add(reg v) { return _mm512_reduce_add_ps(v); }
  static ATTN_AVX512 float reduce_max(reg v) { return _mm512_reduce_max_ps(v); }
};

// kPacked: A(r, p) at a[r + p*ks] (packed strips, flash's P^T); else at a[r*rs + p] (rows in place).
// C (Start::C, ScaledC) is prefetched at the start and added after the k loop, so its load from L2 or
// memory does not hold up the first FMAs.
template <int MR, bool kPacked>
ATTN_AVX512 void kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc,
                        Start start, const float* v) {
  const bool add_c = start == Start::C || start == Start::ScaledC;
  if (add_c)
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
      for (int h = 0; h < NV; ++h) _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + 16 * h), _MM_HINT_T0);
  __m512 acc[MR][NV];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) acc[r][h] = start == Start::Bias ? _mm512_loadu_ps(v + 16 * h) : _mm512_setzero_ps();
  const float* rows[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) rows[r] = kPacked ? a + r : a + r * rs;
  const int64_t step = kPacked ? ks : 1;
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p, b += NR) {
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) bv[h] = _mm512_loadu_ps(b + 16 * h);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const __m512 x = _mm512_set1_ps(rows[r][p * step]);
#pragma GCC unroll 4
      for (int h = 0; h < NV; ++h) acc[r][h] = _mm512_fmadd_ps(x, bv[h], acc[r][h]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    const __m512 scale = _mm512_set1_ps(start == Start::ScaledC ? v[r] : 1.0f);
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) {
      float* cr = c + r * ldc + 16 * h;
      const __m512 out = add_c ? _mm512_fmadd_ps(scale, _mm512_loadu_ps(cr), acc[r][h]) : acc[r][h];
      _mm512_storeu_ps(cr, out);
    }
  }
}

// The micro-kernel of MR rows: A packed (rs == 1) or in place. The GEMM's is MR = kGemmMR, flash's kFlashMR.
template <int MR>
ATTN_AVX512 void micro_kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc,
                              Start start, const float* v) {
  if (rs == 1)
    kernel<MR, true>(kc, a, rs, ks, b, c, ldc, start, v);
  else
    kernel<MR, false>(kc, a, rs, ks, b, c, ldc, start, v);
}

}  // namespace

const KernelSet& avx512_kernels() {
  return simd_kernel_set<Avx512, 4, 16>(Isa::Avx512, kGemmMR, NR, {768, 144, 2304}, micro_kernel<kGemmMR>, 64,
                                        "16 independent 16-lane FMAs",
                                        FlashKernel{kFlashMR, NR, micro_kernel<kFlashMR>});
}

}  // namespace attn
#endif
