#pragma once
// PyTorch 1.13's tensor repr, exactly (shared/spec/torch-print.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace attn {

// Everything repr() needs: values in row-major order (float32 values widened exactly to double).
struct PrintSpec {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;           // () for 0-d
  std::vector<double> values;           // numel values, row-major
  std::optional<std::string> autograd;  // "grad_fn=<MmBackward0>" or "requires_grad=True"
  bool parameter = false;               // prefix "Parameter containing:\n"
};

// The text of print(t): "tensor(...)" with suffixes, no trailing newline.
std::string repr(const PrintSpec& spec);

// "torch.Size([2, 6, 3])"
std::string repr_size(const std::vector<int64_t>& shape);

}  // namespace attn
