#pragma once
// Listing 3.3 CausalAttention and listing 3.4 MultiHeadAttentionWrapper.
#include <vector>

#include "core/generator.h"
#include "nn/linear.h"
#include "core/random_ops.h"
#include "core/tensor.h"
#include "core/steps.h"
#include "nn/variant.h"

namespace attn {

// Every intermediate of one forward pass, for the lessons; `steps` holds them in compute order.
struct CausalAttentionTrace {
  Tensor keys, queries, values;  // (b, T, d_out)
  Tensor attn_scores;            // (b, T, T) after masked_fill_ with -inf
  Tensor attn_weights;           // softmax, before dropout
  Tensor dropped_weights;        // after dropout (== attn_weights when dropout is 0)
  Tensor context_vec;            // (b, T, d_out)
  Steps steps;
};

struct CausalAttention {
  int64_t d_out = 0;
  Linear W_query, W_key, W_value;
  double dropout = 0.0;
  Tensor mask;  // buffer: triu(ones(context_length, context_length), diagonal=1)

  // nn.Linear W_query, W_key, W_value in this order (the variant's linear_order); the buffer and
  // nn.Dropout draw nothing.
  static CausalAttention init(Generator& gen, int64_t d_in, int64_t d_out, int64_t context_length, double dropout,
                              bool qkv_bias, const Variant& v = {});
  // x: (b, T, d_in) with T <= context_length. Dropout, when p > 0, draws from `gen`.
  Tensor forward(const Tensor& x, Generator& gen, BernoulliPath path, CausalAttentionTrace* trace = nullptr,
                 const Variant& v = {}) const;
};

struct WrapperTrace {
  std::vector<CausalAttentionTrace> heads;
  std::vector<Tensor> head_outputs;  // in list order
  Tensor context_vec;                // torch.cat(...) in the variant's order
  Steps steps;                       // every head's, then head_outputs[i]
};

struct MultiHeadAttentionWrapper {
  std::vector<CausalAttention> heads;  // constructed in list order

  static MultiHeadAttentionWrapper init(Generator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                                        double dropout, int64_t num_heads, bool qkv_bias, const Variant& v = {});
  // torch.cat([head(x) for head in self.heads], dim=-1): (b, T, num_heads * d_out)
  Tensor forward(const Tensor& x, Generator& gen, BernoulliPath path, WrapperTrace* trace = nullptr,
                 const Variant& v = {}) const;
};

// mask.bool()[:T, :T]
Tensor causal_mask_bool(const Tensor& mask, int64_t num_tokens);

// The mask buffer is context_length x context_length: slicing [:T, :T] needs T <= context_length.
void check_fits_context(int64_t num_tokens, const Tensor& mask);

}  // namespace attn
