#include "nn/multihead_attention.h"

#include <stdexcept>

#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/attention_core.h"
#include "nn/attention_steps.h"
#include "nn/causal_attention.h"
#include "nn/self_attention.h"

namespace attn {

MultiHeadAttention MultiHeadAttention::init(Generator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                                            double dropout, int64_t num_heads, bool qkv_bias, const Variant& v) {
  MultiHeadAttention m;
  set_head_sizes(m, d_out, num_heads);
  Linear* created[] = {&m.W_query, &m.W_key, &m.W_value, &m.out_proj};
  for (int i : creation_order(v, 4))
    *created[i] = i == 3 ? Linear::init(gen, d_out, d_out, true) : Linear::init(gen, d_in, d_out, qkv_bias);
  m.dropout = dropout;
  m.mask = triu(ones({context_length, context_length}), 1);
  return m;
}

Tensor MultiHeadAttention::forward(const Tensor& x, Generator& gen, BernoulliPath path, MultiHeadAttentionTrace* trace,
                                   const Variant& v) const {
  MultiHeadAttentionTrace t;
  Steps& s = t.steps;
  const int64_t b = x.size(0), num_tokens = x.size(1);
  check_fits_context(num_tokens, mask);
  t.keys = s.bind("keys", "keys = self.W_key(x)", W_key(x));  // (b, T, d_out)
  t.queries = s.bind("queries", "queries = self.W_query(x)", W_query(x));
  t.values = s.bind("values", "values = self.W_value(x)", W_value(x));
  // (b, T, d_out) -> (b, T, num_heads, head_dim) -> (b, num_heads, T, head_dim)
  const Shape split = {b, num_tokens, num_heads, head_dim};
  t.keys_view = view(t.keys, split);
  t.queries_view = view(t.queries, split);
  t.values_view = view(t.values, split);
  if (v.split_without_transpose) {  // straight to (b, num_heads, T, head_dim)
    const Shape heads = {b, num_heads, num_tokens, head_dim};
    t.keys_heads = view(t.keys, heads);
    t.queries_heads = view(t.queries, heads);
    t.values_heads = view(t.values, heads);
    s.bind("keys", "keys = keys.view(b, self.num_heads, num_tokens, self.head_dim)", t.keys_heads);
    s.bind("queries", "queries = queries.view(b, self.num_heads, num_tokens, self.head_dim)", t.queries_heads);
    s.bind("values", "values = values.view(b, self.num_heads, num_tokens, self.head_dim)", t.values_heads);
  } else {
    s.bind("keys", "keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)", t.keys_view);
    s.bind("values", "values = values.view(b, num_tokens, self.num_heads, self.head_dim)", t.values_view);
    s.bind("queries", "queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)", t.queries_view);
    t.keys_heads = transpose(t.keys_view, 1, 2);
    t.queries_heads = transpose(t.queries_view, 1, 2);
    t.values_heads = transpose(t.values_view, 1, 2);
    s.bind("keys", "keys = keys.transpose(1, 2)", t.keys_heads);
    s.bind("queries", "queries = queries.transpose(1, 2)", t.queries_heads);
    s.bind("values", "values = values.transpose(1, 2)", t.values_heads);
  }
  // (b, num_heads, T, head_dim) @ (b, num_heads, head_dim, T) -> (b, num_heads, T, T)
  t.attn_scores = s.bind("attn_scores", "attn_scores = queries @ keys.transpose(2, 3)",
                         matmul(t.queries_heads, transpose(t.keys_heads, 2, 3)));
  t.mask_bool =
      s.bind("mask_bool", "mask_bool = self.mask.bool()[:num_tokens, :num_tokens]", causal_mask_bool(mask, num_tokens));
  // mask, softmax, dropout; (b, num_heads, T, head_dim) -> (b, T, num_heads, head_dim) -> (b, T, d_out); out_proj
  attend_from_scores(t, t.values_heads, "attn_scores.masked_fill_(mask_bool, -torch.inf)",
                     {t.keys_heads.size(-1), x.size(-1), d_out}, dropout, gen, path, out_proj, v, s);
  return hand_over(t, trace, t.context_vec);
}

int64_t MultiHeadAttention::parameter_count() const {
  return W_query.parameter_count() + W_key.parameter_count() + W_value.parameter_count() + out_proj.parameter_count();
}

}  // namespace attn
