// The bonus notebook's forms (bench_forms.h). Each step mirrors a line of its forward; the
// products run through fast_gemm as the chapter's forms do (bench_attention.cpp), and the big
// (b, heads, T, T) buffers are the workspace's shared slots 0 and 1, as theirs.
#include "fast/bench_forms.h"
#include "fast/bench_steps.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "fast/parallel.h"

namespace attn {

namespace {

constexpr int kAveragedSlot = 9;  // torch-mha-weights' (b, T, T) averaged weights

// y (rows, n) = x (rows, k) · B (+ bias): B as nn.Linear stores it, (n, k), or untransposed, (k, n).
void product(const float* x, int64_t rows, int64_t k, const float* weight, BLayout layout, int64_t n, const float* bias,
             float* y, int threads, GemmScratch& scratch) {
  GemmArgs g;
  g.m = rows, g.n = n, g.k = k;
  g.a = x, g.lda = k;
  g.b = weight, g.ldb = layout == BLayout::NxK ? k : n, g.b_layout = layout;
  g.c = y, g.ldc = n;
  g.bias = bias;
  gemm_parallel(g, threads, scratch);
}

// out[i] = in[i] * factor over n floats (a tensor times a number: a new tensor).
void scaled(const float* in, float* out, int64_t n, float factor, int threads) {
  parallel_ranges(threads, n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = in[i] * factor;
  });
}

// The causal mask as a float mask: 0 where a query may attend, -inf above the diagonal.
void float_mask(float* mask, int64_t T) {
  const float minus_inf = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) mask[i * T + j] = j > i ? minus_inf : 0.0f;
}

// Every (T, T) score matrix of the `count` heads plus the (T, T) float mask.
void add_mask(float* scores, const float* mask, int64_t count, int64_t T, int threads) {
  parallel_ranges(threads, count * T, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      float* s = scores + row * T;
      const float* m = mask + (row % T) * T;
      for (int64_t j = 0; j < T; ++j) s[j] += m[j];
    }
  });
}

// softmax over the last dimension (scale 1: every form here scaled before), then attn_weights @ values,
// the heads merged back to (b, T, heads·hd) (transpose(1, 2).contiguous()).
void weighted_values(const AttentionShape& s, const float* scores, float* weights, const float* v, int64_t ldv,
                     float* ctx, int threads, Workspace& ws) {
  const int64_t b = s.batch, h = s.heads, T = s.tokens, hd = s.head_dim();
  softmax_rows(scores, weights, b * h * T, T, 1.0f, threads);
  values_merged(s, weights, v, ldv, ws.get(8, b * h * T * hd), ctx, threads, ws);  // ctx_heads: (b, heads, T, hd)
}

void out_proj(const MhaWeights& w, const AttentionShape& s, const float* ctx, float* out, int threads, Workspace& ws) {
  ws.timed(Workspace::kOutput, [&] {
    product(ctx, s.rows(), s.d_model, w.w_out.data(), BLayout::NxK, s.d_model, w.b_out.data(), out, threads, ws.gemm());
  });
}

// nn.MultiheadAttention's forward, with or without the head-averaged weights.
void torch_mha(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads, Workspace& ws,
               bool need_weights) {
  const int64_t b = s.batch, h = s.heads, T = s.tokens, d = s.d_model, hd = s.head_dim(), n = s.rows() * d;
  float* qkv = ws.get(0, 3 * n);  // linear(x, in_proj_weight): (b, T, 3d)
  float* q = ws.get(1, n);        // .unflatten(-1, (3, E)) ... .contiguous(): q, k, v apart
  float* k = ws.get(2, n);
  float* v = ws.get(3, n);
  float* q_scaled = ws.get(4, n);
  float* mask = ws.get(5, T * T);
  float* ctx = ws.get(6, n);
  float* scores = ws.shared(0, b * h * T * T);
  float* weights = ws.shared(1, b * h * T * T);
  ws.timed(Workspace::kProjections, [&] {
    product(x, s.rows(), d, w.w_qkv.data(), BLayout::NxK, 3 * d, nullptr, qkv, threads, ws.gemm());
    parallel_ranges(threads, s.rows(), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        std::memcpy(q + row * d, qkv + row * 3 * d, sizeof(float) * d);
        std::memcpy(k + row * d, qkv + row * 3 * d + d, sizeof(float) * d);
        std::memcpy(v + row * d, qkv + row * 3 * d + 2 * d, sizeof(float) * d);
      }
    });
  });
  ws.timed(Workspace::kAttention, [&] {
    float_mask(mask, T);  // F._canonical_mask: the bool mask (True = masked) as 0 and -inf
    scaled(q, q_scaled, n, 1.0f / std::sqrt(static_cast<float>(hd)), threads);  // q * sqrt(1 / E)
    head_scores(s, q_scaled, d, k, d, scores, threads, ws);                     // baddbmm(attn_mask, q_scaled, k^T)
    add_mask(scores, mask, b * h, T, threads);
    weighted_values(s, scores, weights, v, d, ctx, threads, ws);
    if (need_weights) {  // attn_output_weights.view(b, heads, T, T).mean(dim=1)
      float* averaged = ws.get(kAveragedSlot, b * T * T);
      parallel_ranges(threads, b * T, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const int64_t bi = row / T, t = row % T;
          float* a = averaged + row * T;
          std::fill(a, a + T, 0.0f);
          for (int64_t hi = 0; hi < h; ++hi) {
            const float* p = weights + ((bi * h + hi) * T + t) * T;
            for (int64_t j = 0; j < T; ++j) a[j] += p[j];
          }
          for (int64_t j = 0; j < T; ++j) a[j] /= static_cast<float>(h);
        }
      });
    }
  });
  out_proj(w, s, ctx, out, threads, ws);
}

}  // namespace

