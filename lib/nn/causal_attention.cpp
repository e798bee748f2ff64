#include "nn/causal_attention.h"

#include <stdexcept>

#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/attention_steps.h"
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
                                      double dropout, bool qkv_bias, const Variant& v) {
  CausalAttention m;
  m.d_out = d_out;
  Linear* created[] = {&m.W_query, &m.W_key, &m.W_value};
  for (int i : creation_order(v, 3)) *created[i] = Linear::init(gen, d_in, d_out, qkv_bias);
  m.dropout = dropout;
  m.mask = triu(ones({context_length, context_length}), 1);
  return m;
}

Tensor CausalAttention::forward(const Tensor& x, Generator& gen, BernoulliPath path, CausalAttentionTrace* trace,
                                const Variant& v) const {
  const int64_t num_tokens = x.size(1);
  check_fits_context(num_tokens, mask);
  CausalAttentionTrace t;
  t.keys = t.steps.bind("keys", "keys = self.W_key(x)", W_key(x));
  t.queries = t.steps.bind("queries", "queries = self.W_query(x)", W_query(x));
  t.values = t.steps.bind("values", "values = self.W_value(x)", W_value(x));
  // A stale global (the reader's typo) stands in for the module's own scores.
  const Tensor scores = v.stale_scores ? *v.stale_scores : matmul(t.queries, transpose(t.keys, 1, 2));
  t.steps.bind("attn_scores", "attn_scores = queries @ keys.transpose(1, 2)", scores);
  const MaskedWeights w =
      mask_softmax_dropout(scores, causal_mask_bool(mask, num_tokens),
                           "attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)",
                           {t.keys.size(-1), x.size(-1), d_out}, dropout, gen, path, v, t.steps);
  t.attn_scores = w.masked;
  t.attn_weights = w.weights;
  t.dropped_weights = w.dropped;
  t.context_vec =
      t.steps.bind("context_vec", "context_vec = attn_weights @ values", matmul(t.dropped_weights, t.values));
  return hand_over(t, trace, t.context_vec);
}

MultiHeadAttentionWrapper MultiHeadAttentionWrapper::init(Generator& gen, int64_t d_in, int64_t d_out,
                                                          int64_t context_length, double dropout, int64_t num_heads,
                                                          bool qkv_bias, const Variant& v) {
  MultiHeadAttentionWrapper m;
  for (int64_t h = 0; h < num_heads; ++h)
    m.heads.push_back(CausalAttention::init(gen, d_in, d_out, context_length, dropout, qkv_bias, v));
  return m;
}

Tensor MultiHeadAttentionWrapper::forward(const Tensor& x, Generator& gen, BernoulliPath path, WrapperTrace* trace,
                                          const Variant& v) const {
  WrapperTrace t;
  for (const CausalAttention& head : heads) {
    CausalAttentionTrace ht;
    t.head_outputs.push_back(head.forward(x, gen, path, &ht, v));
    t.steps.append(ht.steps, static_cast<int>(t.heads.size()));
    t.heads.push_back(std::move(ht));
  }
  for (size_t i = 0; i < t.head_outputs.size(); ++i)
    t.steps.bind("head_outputs[" + std::to_string(i) + "]", "head_outputs = [head(x) for head in self.heads]",
                 t.head_outputs[i]);
  std::vector<Tensor> in_order;
  if (v.head_order.size() == t.head_outputs.size())
    for (int i : v.head_order) in_order.push_back(t.head_outputs.at(static_cast<size_t>(i)));
  else
    in_order = t.head_outputs;
  t.context_vec = cat(in_order, v.cat_tokens ? 1 : -1);  // dim=1: a learner's, along the tokens
  return hand_over(t, trace, t.context_vec);
}

}  // namespace attn
