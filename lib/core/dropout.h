#pragma once
// nn.Dropout(p) in training mode on a tensor (docs/spec/torch-rng.md §7).
#include "core/generator.h"
#include "core/random_ops.h"
#include "core/tensor.h"

namespace attn {

// p == 0 returns `t` itself and draws nothing. Otherwise input * (mask / f32(1 - p)), MulBackward0.
// When `mask` is given it receives the 0/1 keep-mask (empty when none was drawn).
Tensor dropout(const Tensor& t, double p, Generator& gen, BernoulliPath path, Tensor* mask = nullptr);

}  // namespace attn
