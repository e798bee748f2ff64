// The materialising forms. Each step mirrors a line of the book's forward():
//   queries = self.W_query(x)                      -> one GEMM, (b·T, d) x (d, d)
//   attn_scores = queries @ keys.transpose(2, 3)   -> (b, heads, T, T), every entry computed
//   attn_scores.masked_fill_(mask_bool, -torch.inf)
//   attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)   -> a second (b, heads, T, T)
//   context_vec = (attn_weights @ values).transpose(1, 2)    -> (b, heads, T, hd), then
//   context_vec.contiguous().view(b, T, d_out)                  copied to (b, T, heads·hd)
//   context_vec = self.out_proj(context_vec)
// Dropout is 0.0 here, as in the book's GPT-2 exercise, so it is left out.
#include "fast/bench_attention.h"
#include "fast/bench_steps.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>

#include "core/random_ops.h"
#include "fast/kernels.h"
#include "fast/parallel.h"

namespace attn {

namespace {

constexpr int64_t kRowChunk = 256;  // rows of one batched-product task (load balance)

}  // namespace

// C_i = A_i · B_i for count independent products, split into row chunks over the threads; each
// chunk runs on one thread with its own packing panels.
void batched_gemm(int64_t count, const std::function<GemmArgs(int64_t)>& product, int threads, GemmScratch& scratch) {
  if (count <= 0) return;
  const int64_t m = product(0).m;
  const int64_t chunks = std::max<int64_t>(1, (m + kRowChunk - 1) / kRowChunk);
  scratch.reserve_threads(threads);
  parallel_for(threads, count * chunks, [&](int64_t task, int t) {
    GemmArgs g = product(task / chunks);
    const int64_t r0 = (task % chunks) * kRowChunk, r1 = std::min(g.m, r0 + kRowChunk);
    g.a += r0 * g.lda;
    g.c += r0 * g.ldc;
    g.m = r1 - r0;
    gemm(g, scratch.per_thread[t]);
  });
}

void softmax_rows(const float* scores, float* weights, int64_t rows, int64_t T, float scale, int threads) {
  parallel_ranges(threads, rows, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) softmax_row(scores + row * T, weights + row * T, T, scale);
  });
}

void head_scores(const AttentionShape& s, const float* q, int64_t ldq, const float* k, int64_t ldk, float* scores,
                 int threads, Workspace& ws) {
  const int64_t h = s.heads, T = s.tokens, hd = s.head_dim();
  batched_gemm(
      s.batch * h,
      [&](int64_t bh) {  // head (bi, hi) is a (T, hd) slice with row stride ldq / ldk
        const int64_t bi = bh / h, hi = bh % h;
        GemmArgs g;
        g.m = T, g.n = T, g.k = hd;
        g.a = q + bi * T * ldq + hi * hd, g.lda = ldq;
        g.b = k + bi * T * ldk + hi * hd, g.ldb = ldk, g.b_layout = BLayout::NxK;
        g.c = scores + bh * T * T, g.ldc = T;
        return g;
      },
      threads, ws.gemm());
}

void values_merged(const AttentionShape& s, const float* weights, const float* v, int64_t ldv, float* ctx_heads,
                   float* ctx, int threads, Workspace& ws) {
  const int64_t b = s.batch, h = s.heads, T = s.tokens, d = s.d_model, hd = s.head_dim();
  batched_gemm(
      b * h,
      [&](int64_t bh) {  // attn_weights @ values: (b, heads, T, hd)
        const int64_t bi = bh / h, hi = bh % h;
        GemmArgs g;
        g.m = T, g.n = hd, g.k = T;
        g.a = weights + bh * T * T, g.lda = T;
        g.b = v + bi * T * ldv + hi * hd, g.ldb = ldv, g.b_layout = BLayout::KxN;
        g.c = ctx_heads + bh * T * hd, g.ldc = hd;
        return g;
      },
      threads, ws.gemm());
  parallel_ranges(threads, b * T, [&](int64_t begin, int64_t end) {  // .transpose(1, 2).contiguous(): (b, T, heads, hd)
    for (int64_t row = begin; row < end; ++row) {
      const int64_t bi = row / T, t = row % T;
      for (int64_t hi = 0; hi < h; ++hi)
        std::memcpy(ctx + row * d + hi * hd, ctx_heads + ((bi * h + hi) * T + t) * hd, sizeof(float) * hd);
    }
  });
}

