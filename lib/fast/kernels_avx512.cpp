// The AVX-512 kernels (x86-64 with AVX512F): an 8x32 micro-kernel (16 ZMM accumulators, two
// 16-lane columns of B, A broadcast from memory), flash tiles of 64 queries x 64 keys, exp on 16
// lanes, and the peak loop: 16 independent 16-lane FMA chains, enough for two FMA units of
// latency 4 with room to spare. Compiled per function with target("avx512f,...") and chosen at
// run time, so the build runs on any x86-64.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <limits>

#include "fast/kernels.h"
#include "fast/simd_exp.h"

#define ATTN_AVX512 __attribute__((target("avx512f,avx2,fma")))

// GCC 12 warns inside its own avx512fintrin.h (the _mm512_undefined_ps() of the unmasked forms).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace attn {

namespace {

constexpr int MR = 8, NV = 2, NR = 16 * NV;

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

ATTN_AVX512 void online_softmax(float* st, int64_t br, int64_t bc, float* m, float* l, float* alpha) {
  for (int64_t c = 0; c < br; c += 16) {
    const __m512 m_old = _mm512_loadu_ps(m + c);
    __m512 m_new = m_old;
    for (int64_t j = 0; j < bc; ++j) m_new = _mm512_max_ps(m_new, _mm512_loadu_ps(st + j * br + c));
    __m512 sum0 = _mm512_setzero_ps(), sum1 = _mm512_setzero_ps();
    int64_t j = 0;
    for (; j + 1 < bc; j += 2) {  // two exps at once: their latency overlaps
      const __m512 p0 = exp512(_mm512_sub_ps(_mm512_loadu_ps(st + j * br + c), m_new));
      const __m512 p1 = exp512(_mm512_sub_ps(_mm512_loadu_ps(st + (j + 1) * br + c), m_new));
      _mm512_storeu_ps(st + j * br + c, p0);
      _mm512_storeu_ps(st + (j + 1) * br + c, p1);
      sum0 = _mm512_add_ps(sum0, p0);
      sum1 = _mm512_add_ps(sum1, p1);
    }
    for (; j < bc; ++j) {
      const __m512 p = exp512(_mm512_sub_ps(_mm512_loadu_ps(st + j * br + c), m_new));
      _mm512_storeu_ps(st + j * br + c, p);
      sum0 = _mm512_add_ps(sum0, p);
    }
    const __m512 a = exp512(_mm512_sub_ps(m_old, m_new));  // m_old = -inf at the first tile: 0
    _mm512_storeu_ps(alpha + c, a);
    _mm512_storeu_ps(l + c, _mm512_fmadd_ps(_mm512_loadu_ps(l + c), a, _mm512_add_ps(sum0, sum1)));
    _mm512_storeu_ps(m + c, m_new);
  }
}

ATTN_AVX512 void softmax_row(const float* in, float* out, int64_t n, float scale) {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  const int64_t full = n / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (n - full)) - 1);
  __m512 mx = _mm512_set1_ps(minus_inf);
  for (int64_t j = 0; j < full; j += 16) mx = _mm512_max_ps(mx, _mm512_loadu_ps(in + j));
  if (tail) mx = _mm512_max_ps(mx, _mm512_mask_loadu_ps(_mm512_set1_ps(minus_inf), tail, in + full));
  const float m = _mm512_reduce_max_ps(mx);
  const __m512 vs = _mm512_set1_ps(scale), vms = _mm512_set1_ps(m * scale);
  __m512 sum = _mm512_setzero_ps();
  for (int64_t j = 0; j < full; j += 16) {  // exp(x·scale − max·scale)
    const __m512 e = exp512(_mm512_sub_ps(_mm512_mul_ps(_mm512_loadu_ps(in + j), vs), vms));
    _mm512_storeu_ps(out + j, e);
    sum = _mm512_add_ps(sum, e);
  }
  if (tail) {
    const __m512 x = _mm512_mask_loadu_ps(_mm512_set1_ps(minus_inf), tail, in + full);
    const __m512 e = exp512(_mm512_sub_ps(_mm512_mul_ps(x, vs), vms));  // -inf lanes: 0
    _mm512_mask_storeu_ps(out + full, tail, e);
    sum = _mm512_add_ps(sum, e);
  }
  const __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
  for (int64_t j = 0; j < full; j += 16) _mm512_storeu_ps(out + j, _mm512_mul_ps(_mm512_loadu_ps(out + j), inv));
  if (tail) _mm512_mask_storeu_ps(out + full, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, out + full), inv));
}

constexpr int kChains = 16;
ATTN_AVX512 float fma_loop(long n) {
  const __m512 mul = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-6f);  // fixed point 1: no denormals
  __m512 acc[kChains];
#pragma GCC unroll 16
  for (int j = 0; j < kChains; ++j) acc[j] = _mm512_set1_ps(1.0f + 0.01f * j);
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_fmadd_ps(acc[j], mul, add);
  }
  __m512 s = acc[0];
#pragma GCC unroll 16
  for (int j = 1; j < kChains; ++j) s = _mm512_add_ps(s, acc[j]);
  return _mm512_reduce_add_ps(s);
}

}  // namespace

const KernelSet& avx512_kernels() {
  static const KernelSet k{Isa::Avx512, MR, NR, 256, 128, 2304, micro_kernel, 64, 64, online_softmax,
                           softmax_row, fma_loop, 2.0 * 16 * kChains, "16 independent 16-lane FMAs"};
  return k;
}

}  // namespace attn
#endif
