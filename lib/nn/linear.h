#pragma once
// nn.Linear: y = x @ weight.T (+ bias), weight stored (out_features, in_features) as in PyTorch.
#include <optional>

#include "core/generator.h"
#include "core/tensor.h"

namespace attn {

struct Linear {
  Tensor weight;               // Parameter (out, in)
  std::optional<Tensor> bias;  // Parameter (out)

  // Draws the weight, then the bias, from `gen` exactly as nn.Linear's constructor does.
  static Linear init(Generator& gen, int64_t in_features, int64_t out_features, bool bias);
  Tensor operator()(const Tensor& x) const;  // x: (..., in) -> (..., out)
  int64_t parameter_count() const;
};

}  // namespace attn
