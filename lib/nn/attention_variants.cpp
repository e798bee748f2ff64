#include "nn/attention_variants.h"

#include <limits>

#include "core/dropout.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/self_attention.h"

namespace attn {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
}

WeightsTrace attention_weights(const Tensor& scores, int64_t d_k, bool causal, const AttentionVariant& v) {
  WeightsTrace w;
  const int64_t n = scores.size(-1);
  auto normalise = [&](const Tensor& s) { return softmax(v.scale ? div(s, sqrt_d_k(d_k)) : s, v.softmax_dim); };
  if (!causal) {
    w.masked = scores;
    w.weights = normalise(scores);
    return w;
  }
  w.mask = triu(ones({n, n}), v.mask_diagonal);
  if (v.mask_after_softmax) {
    w.masked = scores;
    w.weights = masked_fill(normalise(scores), to_bool(w.mask), 0.0f);
  } else {
    w.masked = masked_fill(scores, to_bool(w.mask), kNegInf);
    w.weights = normalise(w.masked);
  }
  return w;
}

Tensor dropout_variant(const Tensor& t, double p, Generator& gen, BernoulliPath path, const AttentionVariant& v) {
  if (!v.dropout_by_p || p <= 0.0 || p >= 1.0) return dropout(t, p, gen, path);
  Tensor keep;
  dropout(t, p, gen, path, &keep);  // the same draws, the same mask
  return div(mul(t, keep), p);      // x * mask / p
}

CausalAttentionTrace causal_attention_forward(const CausalAttention& m, const Tensor& x, Generator& gen,
                                              BernoulliPath path, const AttentionVariant& v) {
  check_fits_context(x.size(1), m.mask);
  CausalAttentionTrace t;
  t.keys = m.W_key(x);
  t.queries = m.W_query(x);
  t.values = m.W_value(x);
  WeightsTrace w = attention_weights(matmul(t.queries, transpose(t.keys, 1, 2)), t.keys.size(-1), true, v);
  t.attn_scores = w.masked;
  t.attn_weights = w.weights;
  t.dropped_weights = dropout_variant(w.weights, m.dropout, gen, path, v);
  t.context_vec = matmul(t.dropped_weights, t.values);
  return t;
}

MultiHeadAttentionTrace multihead_attention_forward(const MultiHeadAttention& m, const Tensor& x, Generator& gen,
                                                    BernoulliPath path, const AttentionVariant& v) {
  const int64_t b = x.size(0), n = x.size(1), h = m.num_heads, hd = m.head_dim;
  check_fits_context(n, m.mask);
  MultiHeadAttentionTrace t;
  t.keys = m.W_key(x);
  t.queries = m.W_query(x);
  t.values = m.W_value(x);
  t.keys_view = view(t.keys, {b, n, h, hd});
  t.queries_view = view(t.queries, {b, n, h, hd});
  t.values_view = view(t.values, {b, n, h, hd});
  if (v.split_without_transpose) {
    t.keys_heads = view(t.keys, {b, h, n, hd});
    t.queries_heads = view(t.queries, {b, h, n, hd});
    t.values_heads = view(t.values, {b, h, n, hd});
  } else {
    t.keys_heads = transpose(t.keys_view, 1, 2);
    t.queries_heads = transpose(t.queries_view, 1, 2);
    t.values_heads = transpose(t.values_view, 1, 2);
  }
  t.attn_scores = matmul(t.queries_heads, transpose(t.keys_heads, 2, 3));
  t.mask_bool = causal_mask_bool(m.mask, n);
  WeightsTrace w = attention_weights(t.attn_scores, hd, true, v);
  t.masked_scores = w.masked;
  t.attn_weights = w.weights;
  t.dropped_weights = dropout_variant(w.weights, m.dropout, gen, path, v);
  t.context_heads = matmul(t.dropped_weights, t.values_heads);
  t.context_transposed = v.merge_without_transpose ? t.context_heads : transpose(t.context_heads, 1, 2);
  t.context_contiguous = contiguous(t.context_transposed);
  t.context_merged = view(t.context_contiguous, {b, n, m.d_out});
  t.context_vec = m.out_proj(t.context_merged);
  return t;
}

}  // namespace attn