namespace {

// y (rows, n) = x (rows, k) · W^T (+ bias), W as nn.Linear stores it: (n, k).
void linear(const float* x, int64_t ldx, int64_t rows, int64_t k, const float* w, int64_t n, const float* bias,
            float* y, int64_t ldy, int threads, GemmScratch& scratch) {
  GemmArgs g;
  g.m = rows, g.n = n, g.k = k;
  g.a = x, g.lda = ldx;
  g.b = w, g.ldb = k, g.b_layout = BLayout::NxK;
  g.c = y, g.ldc = ldy;
  g.bias = bias;
  gemm_parallel(g, threads, scratch);
}

// masked_fill_(mask_bool, -inf) on `count` (T, T) score matrices: row i keeps keys 0..i.
void mask_future(float* scores, int64_t count, int64_t T, int threads) {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  parallel_ranges(threads, count * T, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t i = row % T;
      std::fill(scores + row * T + i + 1, scores + (row + 1) * T, minus_inf);
    }
  });
}

// Everything after the projections, for both materialising forms: q, k, v are (b, T, heads·hd)
// views with row stride ld (d for three projections, 3d inside the fused one).
void materialised_attention(const AttentionShape& s, const float* q, const float* k, const float* v, int64_t ld,
                            const MhaWeights& w, float* out, int threads, Workspace& ws) {
  const int64_t b = s.batch, T = s.tokens, d = s.d_model, h = s.heads, hd = s.head_dim();
  float* scores = ws.shared(0, b * h * T * T);    // attn_scores (b, heads, T, T)
  float* weights = ws.shared(1, b * h * T * T);   // attn_weights (b, heads, T, T)
  float* ctx_heads = ws.get(12, b * h * T * hd);  // attn_weights @ values: (b, heads, T, hd)
  float* ctx = ws.get(13, b * T * d);             // .transpose(1, 2).contiguous(): (b, T, heads, hd)
  ws.timed(Workspace::kAttention, [&] {
    head_scores(s, q, ld, k, ld, scores, threads, ws);  // queries @ keys.transpose(2, 3)
    mask_future(scores, b * h, T, threads);
    softmax_rows(scores, weights, b * h * T, T, 1.0f / std::sqrt(static_cast<float>(hd)), threads);
    values_merged(s, weights, v, ld, ctx_heads, ctx, threads, ws);  // (attn_weights @ values).transpose(1, 2)
  });
  ws.timed(Workspace::kOutput,
           [&] { linear(ctx, d, b * T, d, w.w_out.data(), d, w.b_out.data(), out, d, threads, ws.gemm()); });
}

}  // namespace

MhaWeights seeded_weights(const AttentionShape& s, uint64_t seed, std::vector<float>& x) {
  Generator gen;
  gen.manual_seed(seed);
  const int64_t d = s.d_model;
  MhaWeights w;
  w.w_query = linear_init(gen, d, d, false).weight;
  w.w_key = linear_init(gen, d, d, false).weight;
  w.w_value = linear_init(gen, d, d, false).weight;
  LinearParams out = linear_init(gen, d, d, true);
  w.w_out = std::move(out.weight);
  w.b_out = std::move(out.bias);
  w.w_qkv.reserve(3 * d * d);
  for (const auto* part : {&w.w_query, &w.w_key, &w.w_value}) w.w_qkv.insert(w.w_qkv.end(), part->begin(), part->end());
  const std::pair<const std::vector<float>*, std::vector<float>*> transposes[] = {
      {&w.w_query, &w.w_query_t}, {&w.w_key, &w.w_key_t}, {&w.w_value, &w.w_value_t}};
  for (const auto& [from, to] : transposes) {
    to->resize(d * d);
    for (int64_t o = 0; o < d; ++o)
      for (int64_t i = 0; i < d; ++i) (*to)[i * d + o] = (*from)[o * d + i];
  }
  x = rand_values(gen, s.rows() * d);
  return w;
}

float* Workspace::get(int slot, std::size_t floats) {
  if (static_cast<int>(slots_.size()) <= slot) slots_.resize(slot + 1);
  return slots_[slot].reserve(floats);
}

float* Workspace::shared(int slot, std::size_t floats) {
  std::vector<AlignedFloats>& slots = pool_ ? *pool_ : own_shared_;
  if (static_cast<int>(slots.size()) <= slot) slots.resize(slot + 1);
  if (static_cast<int>(shared_floats_.size()) <= slot) shared_floats_.resize(slot + 1);
  shared_floats_[slot] = std::max(shared_floats_[slot], floats);
  return slots[slot].reserve(floats);
}

std::size_t Workspace::bytes() const {
  std::size_t n = gemm_.bytes();
  for (const AlignedFloats& a : slots_) n += a.bytes();
  for (std::size_t floats : shared_floats_) n += floats * sizeof(float);
  return n;
}

void softmax_row(const float* in, float* out, int64_t n, float scale) {
  active_kernels().softmax_row(in, out, n, scale);
}

