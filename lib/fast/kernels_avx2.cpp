// The AVX2+FMA kernels (x86-64): a 6x16 micro-kernel (12 YMM accumulators), flash tiles of 48x48,
// exp on 8 lanes. Compiled per function with target("avx2,fma") and chosen at run time, so the
// build runs on any x86-64.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "fast/kernels.h"
#include "fast/simd_exp.h"

#define ATTN_AVX2 __attribute__((target("avx2,fma")))

namespace attn {

namespace {

constexpr int64_t MR = 6, NR = 16;

// A(r, p) at a[r*rs + p*ks]: six row pointers, each stepped by ks (rows in place: rs = lda, ks = 1).
ATTN_AVX2 void micro_kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c,
                            int64_t ldc, Start start, const float* v) {
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

ATTN_AVX2 void online_softmax(float* st, int64_t br, int64_t bc, float* m, float* l, float* alpha) {
  for (int64_t c = 0; c < br; c += 8) {
    const __m256 m_old = _mm256_loadu_ps(m + c);
    __m256 m_new = m_old;
    for (int64_t j = 0; j < bc; ++j) m_new = _mm256_max_ps(m_new, _mm256_loadu_ps(st + j * br + c));
    __m256 sum = _mm256_setzero_ps();
    for (int64_t j = 0; j < bc; ++j) {
      const __m256 p = exp256(_mm256_sub_ps(_mm256_loadu_ps(st + j * br + c), m_new));
      _mm256_storeu_ps(st + j * br + c, p);
      sum = _mm256_add_ps(sum, p);
    }
    const __m256 a = exp256(_mm256_sub_ps(m_old, m_new));  // m_old = -inf at the first tile: 0
    _mm256_storeu_ps(alpha + c, a);
    _mm256_storeu_ps(l + c, _mm256_fmadd_ps(_mm256_loadu_ps(l + c), a, sum));
    _mm256_storeu_ps(m + c, m_new);
  }
}

ATTN_AVX2 void softmax_row(const float* in, float* out, int64_t n, float scale) {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  const int64_t full = n / 8 * 8;
  __m256 mx = _mm256_set1_ps(minus_inf);
  for (int64_t j = 0; j < full; j += 8) mx = _mm256_max_ps(mx, _mm256_loadu_ps(in + j));
  float m = minus_inf;
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, mx);
  for (float x : lanes) m = std::max(m, x);
  for (int64_t j = full; j < n; ++j) m = std::max(m, in[j]);
  const __m256 vs = _mm256_set1_ps(scale), vms = _mm256_set1_ps(m * scale);
  __m256 sum = _mm256_setzero_ps();
  for (int64_t j = 0; j < full; j += 8) {  // exp(x·scale − max·scale)
    const __m256 e = exp256(_mm256_sub_ps(_mm256_mul_ps(_mm256_loadu_ps(in + j), vs), vms));
    _mm256_storeu_ps(out + j, e);
    sum = _mm256_add_ps(sum, e);
  }
  if (full < n) {  // the tail through one padded vector
    alignas(32) float tail[8];
    for (int64_t j = 0; j < 8; ++j) tail[j] = full + j < n ? in[full + j] : minus_inf;
    const __m256 e = exp256(_mm256_sub_ps(_mm256_mul_ps(_mm256_load_ps(tail), vs), vms));
    _mm256_store_ps(tail, e);
    sum = _mm256_add_ps(sum, e);
    std::memcpy(out + full, tail, sizeof(float) * (n - full));
  }
  _mm256_store_ps(lanes, sum);
  float total = 0;
  for (float x : lanes) total += x;
  const __m256 inv = _mm256_set1_ps(1.0f / total);
  for (int64_t j = 0; j < full; j += 8) _mm256_storeu_ps(out + j, _mm256_mul_ps(_mm256_loadu_ps(out + j), inv));
  for (int64_t j = full; j < n; ++j) out[j] *= 1.0f / total;
}

// 12 independent 8-lane FMA chains: latency 4 x 2 FMA units = 8 in flight at least; 12 of the
// 16 YMM registers, the rest for the constants.
constexpr int kChains = 12;
ATTN_AVX2 float fma_loop(long n) {
  const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-6f);  // fixed point 1: no denormals
  __m256 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_ps(1.0f + 0.01f * j);
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], mul, add);
  }
  __m256 s = acc[0];
  for (int j = 1; j < kChains; ++j) s = _mm256_add_ps(s, acc[j]);
  alignas(32) float out[8];
  _mm256_store_ps(out, s);
  return out[0];
}

}  // namespace

const KernelSet& avx2_kernels() {
  static const KernelSet k{Isa::Avx2Fma, MR, NR, 384, 120, 2304, micro_kernel, 48, 48, online_softmax,
                           softmax_row, fma_loop, 2.0 * 8 * kChains, "12 independent 8-lane FMAs"};
  return k;
}

}  // namespace attn
#endif
