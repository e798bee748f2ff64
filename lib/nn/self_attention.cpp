#include "nn/self_attention.h"

#include <cmath>

#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/random_ops.h"

namespace attn {

// Python's d_k ** 0.5 is pow, which is not always the correctly rounded sqrt (2921 ** 0.5 differs in
// the last bit). Clang rewrites pow(x, 0.5) as sqrt(x) even without -ffast-math; an exponent it
// cannot see keeps the call a call to pow. (g++ never rewrites it: the same result there.)
double sqrt_d_k(int64_t d_k) {
  static volatile double half = 0.5;
  return std::pow(static_cast<double>(d_k), half);
}

SelfAttentionV1 SelfAttentionV1::init(Generator& gen, int64_t d_in, int64_t d_out) {
  auto param = [&] {
    Tensor p({d_in, d_out}, rand_values(gen, d_in * d_out));
    p.set_parameter(true).set_requires_grad(true);
    return p;
  };
  SelfAttentionV1 m;
  m.W_query = param();
  m.W_key = param();
  m.W_value = param();
  return m;
}

Tensor SelfAttentionV1::forward(const Tensor& x) const {
  Tensor keys = matmul(x, W_key);
  Tensor queries = matmul(x, W_query);
  Tensor values = matmul(x, W_value);
  Tensor attn_scores = matmul(queries, T(keys));  // omega
  Tensor attn_weights = softmax(div(attn_scores, sqrt_d_k(keys.size(-1))), -1);
  return matmul(attn_weights, values);
}

SelfAttentionV2 SelfAttentionV2::init(Generator& gen, int64_t d_in, int64_t d_out, bool qkv_bias) {
  SelfAttentionV2 m;
  m.W_query = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_key = Linear::init(gen, d_in, d_out, qkv_bias);
  m.W_value = Linear::init(gen, d_in, d_out, qkv_bias);
  return m;
}

Tensor SelfAttentionV2::forward(const Tensor& x) const {
  Tensor keys = W_key(x);
  Tensor queries = W_query(x);
  Tensor values = W_value(x);
  Tensor attn_scores = matmul(queries, T(keys));
  Tensor attn_weights = softmax(div(attn_scores, sqrt_d_k(keys.size(-1))), -1);
  return matmul(attn_weights, values);
}

}  // namespace attn
