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
  static constexpr bool has_scale2 = true, adds_c_last = true;
  static ATTN_AVX512 reg scale2(reg p, reg n) { return _mm512_scalef_ps(p, n); }  // p · 2^n, 0 when it underflows
  static ATTN_AVX512 mask at_least(reg x, reg lo) { return _mm512_cmp_ps_mask(x, lo, _CMP_GE_OQ); }
  static ATTN_AVX512 reg keep(mask m, reg v) { return _mm512_maskz_mov_ps(m, v); }
  static ATTN_AVX512 float reduce_add(reg v) { return _mm512_reduce_add_ps(v); }
  static ATTN_AVX512 float reduce_max(reg v) { return _mm512_reduce_max_ps(v); }
};

const KernelSet& avx512_kernels() { return simd_kernel_set<Isa::Avx512, Avx512>(); }

}  // namespace attn
#endif
