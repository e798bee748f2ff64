#pragma once
// Listings 3.1 and 3.2: SelfAttention_v1 (nn.Parameter(torch.rand(d_in, d_out))) and
// SelfAttention_v2 (nn.Linear, bias optional).
#include "core/generator.h"
#include "core/tensor.h"
#include "nn/linear.h"
#include "core/steps.h"
#include "nn/variant.h"

namespace attn {

// One forward pass of either class, step by step (`steps`: the same in compute order).
struct SelfAttentionTrace {
  Tensor keys, queries, values, attn_scores, attn_weights, context_vec;
  Steps steps;
};

struct SelfAttentionV1 {
  Tensor W_query, W_key, W_value;  // Parameters (d_in, d_out), drawn with torch.rand in this order

  static SelfAttentionV1 init(Generator& gen, int64_t d_in, int64_t d_out, const Variant& v = {});
  Tensor forward(const Tensor& x, SelfAttentionTrace* trace = nullptr,
                 const Variant& v = {}) const;  // (T, d_in) -> (T, d_out)
};

struct SelfAttentionV2 {
  Linear W_query, W_key, W_value;  // nn.Linear(d_in, d_out, bias=qkv_bias), in this order

  static SelfAttentionV2 init(Generator& gen, int64_t d_in, int64_t d_out, bool qkv_bias, const Variant& v = {});
  Tensor forward(const Tensor& x, SelfAttentionTrace* trace = nullptr, const Variant& v = {}) const;
};

// keys.shape[-1] ** 0.5 as Python computes it (a double).
double sqrt_d_k(int64_t d_k);

}  // namespace attn
