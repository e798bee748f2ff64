#include "core/tensor_print.h"

namespace attn {

PrintSpec print_spec(const Tensor& t) {
  PrintSpec spec;
  spec.dtype = t.dtype();
  spec.shape = t.shape();
  for (float v : t.values()) spec.values.push_back(static_cast<double>(v));
  if (!t.grad_fn().empty())
    spec.autograd = "grad_fn=<" + t.grad_fn() + ">";
  else if (t.requires_grad())
    spec.autograd = "requires_grad=True";
  spec.parameter = t.is_parameter();
  return spec;
}

std::string repr(const Tensor& t) { return repr(print_spec(t)); }

std::string repr(const Tensor& t, std::vector<ElementSpan>* spans) { return repr(print_spec(t), spans); }

std::string element_text(const Tensor& t, int64_t index) { return element_text(print_spec(t), index); }

}  // namespace attn
