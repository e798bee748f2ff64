#pragma once
// The random tensor factories and dropout of chapter 3, bit-exact to PyTorch 1.13 on x86-64
// (docs/spec/torch-rng.md). Values are row-major float32.
#include <cstdint>
#include <vector>

#include "core/generator.h"

namespace attn {

enum class BernoulliPath { Default, Mkl };  // §7.1 mt19937 (the book), §7.2 Intel MKL (<= 2.6)

std::vector<float> rand_values(Generator& gen, int64_t numel);                         // torch.rand
std::vector<float> uniform_values(Generator& gen, int64_t numel, double a, double b);  // uniform_(a, b), fused
std::vector<float> randn_values(Generator& gen, int64_t numel, double mean = 0.0, double std = 1.0);

// nn.Linear(in, out, bias) init: weight (out, in) row-major, then bias (out) if bias.
struct LinearParams {
  std::vector<float> weight;
  std::vector<float> bias;  // empty when bias=false
};
LinearParams linear_init(Generator& gen, int64_t in_features, int64_t out_features, bool bias);

// bernoulli_(q) over numel elements: 1.0f kept, 0.0f dropped.
std::vector<float> bernoulli_mask(Generator& gen, int64_t numel, double q, BernoulliPath path);

// Training-mode nn.Dropout(p) applied to row-major values: p == 0 returns the input unchanged and
// draws nothing; p == 1 returns input * 0 and draws nothing; otherwise input * (mask / f32(1 - p)).
// If mask_out is given it receives the 0/1 mask (empty when no mask was drawn).
// input * (mask / f32(1 - p)) for a 0/1 `mask` of input's size, 0 < p < 1: dropout's survivors scaled.
std::vector<float> scale_kept(const std::vector<float>& input, const std::vector<float>& mask, double p);
std::vector<float> dropout_values(Generator& gen, const std::vector<float>& input, double p, BernoulliPath path,
                                  std::vector<float>* mask_out = nullptr);

}  // namespace attn
