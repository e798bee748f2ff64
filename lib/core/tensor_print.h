#pragma once
// print(t) for attn::Tensor: the PyTorch text, suffix included.
#include <string>

#include "core/print.h"
#include "core/tensor.h"

namespace attn {

PrintSpec print_spec(const Tensor& t);
std::string repr(const Tensor& t);
// The same text with where each printed element lies in it (print.h, ElementSpan).
std::string repr(const Tensor& t, std::vector<ElementSpan>* spans);
// Element `index` (row-major) of `t` as print(t) writes it (see print.h).
std::string element_text(const Tensor& t, int64_t index);

}  // namespace attn
