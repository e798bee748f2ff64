#include "nn/course_attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "nn/causal_attention.h"
#include "core/dropout.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"

namespace attn {

double math_sqrt(int64_t n) { return std::sqrt(static_cast<double>(n)); }

Tensor equals_zero(const Tensor& t) {
  std::vector<float> v = t.values();
  for (float& x : v) x = x == 0.0f ? 1.0f : 0.0f;
  return Tensor(t.shape(), std::move(v), DType::Bool);
}

CourseAttention CourseAttention::init(Generator& gen, int64_t d_model, int64_t num_heads, int64_t context_length,
                                      double dropout) {
  CourseAttention h;
  h.head_size = d_model / num_heads;
  h.Wq = Linear::init(gen, d_model, h.head_size, false);
  h.Wk = Linear::init(gen, d_model, h.head_size, false);
  h.Wv = Linear::init(gen, d_model, h.head_size, false);
  h.mask = tril(ones({context_length, context_length}));  // register_buffer: no draws
  h.dropout = dropout;                                     // nn.Dropout: no draws
  return h;
}

Tensor CourseAttention::forward(const Tensor& x, Generator& gen, BernoulliPath path, CourseAttentionTrace* trace) const {
  const int64_t T = x.size(1);
  check_fits_context(T, mask);
  CourseAttentionTrace t;
  t.q = Wq(x);  // (B, T, head_size)
  t.k = Wk(x);
  t.v = Wv(x);
  t.scores = matmul(t.q, transpose(t.k, -2, -1));                  // (B, T, T)
  t.scaled = div(t.scores, math_sqrt(head_size));
  t.mask = narrow(narrow(mask, 0, 0, T), 1, 0, T);                  // (T, T)
  t.mask_is_zero = equals_zero(t.mask);
  t.masked = masked_fill(t.scaled, t.mask_is_zero, -std::numeric_limits<float>::infinity());
  t.softmaxed = softmax(t.masked, -1);
  t.dropped = attn::dropout(t.softmaxed, dropout, gen, path, &t.dropout_keep);
  t.output = matmul(t.dropped, t.v);                                 // (B, T, head_size)
  Tensor out = t.output;
  if (trace) *trace = std::move(t);
  return out;
}

CourseMultiHeadAttention CourseMultiHeadAttention::init(Generator& gen, int64_t d_model, int64_t num_heads,
                                                        int64_t context_length, double dropout) {
  if (num_heads <= 0 || d_model % num_heads != 0)
    throw std::invalid_argument("d_model must be divisible by num_heads");
  CourseMultiHeadAttention m;
  m.d_model = d_model;
  m.num_heads = num_heads;
  for (int64_t i = 0; i < num_heads; ++i)
    m.heads.push_back(CourseAttention::init(gen, d_model, num_heads, context_length, dropout));
  m.projection_layer = Linear::init(gen, d_model, d_model, true);
  m.dropout = dropout;
  return m;
}

Tensor CourseMultiHeadAttention::forward(const Tensor& x, Generator& gen, BernoulliPath path,
                                         CourseMultiHeadTrace* trace) const {
  CourseMultiHeadTrace t;
  std::vector<Tensor> outs;
  for (const CourseAttention& head : heads) {
    CourseAttentionTrace ht;
    outs.push_back(head.forward(x, gen, path, &ht));
    t.heads.push_back(std::move(ht));
  }
  t.head_outputs = cat(outs, -1);                // (B, T, num_heads * head_size) = (B, T, d_model)
  t.projected = projection_layer(t.head_outputs);
  t.out = attn::dropout(t.projected, dropout, gen, path, &t.dropout_keep);
  Tensor out = t.out;
  if (trace) *trace = std::move(t);
  return out;
}

int64_t CourseMultiHeadAttention::parameter_count() const {
  int64_t n = projection_layer.parameter_count();
  for (const CourseAttention& h : heads) n += h.Wq.parameter_count() + h.Wk.parameter_count() + h.Wv.parameter_count();
  return n;
}

}  // namespace attn
