#include "nn/attention_steps.h"

#include <algorithm>
#include <limits>

#include "core/dropout.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "nn/self_attention.h"

namespace attn {

std::vector<int> creation_order(const Variant& v, int n) {
  std::vector<int> order;
  for (int i : v.linear_order)
    if (i >= 0 && i < n && std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  if (static_cast<int>(order.size()) != n) {
    order.clear();
    for (int i = 0; i < n; ++i) order.push_back(i);
  }
  return order;
}

Tensor scale_scores(const Tensor& scores, double book, const ScaleSizes& sizes, const Variant& v) {
  switch (v.scale) {
    case Variant::Scale::None:
      return scores;
    case Variant::Scale::Dk:
      return div(scores, static_cast<double>(sizes.d_k));
    case Variant::Scale::SqrtDin:
      return div(scores, sqrt_d_k(sizes.d_in));
    case Variant::Scale::SqrtWidth:
      return div(scores, sqrt_d_k(sizes.width));
    case Variant::Scale::AfterSoftmax:
      return scores;  // scale_weights divides after softmax
    default:
      return div(scores, book);
  }
}

Tensor variant_softmax(const Tensor& x, int64_t book_dim, const Variant& v) {
  const bool other = v.softmax_dim && *v.softmax_dim >= 0 && *v.softmax_dim < x.dim() - 1;
  return softmax(x, other ? *v.softmax_dim : book_dim);
}

Tensor scale_weights(const Tensor& weights, double book, const Variant& v) {
  return v.scale == Variant::Scale::AfterSoftmax ? div(weights, book) : weights;  // softmax(...) / d_k**0.5
}

Tensor scaled_softmax(const Tensor& scores, double book, const ScaleSizes& sizes, int64_t book_dim, const Variant& v) {
  return scale_weights(variant_softmax(scale_scores(scores, book, sizes, v), book_dim, v), book, v);
}

Tensor fill_mask(const Tensor& book_mask, const Variant& v) {
  const int64_t n = book_mask.size(0);
  if (v.mask == Variant::Mask::NoDiagonal) return to_bool(triu(ones({n, n}), 0));
  if (v.mask == Variant::Mask::Tril) return to_bool(tril(ones({n, n}), 0));
  return book_mask;
}

Tensor mask_scores(const Tensor& scores, const Tensor& book_mask, const Variant& v) {
  const float inf = std::numeric_limits<float>::infinity();
  switch (v.mask) {
    case Variant::Mask::FillZero:
      return masked_fill(scores, book_mask, 0.0f);  // masked_fill(mask, 0)
    case Variant::Mask::PlusInf:
      return masked_fill(scores, book_mask, inf);  // masked_fill(mask, torch.inf)
    case Variant::Mask::AddOnes:
      return add(scores, Tensor(book_mask.shape(), book_mask.values()));  // attn_scores + mask
    default:
      return masked_fill(scores, fill_mask(book_mask, v), -inf);
  }
}

Tensor dropout_step(const Tensor& t, double p, bool training, Generator& gen, BernoulliPath path, const Variant& v,
                    Tensor* keep) {
  const bool active = (training && !v.eval) || v.functional_dropout;
  if (!active || p <= 0.0) {
    if (keep) *keep = Tensor();
    return t;
  }
  for (const Tensor& k : v.own_masks)
    if (k.shape() == t.shape()) {
      if (keep) *keep = k;
      return dropout_with_mask(t, k, p);
    }
  if (v.rand_mask && p < 1.0) {  // mask = (torch.rand(X.shape) > p).float(); mask * X / (1 - p)
    std::vector<float> u = rand_values(gen, t.numel());
    for (float& x : u) x = x > static_cast<float>(p) ? 1.0f : 0.0f;
    const Tensor k(t.shape(), std::move(u));
    if (keep) *keep = k;
    return div(mul(k, t), v.dropout_by_p ? p : 1.0 - p);
  }
  if (!v.dropout_by_p || p >= 1.0) return dropout(t, p, gen, path, keep);
  Tensor k;
  dropout(t, p, gen, path, &k);  // the same draws, the same mask
  if (keep) *keep = k;
  return div(mul(t, k), p);  // x * mask / p
}

MaskedWeights mask_softmax_dropout(const Tensor& scores, const Tensor& book_mask, const std::string& mask_code,
                                   const ScaleSizes& sizes, double p, Generator& gen, BernoulliPath path,
                                   const Variant& v, Steps& steps) {
  using V = Variant;
  MaskedWeights w;
  Tensor s = scores;
  if (v.dropout_on == V::DropoutOn::ScoresBeforeMask) {
    s = dropout_step(s, p, true, gen, path, v);
    steps.bind("attn_scores", "attn_scores = self.dropout(attn_scores)", s);
  }
  if (v.mask != V::Mask::AfterSoftmax && v.mask != V::Mask::Discarded) {
    s = mask_scores(s, book_mask, v);
    steps.modify("attn_scores", mask_code, s);
  }
  if (v.dropout_on == V::DropoutOn::ScoresAfterMask) {
    s = dropout_step(s, p, true, gen, path, v);
    steps.bind("attn_scores", "attn_scores = self.dropout(attn_scores)", s);
  }
  w.masked = s;
  w.weights = scaled_softmax(s, sqrt_d_k(sizes.d_k), sizes, -1, v);
  steps.bind("attn_weights", "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)", w.weights);
  if (v.mask == V::Mask::AfterSoftmax) {
    w.weights = masked_fill(w.weights, book_mask, 0.0f);
    steps.bind("attn_weights", "attn_weights = attn_weights.masked_fill(mask, 0.0)", w.weights);
  }
  w.dropped = v.dropout_on == V::DropoutOn::Weights ? dropout_step(w.weights, p, true, gen, path, v) : w.weights;
  steps.bind("attn_weights", "attn_weights = self.dropout(attn_weights)", w.dropped);
  return w;
}

}  // namespace attn