void einsum_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                    Workspace& ws) {
  const int64_t b = s.batch, h = s.heads, T = s.tokens, d = s.d_model, hd = s.head_dim(), n = s.rows() * d;
  float* q = ws.get(0, n);  // einsum("bnd,do->bno", x, W_query)
  float* k = ws.get(1, n);
  float* v = ws.get(2, n);
  float* ctx = ws.get(3, n);
  float* scores = ws.shared(0, b * h * T * T);
  float* weights = ws.shared(1, b * h * T * T);
  ws.timed(Workspace::kProjections, [&] {
    product(x, s.rows(), d, w.w_query_t.data(), BLayout::KxN, d, nullptr, q, threads, ws.gemm());
    product(x, s.rows(), d, w.w_key_t.data(), BLayout::KxN, d, nullptr, k, threads, ws.gemm());
    product(x, s.rows(), d, w.w_value_t.data(), BLayout::KxN, d, nullptr, v, threads, ws.gemm());
  });
  ws.timed(Workspace::kAttention, [&] {
    head_scores(s, q, d, k, d, scores, threads, ws);  // einsum("bhnd,bhmd->bhnm", Q, K)
    // / (self.head_dim ** 0.5), then masked_fill(mask.bool(), -torch.inf)
    const float root = std::sqrt(static_cast<float>(hd)), minus_inf = -std::numeric_limits<float>::infinity();
    parallel_ranges(threads, b * h * T, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        float* r = scores + row * T;
        const int64_t i = row % T;
        for (int64_t j = 0; j < T; ++j) r[j] /= root;
        std::fill(r + i + 1, r + T, minus_inf);
      }
    });
    weighted_values(s, scores, weights, v, d, ctx, threads, ws);  // einsum("bhnm,bhmd->bhnd", ...)
  });
  out_proj(w, s, ctx, out, threads, ws);
}

void sdpa_mask_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                       Workspace& ws) {
  const int64_t b = s.batch, h = s.heads, T = s.tokens, d = s.d_model, hd = s.head_dim(), n = s.rows() * d;
  float* qkv = ws.get(0, 3 * n);  // self.qkv(x), viewed as (b, T, 3, heads, hd) and permuted
  float* q = ws.get(1, n);        // q * sqrt(scale), k * sqrt(scale): new tensors, (b, T, d) here
  float* k = ws.get(2, n);
  float* mask = ws.get(3, T * T);
  float* ctx = ws.get(4, n);
  float* scores = ws.shared(0, b * h * T * T);
  float* weights = ws.shared(1, b * h * T * T);
  ws.timed(Workspace::kProjections,
           [&] { product(x, s.rows(), d, w.w_qkv.data(), BLayout::NxK, 3 * d, nullptr, qkv, threads, ws.gemm()); });
  ws.timed(Workspace::kAttention, [&] {
    const float factor = std::sqrt(1.0f / std::sqrt(static_cast<float>(hd)));
    parallel_ranges(threads, s.rows(), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row)
        for (int64_t j = 0; j < d; ++j) {
          q[row * d + j] = qkv[row * 3 * d + j] * factor;
          k[row * d + j] = qkv[row * 3 * d + d + j] * factor;
        }
    });
    float_mask(mask, T);  // the bool attn_mask (True = may attend) as 0 and -inf
    head_scores(s, q, d, k, d, scores, threads, ws);
    add_mask(scores, mask, b * h, T, threads);  // attn.add_(attn_mask)
    weighted_values(s, scores, weights, qkv + 2 * d, 3 * d, ctx, threads, ws);
  });
  out_proj(w, s, ctx, out, threads, ws);
}

void torch_mha_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                       Workspace& ws) {
  torch_mha(w, s, x, out, threads, ws, false);
}

void torch_mha_weights_forward(const MhaWeights& w, const AttentionShape& s, const float* x, float* out, int threads,
                               Workspace& ws) {
  torch_mha(w, s, x, out, threads, ws, true);
}

const float* averaged_weights(Workspace& ws, const AttentionShape& s) {
  return ws.get(kAveragedSlot, s.batch * s.tokens * s.tokens);
}

}  // namespace attn
