// The NEON kernels (arm64, where NEON is part of every CPU): a 6x16 micro-kernel (24 of the 32
// Q registers accumulate, four hold a row of B), flash tiles of 48x48, exp on 4 lanes, and the
// peak loop: 24 independent 4-lane FMA chains (enough for four FMA units of latency 4, as on
// Apple's cores; two-unit cores need 8).
#if defined(__aarch64__)
#include <arm_neon.h>

#include <algorithm>
#include <limits>

#include "fast/kernels.h"
#include "fast/simd_exp.h"

namespace attn {

namespace {

constexpr int MR = 6, NV = 4, NR = 4 * NV;

void micro_kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc,
                  Start start, const float* v) {
  float32x4_t acc[MR][NV];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) {
      const float* cr = c + r * ldc + 4 * h;
      acc[r][h] = start == Start::C         ? vld1q_f32(cr)
                  : start == Start::ScaledC ? vmulq_n_f32(vld1q_f32(cr), v[r])
                  : start == Start::Bias    ? vld1q_f32(v + 4 * h)
                                            : vdupq_n_f32(0.0f);
    }
  const float* rows[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) rows[r] = a + r * rs;
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p, b += NR) {
    float32x4_t bv[NV];
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) bv[h] = vld1q_f32(b + 4 * h);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const float x = rows[r][p * ks];
#pragma GCC unroll 4
      for (int h = 0; h < NV; ++h) acc[r][h] = vfmaq_n_f32(acc[r][h], bv[h], x);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int h = 0; h < NV; ++h) vst1q_f32(c + r * ldc + 4 * h, acc[r][h]);
}

void online_softmax(float* st, int64_t br, int64_t bc, float* m, float* l, float* alpha) {
  for (int64_t c = 0; c < br; c += 4) {
    const float32x4_t m_old = vld1q_f32(m + c);
    float32x4_t m_new = m_old;
    for (int64_t j = 0; j < bc; ++j) m_new = vmaxq_f32(m_new, vld1q_f32(st + j * br + c));
    float32x4_t sum = vdupq_n_f32(0.0f);
    for (int64_t j = 0; j < bc; ++j) {
      const float32x4_t p = exp_neon(vsubq_f32(vld1q_f32(st + j * br + c), m_new));
      vst1q_f32(st + j * br + c, p);
      sum = vaddq_f32(sum, p);
    }
    const float32x4_t a = exp_neon(vsubq_f32(m_old, m_new));  // m_old = -inf at the first tile: 0
    vst1q_f32(alpha + c, a);
    vst1q_f32(l + c, vfmaq_f32(sum, vld1q_f32(l + c), a));
    vst1q_f32(m + c, m_new);
  }
}

void softmax_row(const float* in, float* out, int64_t n, float scale) {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  const int64_t full = n / 4 * 4;
  float32x4_t mx = vdupq_n_f32(minus_inf);
  for (int64_t j = 0; j < full; j += 4) mx = vmaxq_f32(mx, vld1q_f32(in + j));
  float m = vmaxvq_f32(mx);
  for (int64_t j = full; j < n; ++j) m = std::max(m, in[j]);
  const float32x4_t vs = vdupq_n_f32(scale), vms = vdupq_n_f32(m * scale);
  float32x4_t sum = vdupq_n_f32(0.0f);
  for (int64_t j = 0; j < full; j += 4) {  // exp(x·scale − max·scale)
    const float32x4_t e = exp_neon(vsubq_f32(vmulq_f32(vld1q_f32(in + j), vs), vms));
    vst1q_f32(out + j, e);
    sum = vaddq_f32(sum, e);
  }
  if (full < n) {  // the tail through one padded vector
    float tail[4];
    for (int64_t j = 0; j < 4; ++j) tail[j] = full + j < n ? in[full + j] : minus_inf;
    const float32x4_t e = exp_neon(vsubq_f32(vmulq_f32(vld1q_f32(tail), vs), vms));
    vst1q_f32(tail, e);
    sum = vaddq_f32(sum, e);
    for (int64_t j = full; j < n; ++j) out[j] = tail[j - full];
  }
  const float inv = 1.0f / vaddvq_f32(sum);
  for (int64_t j = 0; j < full; j += 4) vst1q_f32(out + j, vmulq_n_f32(vld1q_f32(out + j), inv));
  for (int64_t j = full; j < n; ++j) out[j] *= inv;
}

constexpr int kChains = 24;
float fma_loop(long n) {
  const float32x4_t mul = vdupq_n_f32(0.999999f), add = vdupq_n_f32(1e-6f);  // fixed point 1: no denormals
  float32x4_t acc[kChains];
#pragma GCC unroll 24
  for (int j = 0; j < kChains; ++j) acc[j] = vdupq_n_f32(1.0f + 0.01f * j);
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 24
    for (int j = 0; j < kChains; ++j) acc[j] = vfmaq_f32(add, acc[j], mul);
  }
  float32x4_t s = acc[0];
#pragma GCC unroll 24
  for (int j = 1; j < kChains; ++j) s = vaddq_f32(s, acc[j]);
  return vaddvq_f32(s);
}

}  // namespace

const KernelSet& neon_kernels() {
  static const KernelSet k{Isa::Neon, MR, NR, 384, 120, 2304, micro_kernel, 48, 48, online_softmax,
                           softmax_row, fma_loop, 2.0 * 4 * kChains, "24 independent 4-lane FMAs"};
  return k;
}

}  // namespace attn
#endif
