#include "nn/multihead_attention.h"

#include <stdexcept>

#include "nn/causal_attention.h"
#include "core/ops_shape.h"

namespace attn {

MultiHeadAttention MultiHeadAttention::init(Generator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                                            double dropout, int64_t num_heads, bool qkv_bias) {
  if (num_heads <= 0 || d_out % num_heads != 0)
    throw std::invalid_argument("d_out must be divisible by num_heads");
  MultiHeadAttention m;
  m.d_out = d_out;
  m.num_heads = num_heads;
  m.head_dim = d_out / num_heads;
  m.W_query = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_key = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_value = Linear::init(gen, d_in, d_out, qkv_bias);
  m.out_proj = Linear::init(gen, d_out, d_out, true);
  m.dropout = dropout;
  m.mask = triu(ones({context_length, context_length}), 1);
  return m;
}

Tensor MultiHeadAttention::forward(const Tensor& x, Generator& gen, BernoulliPath path,
                                   MultiHeadAttentionTrace* trace) const {
  const int64_t b = x.size(0), num_tokens = x.size(1);
  check_fits_context(num_tokens, mask);
  MultiHeadAttentionTrace t;
  t.keys = W_key(x);      // (b, T, d_out)
  t.queries = W_query(x);
  t.values = W_value(x);
  // (b, T, d_out) -> (b, T, num_heads, head_dim)
  t.keys_view = view(t.keys, {b, num_tokens, num_heads, head_dim});
  t.queries_view = view(t.queries, {b, num_tokens, num_heads, head_dim});
  t.values_view = view(t.values, {b, num_tokens, num_heads, head_dim});
  // -> (b, num_heads, T, head_dim)
  t.keys_heads = transpose(t.keys_view, 1, 2);
  t.queries_heads = transpose(t.queries_view, 1, 2);
  t.values_heads = transpose(t.values_view, 1, 2);
  // scores, causal mask, softmax, dropout, @ values, heads merged, out_proj
  attend_heads(t.queries_heads, t.keys_heads, t.values_heads, causal_mask_bool(mask, num_tokens), dropout, gen, path,
               out_proj, t);
  Tensor out = t.context_vec;
  if (trace) *trace = std::move(t);
  return out;
}

int64_t MultiHeadAttention::parameter_count() const {
  return W_query.parameter_count() + W_key.parameter_count() + W_value.parameter_count() + out_proj.parameter_count();
}

}  // namespace attn
