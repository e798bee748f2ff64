// The portable kernels: plain C++ loops, compiled on every architecture and always correct. With
// -ffp-contract=off a multiply and an add stay two roundings; the bench forms only have to agree
// with mha to 1e-5, which they do. The tile sizes match the AVX2 and NEON kernels (6x16, 48x48).
#include <algorithm>
#include <cmath>
#include <limits>

#include "fast/kernels.h"

namespace attn {

namespace {

// Its row of kKernelShapes (kernels.h): a tile of MR x NR single floats.
constexpr KernelShape kShape = kernel_shape(Isa::Portable);
constexpr int64_t MR = kShape.mr, NR = kShape.nv;

void micro_kernel(int64_t kc, const float* a, int64_t rs, int64_t ks, const float* b, float* c, int64_t ldc,
                  Start start, const float* v) {
  float acc[MR][NR];
  for (int64_t r = 0; r < MR; ++r)
    for (int64_t j = 0; j < NR; ++j)
      acc[r][j] = start == Start::C         ? c[r * ldc + j]
                  : start == Start::ScaledC ? v[r] * c[r * ldc + j]
                  : start == Start::Bias    ? v[j]
                                            : 0.0f;
  for (int64_t p = 0; p < kc; ++p, b += NR)
    for (int64_t r = 0; r < MR; ++r) {
      const float x = a[r * rs + p * ks];
      for (int64_t j = 0; j < NR; ++j) acc[r][j] += x * b[j];
    }
  for (int64_t r = 0; r < MR; ++r)
    for (int64_t j = 0; j < NR; ++j) c[r * ldc + j] = acc[r][j];
}

void online_softmax(float* st, int64_t br, int64_t bc, float* m, float* l, float* alpha) {
  for (int64_t c = 0; c < br; ++c) {
    float m_new = m[c];
    for (int64_t j = 0; j < bc; ++j) m_new = std::max(m_new, st[j * br + c]);
    float sum = 0;
    for (int64_t j = 0; j < bc; ++j) sum += st[j * br + c] = std::exp(st[j * br + c] - m_new);
    alpha[c] = std::exp(m[c] - m_new);  // m_old = -inf at the first tile: 0
    l[c] = l[c] * alpha[c] + sum;
    m[c] = m_new;
  }
}

void softmax_row(const float* in, float* out, int64_t n, float scale) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j) m = std::max(m, in[j]);
  float total = 0;
  for (int64_t j = 0; j < n; ++j) total += out[j] = std::exp(in[j] * scale - m * scale);
  for (int64_t j = 0; j < n; ++j) out[j] *= 1.0f / total;
}

// A multiply and an add per lane on 96 independent values (its peak loop's chains): what the portable kernels
// can reach.
constexpr int kValues = kShape.fma_chains;
float fma_loop(long n) {
  float acc[kValues];
  for (int j = 0; j < kValues; ++j) acc[j] = 1.0f + 0.001f * j;
  for (long i = 0; i < n; ++i)
    for (int j = 0; j < kValues; ++j) acc[j] = acc[j] * 0.999999f + 1e-6f;
  float s = 0;
  for (float a : acc) s += a;
  return s;
}

}  // namespace

const KernelSet& portable_kernels() {
  static const KernelSet k{Isa::Portable,
                           MR,
                           NR,
                           kShape.kc,
                           kShape.mc,
                           kShape.nc,
                           micro_kernel,
                           kShape.flash_tile,
                           kShape.flash_tile,
                           online_softmax,
                           softmax_row,
                           fma_loop,
                           2.0 * kValues,
                           "a multiply and an add on 96 independent floats",
                           kValues,
                           1};
  return k;
}

}  // namespace attn