// MultiHeadAttentionWrapper: heads = [CausalAttention(d_in, hd) ...]; torch.cat([head(x) ...], -1),
// then the out_proj that makes it the same function as MultiHeadAttention. Head i's W_query is rows
// [i·hd, (i+1)·hd) of MultiHeadAttention's, so no weights are copied.
void wrapper_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                     Workspace& ws) {
  const int64_t b = s.batch, T = s.tokens, d = s.d_model, h = s.heads, hd = s.head_dim();
  float* q = ws.get(0, b * T * hd);  // one head's queries (b, T, hd)
  float* k = ws.get(1, b * T * hd);
  float* v = ws.get(2, b * T * hd);
  float* scores = ws.get(3, b * T * T);   // one head's attn_scores (b, T, T)
  float* weights = ws.get(4, b * T * T);  // one head's attn_weights
  std::vector<float*> head_out(h);
  for (int64_t hi = 0; hi < h; ++hi) head_out[hi] = ws.get(20 + static_cast<int>(hi), b * T * hd);
  for (int64_t hi = 0; hi < h; ++hi) {  // the list comprehension, one head after another
    ws.timed(Workspace::kProjections, [&] {
      linear(x, d, b * T, d, w.w_query.data() + hi * hd * d, hd, nullptr, q, hd, threads, ws.gemm());
      linear(x, d, b * T, d, w.w_key.data() + hi * hd * d, hd, nullptr, k, hd, threads, ws.gemm());
      linear(x, d, b * T, d, w.w_value.data() + hi * hd * d, hd, nullptr, v, hd, threads, ws.gemm());
    });
    ws.timed(Workspace::kAttention, [&] {
      batched_gemm(
          b,
          [&](int64_t bi) {  // queries @ keys.transpose(1, 2)
            GemmArgs g;
            g.m = T, g.n = T, g.k = hd;
            g.a = q + bi * T * hd, g.lda = hd;
            g.b = k + bi * T * hd, g.ldb = hd, g.b_layout = BLayout::NxK;
            g.c = scores + bi * T * T, g.ldc = T;
            return g;
          },
          threads, ws.gemm());
      mask_future(scores, b, T, threads);
      softmax_rows(scores, weights, b * T, T, 1.0f / std::sqrt(static_cast<float>(hd)), threads);
      batched_gemm(
          b,
          [&](int64_t bi) {  // attn_weights @ values
            GemmArgs g;
            g.m = T, g.n = hd, g.k = T;
            g.a = weights + bi * T * T, g.lda = T;
            g.b = v + bi * T * hd, g.ldb = hd, g.b_layout = BLayout::KxN;
            g.c = head_out[hi] + bi * T * hd, g.ldc = hd;
            return g;
          },
          threads, ws.gemm());
    });
  }
  float* ctx = ws.get(5, b * T * d);
  ws.timed(Workspace::kAttention, [&] {  // torch.cat(..., dim=-1)
    parallel_ranges(threads, b * T, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row)
        for (int64_t hi = 0; hi < h; ++hi)
          std::memcpy(ctx + row * d + hi * hd, head_out[hi] + row * hd, sizeof(float) * hd);
    });
  });
  ws.timed(Workspace::kOutput,
           [&] { linear(ctx, d, b * T, d, w.w_out.data(), d, w.b_out.data(), out, d, threads, ws.gemm()); });
}

void mha_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads, Workspace& ws) {
  const int64_t n = s.rows() * s.d_model, d = s.d_model;
  float* q = ws.get(0, n);  // queries (b, T, d_out), viewed as (b, T, heads, hd)
  float* k = ws.get(1, n);
  float* v = ws.get(2, n);
  ws.timed(Workspace::kProjections, [&] {
    linear(x, d, s.rows(), d, w.w_query.data(), d, nullptr, q, d, threads, ws.gemm());
    linear(x, d, s.rows(), d, w.w_key.data(), d, nullptr, k, d, threads, ws.gemm());
    linear(x, d, s.rows(), d, w.w_value.data(), d, nullptr, v, d, threads, ws.gemm());
  });
  materialised_attention(s, q, k, v, d, w, out, threads, ws);
}

// qkv = x @ W_qkv^T, (b, T, 3·d_out): one pass over x instead of three; queries, keys and values
// are column blocks of it.
void fused_qkv_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                       Workspace& ws) {
  const int64_t d = s.d_model;
  float* qkv = ws.get(0, s.rows() * 3 * d);
  ws.timed(Workspace::kProjections,
           [&] { linear(x, d, s.rows(), d, w.w_qkv.data(), 3 * d, nullptr, qkv, 3 * d, threads, ws.gemm()); });
  materialised_attention(s, qkv, qkv + d, qkv + 2 * d, 3 * d, w, out, threads, ws);
}

}  // namespace attn
