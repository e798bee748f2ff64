#include "nn/causal_attention.h"

#include <limits>
#include <stdexcept>

#include "core/dropout.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/self_attention.h"

namespace attn {

Tensor causal_mask_bool(const Tensor& mask, int64_t num_tokens) {
  return narrow(narrow(to_bool(mask), 0, 0, num_tokens), 1, 0, num_tokens);
}

void check_fits_context(int64_t num_tokens, const Tensor& mask) {
  if (num_tokens > mask.size(0))
    throw std::invalid_argument("the input has " + std::to_string(num_tokens) + " tokens but context_length is " +
                                std::to_string(mask.size(0)));
}

CausalAttention CausalAttention::init(Generator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                                      double dropout, bool qkv_bias) {
  CausalAttention m;
  m.d_out = d_out;
  m.W_query = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_key = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_value = Linear::init(gen, d_in, d_out, qkv_bias);
  m.dropout = dropout;
  m.mask = triu(ones({context_length, context_length}), 1);
  return m;
}

Tensor CausalAttention::forward(const Tensor& x, Generator& gen, BernoulliPath path, CausalAttentionTrace* trace) const {
  const int64_t num_tokens = x.size(1);
  check_fits_context(num_tokens, mask);
  Tensor keys = W_key(x);
  Tensor queries = W_query(x);
  Tensor values = W_value(x);
  Tensor attn_scores = matmul(queries, transpose(keys, 1, 2));
  attn_scores = masked_fill(attn_scores, causal_mask_bool(mask, num_tokens), -std::numeric_limits<float>::infinity());
  Tensor attn_weights = softmax(div(attn_scores, sqrt_d_k(keys.size(-1))), -1);
  Tensor dropped = attn::dropout(attn_weights, dropout, gen, path);
  Tensor context_vec = matmul(dropped, values);
  if (trace) *trace = {keys, queries, values, attn_scores, attn_weights, dropped, context_vec};
  return context_vec;
}

MultiHeadAttentionWrapper MultiHeadAttentionWrapper::init(Generator& gen, int64_t d_in, int64_t d_out,
                                                          int64_t context_length, double dropout, int64_t num_heads,
                                                          bool qkv_bias) {
  MultiHeadAttentionWrapper m;
  for (int64_t h = 0; h < num_heads; ++h)
    m.heads.push_back(CausalAttention::init(gen, d_in, d_out, context_length, dropout, qkv_bias));
  return m;
}

Tensor MultiHeadAttentionWrapper::forward(const Tensor& x, Generator& gen, BernoulliPath path,
                                          std::vector<Tensor>* head_outputs) const {
  std::vector<Tensor> outs;
  for (const CausalAttention& head : heads) outs.push_back(head.forward(x, gen, path));
  if (head_outputs) *head_outputs = outs;
  return cat(outs, -1);
}

}  // namespace attn
