#pragma once
// print(t) for attn::Tensor: the PyTorch text, suffix included.
#include <string>

#include "core/print.h"
#include "core/tensor.h"

namespace attn {

PrintSpec print_spec(const Tensor& t);
std::string repr(const Tensor& t);

}  // namespace attn
