// For one head of one batch, per query tile i0 (48 queries):
//   Qt    = (Q[i0:i0+48] / sqrt(hd))^T, packed as 3 strips of 16 queries        (hd, 48)
//   m = -inf, l = 0, O = 0                                                       O: (48, hd)
//   for key tiles j0 = 0, 48, ... up to the diagonal:
//     St = K[j0:j0+48] @ Qt        scores transposed: a row per key, a column per query (48, 48)
//     mask keys j > query i with -inf (the diagonal tile only)
//     m_new = max(m, max_j St);  P = exp(St - m_new);  alpha = exp(m - m_new)
//     l = alpha·l + sum_j P;  O = alpha·O + P^T @ V[j0:j0+48]
//   context rows = O / l
// Keeping S transposed makes the softmax statistics per query column-wise: 8 queries per AVX
// register, no horizontal sums; and P^T is read by the micro-kernel in place (row stride 48).
// The context overwrites the queries it came from (each head's Q columns are read only by it).
#include "fast/flash_attention.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "fast/simd_exp.h"

namespace attn {

namespace {

constexpr int64_t BR = kFlashQueryTile, BC = kFlashKeyTile;
static_assert(BR == kGemmFastKS, "P^T's row stride must have a compiled micro-kernel");
static_assert(BR % kGemmNR == 0 && BR % kGemmMR == 0 && BC % kGemmMR == 0, "tiles of whole strips");

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// One thread's tiles.
struct FlashBuffers {
  float* k;      // K packed as A strips: (T_pad / 6) strips of [hd_pad][6]
  float* v;      // V packed as B strips: (hd_pad / 16) strips of [T_pad][16]
  float* qt;     // Qt: 3 strips of [hd_pad][16]
  float* st;     // St (48 keys, 48 queries)
  float* o;      // O (48, hd_pad)
  float* m;      // running max, running sum, rescale factor: 48 each
  float* l;
  float* alpha;
};

// St's column statistics and P = exp(St - m_new) in place; m, l updated, alpha = exp(m_old - m_new).
__attribute__((target("avx2,fma"))) void online_softmax_avx2(float* st, float* m, float* l, float* alpha) {
  for (int64_t c = 0; c < BR; c += 8) {
    const __m256 m_old = _mm256_loadu_ps(m + c);
    __m256 m_new = m_old;
    for (int64_t j = 0; j < BC; ++j) m_new = _mm256_max_ps(m_new, _mm256_loadu_ps(st + j * BR + c));
    __m256 sum = _mm256_setzero_ps();
    for (int64_t j = 0; j < BC; ++j) {
      const __m256 p = exp256(_mm256_sub_ps(_mm256_loadu_ps(st + j * BR + c), m_new));
      _mm256_storeu_ps(st + j * BR + c, p);
      sum = _mm256_add_ps(sum, p);
    }
    const __m256 a = exp256(_mm256_sub_ps(m_old, m_new));  // m_old = -inf at the first tile: 0
    _mm256_storeu_ps(alpha + c, a);
    _mm256_storeu_ps(l + c, _mm256_fmadd_ps(_mm256_loadu_ps(l + c), a, sum));
    _mm256_storeu_ps(m + c, m_new);
  }
}

void online_softmax_portable(float* st, float* m, float* l, float* alpha) {
  for (int64_t c = 0; c < BR; ++c) {
    float m_new = m[c];
    for (int64_t j = 0; j < BC; ++j) m_new = std::max(m_new, st[j * BR + c]);
    float sum = 0;
    for (int64_t j = 0; j < BC; ++j) sum += st[j * BR + c] = std::exp(st[j * BR + c] - m_new);
    alpha[c] = std::exp(m[c] - m_new);
    l[c] = l[c] * alpha[c] + sum;
    m[c] = m_new;
  }
}

// One (batch, head): q, k, v are (T, hd) slices with row stride ld; the context goes into q.
void flash_head(float* q, const float* k, const float* v, int64_t ld, int64_t T, int64_t hd, const FlashBuffers& f) {
  const int64_t hdp = round_up(hd, kGemmNR), Tp = round_up(T, BC);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const float minus_inf = -std::numeric_limits<float>::infinity();
  // Pack K into 6-key strips [p][6] and V into 16-column strips [j][16], zero-padded to (Tp, hdp).
  if (hd < hdp || T < Tp) {
    std::fill(f.k, f.k + Tp * hdp, 0.0f);
    std::fill(f.v, f.v + Tp * hdp, 0.0f);
  }
  for (int64_t j0 = 0; j0 < T; j0 += kGemmMR) {
    float* kd = f.k + j0 * hdp;  // strip j0 / 6
    for (int64_t r = 0; r < kGemmMR && j0 + r < T; ++r) {
      const float* kr = k + (j0 + r) * ld;
      for (int64_t p = 0; p < hd; ++p) kd[p * kGemmMR + r] = kr[p];
    }
  }
  for (int64_t j = 0; j < T; ++j)
    for (int64_t cs = 0; cs * kGemmNR < hd; ++cs)
      std::memcpy(f.v + cs * Tp * kGemmNR + j * kGemmNR, v + j * ld + cs * kGemmNR,
                  sizeof(float) * std::min(kGemmNR, hd - cs * kGemmNR));
  const bool avx = kernel_path() == KernelPath::Avx2Fma;
  for (int64_t i0 = 0; i0 < T; i0 += BR) {
    // Qt: query i0 + c goes to column c % 16 of strip c / 16, scaled by 1/sqrt(hd).
    std::fill(f.qt, f.qt + BR * hdp, 0.0f);
    for (int64_t c = 0; c < BR && i0 + c < T; ++c) {
      float* qd = f.qt + (c / kGemmNR) * hdp * kGemmNR + c % kGemmNR;
      const float* qr = q + (i0 + c) * ld;
      for (int64_t p = 0; p < hd; ++p) qd[p * kGemmNR] = qr[p] * scale;
    }
    std::fill(f.m, f.m + BR, minus_inf);
    std::fill(f.l, f.l + BR, 0.0f);
    std::fill(f.o, f.o + BR * hdp, 0.0f);
    const int64_t last_key = std::min(T, i0 + BR) - 1;
    for (int64_t j0 = 0; j0 <= last_key; j0 += BC) {
      for (int64_t js = 0; js < BC / kGemmMR; ++js)  // St = K_tile @ Qt
        for (int64_t is = 0; is < BR / kGemmNR; ++is)
          micro_kernel_6x16(hdp, f.k + (j0 / kGemmMR + js) * hdp * kGemmMR, kGemmMR, f.qt + is * hdp * kGemmNR,
                            f.st + js * kGemmMR * BR + is * kGemmNR, BR, false);
      if (j0 + BC - 1 > i0)  // the diagonal tile (and keys past T): key j > query i is the future
        for (int64_t j = 0; j < BC; ++j)
          for (int64_t c = 0; c < BR; ++c)
            if (j0 + j > i0 + c || j0 + j >= T) f.st[j * BR + c] = minus_inf;
      if (avx) online_softmax_avx2(f.st, f.m, f.l, f.alpha);
      else online_softmax_portable(f.st, f.m, f.l, f.alpha);
      for (int64_t is = 0; is < BR / kGemmMR; ++is)  // O = alpha·O + P^T @ V_tile
        for (int64_t cs = 0; cs < hdp / kGemmNR; ++cs)
          micro_kernel_6x16(BC, f.st + is * kGemmMR, BR, f.v + cs * Tp * kGemmNR + j0 * kGemmNR,
                            f.o + is * kGemmMR * hdp + cs * kGemmNR, hdp, true, f.alpha + is * kGemmMR);
    }
    for (int64_t c = 0; c < BR && i0 + c < T; ++c) {  // context = O / l, over the queries
      const float inv = 1.0f / f.l[c];
      for (int64_t p = 0; p < hd; ++p) q[(i0 + c) * ld + p] = f.o[c * hdp + p] * inv;
    }
  }
}

}  // namespace

FlashTileCount flash_tiles(int64_t tokens) {
  FlashTileCount n;
  const int64_t tiles = (tokens + BR - 1) / BR;
  n.total = tiles * ((tokens + BC - 1) / BC);
  for (int64_t i0 = 0; i0 < tokens; i0 += BR) n.computed += (std::min(tokens, i0 + BR) - 1) / BC + 1;
  return n;
}

void flash_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                   Workspace& ws) {
  const int64_t T = s.tokens, d = s.d_model, h = s.heads, hd = s.head_dim();
  const int64_t hdp = round_up(hd, kGemmNR), Tp = round_up(T, BC);
  float* qkv = ws.get(0, T * 3 * d);  // one batch's x_b @ W_qkv^T: (T, 3d)
  std::vector<FlashBuffers> buffers(threads);
  for (int t = 0; t < threads; ++t) {
    const int slot = 1 + 8 * t;
    FlashBuffers& f = buffers[t];
    f.k = ws.get(slot, Tp * hdp);
    f.v = ws.get(slot + 1, Tp * hdp);
    f.qt = ws.get(slot + 2, BR * hdp);
    f.st = ws.get(slot + 3, BC * BR);
    f.o = ws.get(slot + 4, BR * hdp);
    f.m = ws.get(slot + 5, BR);
    f.l = ws.get(slot + 6, BR);
    f.alpha = ws.get(slot + 7, BR);
  }
  GemmArgs proj;
  proj.m = T, proj.k = d, proj.lda = d, proj.b_layout = BLayout::NxK, proj.ldb = d;
  for (int64_t bi = 0; bi < s.batch; ++bi) {
    GemmArgs g = proj;  // qkv = x_b @ W_qkv^T
    g.n = 3 * d, g.a = x + bi * T * d, g.b = w.w_qkv.data(), g.c = qkv, g.ldc = 3 * d;
    ws.timed(Workspace::kProjections, [&] { gemm_parallel(g, threads, ws.gemm()); });
    ws.timed(Workspace::kAttention, [&] {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
      for (int64_t hi = 0; hi < h; ++hi)
        flash_head(qkv + hi * hd, qkv + d + hi * hd, qkv + 2 * d + hi * hd, 3 * d, T, hd,
                   buffers[omp_get_thread_num()]);
    });
    g = proj;  // out_b = context @ W_out^T + b_out; the context sits in qkv's query columns
    g.n = d, g.a = qkv, g.lda = 3 * d, g.b = w.w_out.data(), g.c = out + bi * T * d, g.ldc = d, g.bias = w.b_out.data();
    ws.timed(Workspace::kOutput, [&] { gemm_parallel(g, threads, ws.gemm()); });
  }
}

}  // namespace attn
