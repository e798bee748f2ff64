#pragma once
// nn.Dropout(p) in training mode on a tensor (docs/spec/torch-rng.md §7).
#include "core/generator.h"
#include "core/random_ops.h"
#include "core/tensor.h"

namespace attn {

// p == 0 returns `t` itself and draws nothing. Otherwise input * (mask / f32(1 - p)), MulBackward0.
// When `mask` is given it receives the 0/1 keep-mask (empty when none was drawn).
Tensor dropout(const Tensor& t, double p, Generator& gen, BernoulliPath path, Tensor* mask = nullptr);
// The same with a given 0/1 `keep` mask of t's shape instead of drawn ones (another generator's draws).
Tensor dropout_with_mask(const Tensor& t, const Tensor& keep, double p);

}  // namespace attn
