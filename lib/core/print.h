#pragma once
// PyTorch 1.13's tensor repr, exactly (docs/spec/torch-print.md).
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

// Where one printed element's text lies in repr()'s result: bytes [begin, end), the alignment padding
// excluded; `index` is the element's row-major index. Elements a summarized print leaves out ("...")
// have no span.
struct ElementSpan {
  int64_t index = 0;
  size_t begin = 0, end = 0;
};
// The same text, and with `spans` (when not null) one span per printed element, in print order.
std::string repr(const PrintSpec& spec, std::vector<ElementSpan>* spans);

// Element `index` (row-major) as print(t) writes it, without the alignment padding: "0.2098",
// "1.2346e+02", "-inf", "True". A note that quotes a value of a printed tensor uses this, so the note
// and the tensor above it cannot disagree.
std::string element_text(const PrintSpec& spec, int64_t index);

// "torch.Size([2, 6, 3])"
std::string repr_size(const std::vector<int64_t>& shape);

}  // namespace attn
