#include "nn/course_attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "nn/causal_attention.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/attention_steps.h"
#include "nn/self_attention.h"

namespace attn {

double math_sqrt(int64_t n) { return std::sqrt(static_cast<double>(n)); }

Tensor equals_zero(const Tensor& t) {
  std::vector<float> v = t.values();
  for (float& x : v) x = x == 0.0f ? 1.0f : 0.0f;
  return Tensor(t.shape(), std::move(v), DType::Bool);
}

CourseAttention CourseAttention::init(Generator& gen, int64_t d_model, int64_t num_heads, int64_t context_length,
                                      double dropout, const Variant& v) {
  CourseAttention h;
  h.head_size = d_model / num_heads;
  Linear* created[] = {&h.Wq, &h.Wk, &h.Wv};
  for (int i : creation_order(v, 3)) *created[i] = Linear::init(gen, d_model, h.head_size, false);
  h.mask = tril(ones({context_length, context_length}));  // register_buffer: no draws
  h.dropout = dropout;                                    // nn.Dropout: no draws
  return h;
}

Tensor CourseAttention::forward(const Tensor& x, Generator& gen, BernoulliPath path, CourseAttentionTrace* trace,
                                const Variant& v) const {
  using V = Variant;
  const int64_t T = x.size(1);
  check_fits_context(T, mask);
  CourseAttentionTrace t;
  Steps& s = t.steps;
  t.q = s.bind("q", "q = self.Wq(x)", Wq(x));  // (B, T, head_size)
  t.k = s.bind("k", "k = self.Wk(x)", Wk(x));
  t.v = s.bind("v", "v = self.Wv(x)", Wv(x));
  t.scores = matmul(t.q, transpose(t.k, -2, -1));  // (B, T, T)
  t.scaled = s.bind("weights", "weights = (q @ k.transpose(-2, -1)) / math.sqrt(d_model // num_heads)",
                    scale_scores(t.scores, math_sqrt(head_size), {head_size, x.size(-1), x.size(-1)}, v));
  t.mask = narrow(narrow(mask, 0, 0, T), 1, 0, T);  // (T, T)
  t.mask_is_zero = equals_zero(t.mask);
  const bool fills = v.mask != V::Mask::AfterSoftmax && v.mask != V::Mask::Discarded;
  t.masked = fills ? mask_scores(t.scaled, t.mask_is_zero, v) : t.scaled;
  if (fills) s.bind("weights", "weights = weights.masked_fill(self.mask[:T, :T] == 0, float('-inf'))", t.masked);
  t.softmaxed = s.bind("weights", "weights = F.softmax(weights, dim=-1)",
                       scale_weights(variant_softmax(t.masked, -1, v), math_sqrt(head_size), v));
  if (v.mask == V::Mask::AfterSoftmax) {
    t.softmaxed = s.bind("weights", "weights = weights.masked_fill(self.mask[:T, :T] == 0, 0.0)",
                         masked_fill(t.softmaxed, t.mask_is_zero, 0.0f));
  }
  t.dropped = s.bind("weights", "weights = self.dropout(weights)",
                     dropout_step(t.softmaxed, dropout, true, gen, path, v, &t.dropout_keep));
  t.output = s.bind("output", "output = weights @ v", matmul(t.dropped, t.v));  // (B, T, head_size)
  return hand_over(t, trace, t.output);
}

CourseMultiHeadAttention CourseMultiHeadAttention::init(Generator& gen, int64_t d_model, int64_t num_heads,
                                                        int64_t context_length, double dropout, const Variant& v) {
  if (num_heads <= 0 || d_model % num_heads != 0) throw std::invalid_argument("d_model must be divisible by num_heads");
  CourseMultiHeadAttention m;
  m.d_model = d_model;
  m.num_heads = num_heads;
  for (int64_t i = 0; i < num_heads; ++i)
    m.heads.push_back(CourseAttention::init(gen, d_model, num_heads, context_length, dropout, v));
  m.projection_layer = Linear::init(gen, d_model, d_model, true);
  m.dropout = dropout;
  return m;
}

Tensor CourseMultiHeadAttention::forward(const Tensor& x, Generator& gen, BernoulliPath path,
                                         CourseMultiHeadTrace* trace, const Variant& v) const {
  CourseMultiHeadTrace t;
  std::vector<Tensor> outs;
  for (const CourseAttention& head : heads) {
    CourseAttentionTrace ht;
    outs.push_back(head.forward(x, gen, path, &ht, v));
    t.steps.append(ht.steps, static_cast<int>(t.heads.size()));
    t.heads.push_back(std::move(ht));
  }
  for (size_t i = 0; i < outs.size(); ++i)
    t.steps.bind("head_outputs[" + std::to_string(i) + "]", "head_outputs = [head(x) for head in self.heads]", outs[i]);
  t.head_outputs = t.steps.bind("head_outputs", "head_outputs = torch.cat(head_outputs, dim=-1)",
                                cat(outs, -1));  // (B, T, num_heads * head_size) = (B, T, d_model)
  t.projected = v.no_out_proj ? t.head_outputs : projection_layer(t.head_outputs);
  if (!v.no_out_proj) t.steps.bind("out", "out = self.projection_layer(head_outputs)", t.projected);
  t.out = t.steps.bind("out", "out = self.dropout(out)",
                       dropout_step(t.projected, dropout, true, gen, path, v, &t.dropout_keep));
  return hand_over(t, trace, t.out);
}

int64_t CourseMultiHeadAttention::parameter_count() const {
  int64_t n = projection_layer.parameter_count();
  for (const CourseAttention& h : heads) n += h.Wq.parameter_count() + h.Wk.parameter_count() + h.Wv.parameter_count();
  return n;
}

}  // namespace attn
