#pragma once
// Listing 3.5 MultiHeadAttention: one projection for all heads, split by view + transpose.
#include "core/generator.h"
#include "nn/attention_core.h"
#include "nn/linear.h"
#include "core/random_ops.h"
#include "core/tensor.h"
#include "core/steps.h"
#include "nn/variant.h"

namespace attn {

// The heads' part (scores to out_proj) is HeadsAttentionTrace's (nn/attention_core.h), as every multi-head module's.
struct MultiHeadAttentionTrace : HeadsAttentionTrace {
  Tensor keys, queries, values;                    // (b, T, d_out)
  Tensor keys_view, queries_view, values_view;     // (b, T, num_heads, head_dim)
  Tensor keys_heads, queries_heads, values_heads;  // (b, num_heads, T, head_dim)
  Steps steps;                                     // in compute order, under the book's names
};

struct MultiHeadAttention {
  int64_t d_out = 0, num_heads = 0, head_dim = 0;
  Linear W_query, W_key, W_value, out_proj;
  double dropout = 0.0;
  Tensor mask;  // buffer: triu(ones(context_length, context_length), diagonal=1)

  // W_query, W_key, W_value (bias = qkv_bias), then out_proj = Linear(d_out, d_out) with bias (or in
  // the variant's linear_order). Throws std::invalid_argument when d_out is not divisible by num_heads.
  static MultiHeadAttention init(Generator& gen, int64_t d_in, int64_t d_out, int64_t context_length, double dropout,
                                 int64_t num_heads, bool qkv_bias, const Variant& v = {});
  Tensor forward(const Tensor& x, Generator& gen, BernoulliPath path, MultiHeadAttentionTrace* trace = nullptr,
                 const Variant& v = {}) const;
  int64_t parameter_count() const;
};

}  // namespace attn
