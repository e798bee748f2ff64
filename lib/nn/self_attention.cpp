#include "nn/self_attention.h"

#include <cmath>

#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/random_ops.h"
#include "nn/attention_steps.h"

namespace attn {

// Python's d_k ** 0.5 is the C library's pow, which is not always the correctly rounded sqrt: glibc's
// (where PyTorch runs) gives the neighbour of sqrt(2921), for one. Those n are in nn/pow_half.inc
// (tools/gen_pow_half.py, up to 65536), so no pow is called: the WebAssembly build's pow (musl's) has
// other exceptions (550, 971, ...), and clang rewrites pow(x, 0.5) as sqrt anyway.
double sqrt_d_k(int64_t d_k) {
  struct Exception {
    int64_t n;
    int side;  // +1: the double above sqrt(n), -1: below
  };
  static constexpr Exception kGlibcPow[] = {
#include "nn/pow_half.inc"
  };
  const double root = std::sqrt(static_cast<double>(d_k));
  for (const Exception& e : kGlibcPow)
    if (e.n == d_k) return std::nextafter(root, e.side > 0 ? INFINITY : -INFINITY);
  return root;
}

namespace {

// Both classes' forward from the projections on: the book's lines of listings 3.1 and 3.2.
Tensor attend(const Tensor& x, const Tensor& keys, const Tensor& queries, const Tensor& values, const Variant& v,
              const char* keys_code, const char* queries_code, const char* values_code, SelfAttentionTrace* trace) {
  SelfAttentionTrace t;
  t.keys = keys;
  t.steps.bind("keys", keys_code, keys);
  t.queries = queries;
  t.steps.bind("queries", queries_code, queries);
  t.values = values;
  t.steps.bind("values", values_code, values);
  t.attn_scores = t.steps.bind("attn_scores", "attn_scores = queries @ keys.T", matmul(queries, T(keys)));  // omega
  const int64_t d_k = keys.size(-1);
  t.attn_weights =
      t.steps.bind("attn_weights", "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
                   scaled_softmax(t.attn_scores, sqrt_d_k(d_k), {d_k, x.size(-1), d_k}, -1, v));
  t.context_vec = t.steps.bind("context_vec", "context_vec = attn_weights @ values", matmul(t.attn_weights, values));
  return hand_over(t, trace, t.context_vec);
}

}  // namespace

SelfAttentionV1 SelfAttentionV1::init(Generator& gen, int64_t d_in, int64_t d_out, const Variant& v) {
  SelfAttentionV1 m;
  Tensor* created[] = {&m.W_query, &m.W_key, &m.W_value};
  for (int i : creation_order(v, 3)) {
    Tensor p({d_in, d_out}, rand_values(gen, d_in * d_out));
    p.set_parameter(true).set_requires_grad(true);
    *created[i] = p;
  }
  return m;
}

Tensor SelfAttentionV1::forward(const Tensor& x, SelfAttentionTrace* trace, const Variant& v) const {
  return attend(x, matmul(x, W_key), matmul(x, W_query), matmul(x, W_value), v, "keys = x @ self.W_key",
                "queries = x @ self.W_query", "values = x @ self.W_value", trace);
}

SelfAttentionV2 SelfAttentionV2::init(Generator& gen, int64_t d_in, int64_t d_out, bool qkv_bias, const Variant& v) {
  SelfAttentionV2 m;
  Linear* created[] = {&m.W_query, &m.W_key, &m.W_value};
  for (int i : creation_order(v, 3)) *created[i] = Linear::init(gen, d_in, d_out, qkv_bias);
  return m;
}

Tensor SelfAttentionV2::forward(const Tensor& x, SelfAttentionTrace* trace, const Variant& v) const {
  return attend(x, W_key(x), W_query(x), W_value(x), v, "keys = self.W_key(x)", "queries = self.W_query(x)",
                "values = self.W_value(x)", trace);
}

}  // namespace attn
