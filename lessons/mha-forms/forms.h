#pragma once
// mha-forms' cells, in two files: mha_forms.cpp (the setup and the forms with the chapter's arithmetic) and
// torch_cells.cpp (nn.MultiheadAttention, scaled_dot_product_attention, FlexAttention, the summary).
#include <string>
#include <utility>
#include <vector>

#include "lessons/lesson.h"
#include "nn/mha_forms.h"
#include "notebook/notebook.h"

namespace attn {

// What every form's cell needs: the sizes as Python literals and the chapter's module and output.
struct FormsSetup {
  std::string d_in, d_out, heads, tokens;  // "3", "3", "3", "6"
  const MultiHeadAttention* mha = nullptr;
  Tensor x, full;
  CombinedTrace combined;                               // queries, keys, values of the combined projection
  std::vector<std::pair<std::string, Tensor>> outputs;  // each form's output, for the summary
};

// A tensor as PyTorch holds it under torch.set_grad_enabled(False): no autograd provenance.
inline Tensor plain(Tensor t) {
  t.set_grad_fn("");
  t.set_requires_grad(false);
  return t;
}
// An nn.Parameter after copy_ under torch.set_grad_enabled(False): "Parameter containing:", requires_grad=True.
inline Tensor parameter(Tensor t) {
  t.set_grad_fn("");
  t.set_parameter(true).set_requires_grad(true);
  return t;
}

// "d_in=3, d_out=3, num_heads=3, context_length=6, dropout=0.0" in the order `order` names them.
std::string form_args(const FormsSetup& s, bool heads_before_context);
// print((out - full).abs().max()) recorded as such; returns the difference.
float diff_line(Notebook& nb, const FormsSetup& s, const std::string& out_name, const Tensor& out);

void torch_class_cells(Notebook& nb, FormsSetup& s);  // forms 7 and 8
void sdpa_cells(Notebook& nb, FormsSetup& s);         // forms 5, 6 and 9, then the summary

}  // namespace attn
