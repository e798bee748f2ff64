// For one head of one batch, per query tile i0 (BR queries):
//   Qt    = (Q[i0:i0+BR] / sqrt(hd))^T, packed as strips of NR queries          (hd, BR)
//   m = -inf, l = 0                                                              O: (BR, hd)
//   for key tiles j0 = 0, BC, ... up to the diagonal:
//     St = K[j0:j0+BC] @ Qt        scores transposed: a row per key, a column per query (BC, BR)
//     mask keys j > query i with -inf (the diagonal tile only)
//     m_new = max(m, max_j St);  P = exp(St - m_new);  alpha = exp(m - m_new)
//     l = alpha·l + sum_j P;  O = alpha·O + P^T @ V[j0:j0+BC]
//   context rows = O / l
// Keeping S transposed makes the softmax statistics per query column-wise: a vector of queries
// per register, no horizontal sums; and P^T is read by the micro-kernel in place (row stride BR).
// K and V of every head are packed once (K in MR-key strips, V in NR-column strips) and shared by
// its query tiles. The context overwrites the queries it came from (each tile's own rows).
#include "fast/flash_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "fast/kernels.h"
#include "fast/parallel.h"

namespace attn {

namespace {

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// One thread's tiles.
struct FlashBuffers {
  float* qt;  // Qt: BR / NR strips of [hdp][NR]
  float* st;  // St (BC keys, BR queries)
  float* o;   // O (BR, hdp)
  float* m;   // running max, running sum, rescale factor: BR each
  float* l;
  float* alpha;
};

struct HeadGeometry {
  int64_t T, hd, hdp, Tp, ld;
};

// One head's K into MR-key strips [hdp][MR] and V into NR-column strips [Tp][NR], zero-padded.
void pack_head(const FlashKernel& k, const HeadGeometry& g, const float* kh, const float* vh, float* kp, float* vp) {
  const int64_t MR = k.mr, NR = k.nr;
  if (g.hd < g.hdp || g.T < g.Tp) {
    std::fill(kp, kp + g.Tp * g.hdp, 0.0f);
    std::fill(vp, vp + g.Tp * g.hdp, 0.0f);
  }
  for (int64_t j0 = 0; j0 < g.T; j0 += MR) {
    float* kd = kp + j0 * g.hdp;  // strip j0 / MR
    for (int64_t r = 0; r < MR && j0 + r < g.T; ++r) {
      const float* kr = kh + (j0 + r) * g.ld;
      for (int64_t p = 0; p < g.hd; ++p) kd[p * MR + r] = kr[p];
    }
  }
  for (int64_t j = 0; j < g.T; ++j)
    for (int64_t cs = 0; cs * NR < g.hd; ++cs)
      std::memcpy(vp + cs * g.Tp * NR + j * NR, vh + j * g.ld + cs * NR, sizeof(float) * std::min(NR, g.hd - cs * NR));
}

// Query tile i0 of one head: q is the head's (T, hd) slice with row stride ld; its context rows
// replace the query rows.
void flash_tile(const KernelSet& k, const HeadGeometry& g, int64_t i0, float* q, const float* kp, const float* vp,
                const FlashBuffers& f) {
  const FlashKernel fk = flash_kernel_of(k);
  const int64_t MR = fk.mr, NR = fk.nr, BR = k.flash_br, BC = k.flash_bc, hdp = g.hdp;
  const float scale = 1.0f / std::sqrt(static_cast<float>(g.hd));
  const float minus_inf = -std::numeric_limits<float>::infinity();
  const int64_t rows = std::min(BR, g.T - i0);
  // Qt: query i0 + c goes to column c % NR of strip c / NR, scaled by 1/sqrt(hd).
  if (rows < BR || g.hd < hdp) std::fill(f.qt, f.qt + BR * hdp, 0.0f);
  for (int64_t c = 0; c < rows; ++c) {
    float* qd = f.qt + (c / NR) * hdp * NR + c % NR;
    const float* qr = q + (i0 + c) * g.ld;
    for (int64_t p = 0; p < g.hd; ++p) qd[p * NR] = qr[p] * scale;
  }
  std::fill(f.m, f.m + BR, minus_inf);
  std::fill(f.l, f.l + BR, 0.0f);
  const int64_t last_query = i0 + rows - 1;
  for (int64_t j0 = 0; j0 <= last_query; j0 += BC) {
    for (int64_t js = 0; js < BC / MR; ++js)  // St = K_tile @ Qt
      for (int64_t is = 0; is < BR / NR; ++is)
        fk.fn(hdp, kp + (j0 + js * MR) * hdp, 1, MR, f.qt + is * hdp * NR, f.st + js * MR * BR + is * NR, BR,
              Start::Zero, nullptr);
    if (j0 + BC - 1 > i0)  // the diagonal tile (and keys past T): key j > query i is the future
      for (int64_t j = 0; j < BC; ++j) {
        const int64_t key = j0 + j;
        float* row = f.st + j * BR;
        std::fill(row, row + (key >= g.T ? BR : std::clamp<int64_t>(key - i0, 0, BR)), minus_inf);
      }
    k.online_softmax(f.st, BR, BC, f.m, f.l, f.alpha);
    const Start start = j0 == 0 ? Start::Zero : Start::ScaledC;  // alpha = 0 at the first tile
    for (int64_t is = 0; is < BR / MR; ++is)                     // O = alpha·O + P^T @ V_tile
      for (int64_t cs = 0; cs < hdp / NR; ++cs)
        fk.fn(BC, f.st + is * MR, 1, BR, vp + cs * g.Tp * NR + j0 * NR, f.o + is * MR * hdp + cs * NR, hdp, start,
              f.alpha + is * MR);
  }
  for (int64_t c = 0; c < rows; ++c) {  // context = O / l, over the queries
    const float inv = 1.0f / f.l[c];
    float* out = q + (i0 + c) * g.ld;
    for (int64_t p = 0; p < g.hd; ++p) out[p] = f.o[c * hdp + p] * inv;
  }
}

}  // namespace

FlashTileCount flash_tiles(int64_t tokens) {
  const KernelSet& k = active_kernels();
  FlashTileCount n;
  n.query_tile = k.flash_br, n.key_tile = k.flash_bc;
  n.total = (tokens + k.flash_br - 1) / k.flash_br * ((tokens + k.flash_bc - 1) / k.flash_bc);
  for (int64_t i0 = 0; i0 < tokens; i0 += k.flash_br)
    n.computed += (std::min(tokens, i0 + k.flash_br) - 1) / k.flash_bc + 1;
  return n;
}

void flash_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                   Workspace& ws) {
  const KernelSet& k = active_kernels();
  const int64_t T = s.tokens, d = s.d_model, h = s.heads, hd = s.head_dim(), BR = k.flash_br;
  const FlashKernel fk = flash_kernel_of(k);
  const HeadGeometry g{T, hd, round_up(hd, fk.nr), round_up(T, std::max(k.flash_bc, fk.mr)), 3 * d};
  // Batches per round: enough rows that every thread has a few GEMM row blocks; one at 1-2 threads.
  const int64_t chunk = std::clamp<int64_t>((256 * threads + T - 1) / T, 1, s.batch);
  const int64_t heads = chunk * h, q_tiles = (T + BR - 1) / BR;
  float* qkv = ws.get(0, chunk * T * 3 * d);  // x_chunk @ W_qkv^T: (chunk·T, 3d)
  float* kpack = ws.get(1, heads * g.Tp * g.hdp);
  float* vpack = ws.get(2, heads * g.Tp * g.hdp);
  std::vector<FlashBuffers> buffers(threads);
  for (int t = 0; t < threads; ++t) {
    const int slot = 3 + 6 * t;
    FlashBuffers& f = buffers[t];
    f.qt = ws.get(slot, BR * g.hdp);
    f.st = ws.get(slot + 1, k.flash_bc * BR);
    f.o = ws.get(slot + 2, BR * g.hdp);
    f.m = ws.get(slot + 3, BR);
    f.l = ws.get(slot + 4, BR);
    f.alpha = ws.get(slot + 5, BR);
  }
  GemmArgs proj;
  proj.k = d, proj.lda = d, proj.b_layout = BLayout::NxK, proj.ldb = d;
  for (int64_t b0 = 0; b0 < s.batch; b0 += chunk) {
    const int64_t nb = std::min(chunk, s.batch - b0), rows = nb * T;
    // The weights are packed once per forward, by the first chunk, and kept for the others.
    proj.keep_packed_b = true, proj.b_unchanged = b0 > 0;
    GemmArgs p = proj;  // qkv = x_chunk @ W_qkv^T
    p.m = rows, p.n = 3 * d, p.a = x + b0 * T * d, p.b = w.w_qkv.data(), p.c = qkv, p.ldc = 3 * d;
    ws.timed(Workspace::kProjections, [&] { gemm_parallel(p, threads, ws.gemm()); });
    ws.timed(Workspace::kAttention, [&] {
      // (batch, head) bh: its q, k, v columns in qkv, rows from (bh / h)·T.
      auto head_q = [&](int64_t bh) { return qkv + (bh / h) * T * 3 * d + (bh % h) * hd; };
      parallel_for(threads, nb * h, [&](int64_t bh, int) {
        pack_head(fk, g, head_q(bh) + d, head_q(bh) + 2 * d, kpack + bh * g.Tp * g.hdp, vpack + bh * g.Tp * g.hdp);
      });
      // Head by head, so that a head's packed K and V (T·hd·8 bytes) stay in L2 for its query tiles; in
      // a head, the tiles further down first: they cost more (more keys), and the last tasks are cheap.
      parallel_for(threads, nb * h * q_tiles, [&](int64_t task, int t) {
        const int64_t qi = q_tiles - 1 - task % q_tiles, bh = task / q_tiles;
        flash_tile(k, g, qi * BR, head_q(bh), kpack + bh * g.Tp * g.hdp, vpack + bh * g.Tp * g.hdp, buffers[t]);
      });
    });
    p = proj;  // out_chunk = context @ W_out^T + b_out; the context sits in qkv's query columns
    p.m = rows, p.n = d, p.a = qkv, p.lda = 3 * d, p.b = w.w_out.data(), p.c = out + b0 * T * d, p.ldc = d;
    p.bias = w.b_out.data();
    ws.timed(Workspace::kOutput, [&] { gemm_parallel(p, threads, ws.gemm()); });
  }
}

}  // namespace attn
