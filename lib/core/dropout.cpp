#include "core/dropout.h"

namespace attn {

Tensor dropout(const Tensor& t, double p, Generator& gen, BernoulliPath path, Tensor* mask) {
  if (p == 0.0) {
    if (mask) *mask = Tensor();
    return t;
  }
  std::vector<float> keep;
  Tensor out(t.shape(), dropout_values(gen, t.values(), p, path, &keep));
  if (t.needs_grad()) out.set_grad_fn("MulBackward0");
  if (mask) *mask = keep.empty() ? Tensor() : Tensor(t.shape(), std::move(keep));
  return out;
}

Tensor dropout_with_mask(const Tensor& t, const Tensor& keep, double p) {
  Tensor out(t.shape(), p >= 1.0 ? std::vector<float>(t.numel(), 0.0f) : scale_kept(t.values(), keep.values(), p));
  if (t.needs_grad()) out.set_grad_fn("MulBackward0");
  return out;
}

}  // namespace attn
