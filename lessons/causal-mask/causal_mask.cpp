// §3.5.1: causal attention. Mask the weights above the diagonal and renormalise, then the same
// result in one step by filling the scores with -inf before softmax.
#include <cmath>
#include <limits>

#include "lessons/common/causal_setup.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/tensor_print.h"

namespace attn {

namespace {

float max_abs_diff(const Tensor& a, const Tensor& b) {
  const std::vector<float> va = a.values(), vb = b.values();
  float m = 0.0f;
  for (size_t i = 0; i < va.size(); ++i) m = std::max(m, std::fabs(va[i] - vb[i]));
  return m;
}

}  // namespace

Notebook causal_mask_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("causal-mask", opt);
  const std::string first = quoted_token(opt, 0), second = quoted_token(opt, 1);

  section_heading(nb, "3.5.1");
  CausalWeights w = causal_weights(opt, &nb, true);

  nb.cell({"context_length = attn_scores.shape[0]",
           "mask_simple = torch.tril(torch.ones(context_length, context_length))", "print(context_length)",
           "print(mask_simple)"});
  const int64_t context_length = w.attn_scores.size(0);
  nb.record("context_length", Tensor({}, {static_cast<float>(context_length)}, DType::Int64));
  nb.print(std::to_string(context_length));
  Tensor mask_simple = tril(ones({context_length, context_length}));
  nb.show("mask_simple", mask_simple);
  nb.note("mask_simple.note", {second, first});
  nb.explain("mask_simple.explain");

  nb.cell({"masked_simple = attn_weights*mask_simple", "print(masked_simple)"});
  Tensor masked_simple = mul(w.attn_weights_unmasked, mask_simple);
  nb.show("masked_simple", masked_simple);
  nb.note("masked_simple.note");
  nb.explain("masked_simple.explain");
  nb.confusion("masked_simple.confusion", {first});

  nb.cell({"row_sums = masked_simple.sum(dim=-1, keepdim=True)", "masked_simple_norm = masked_simple / row_sums",
           "print(row_sums)", "print(masked_simple_norm)"});
  using WholeSum = CellVariant::WholeSum;
  const WholeSum whole = opt.cells.whole_sum;  // `check`'s rerun: one sum for the whole matrix
  Tensor row_sums = whole == WholeSum::RowSums ? sum(masked_simple) : sum(masked_simple, -1, true);
  nb.show("row_sums", row_sums);
  Tensor masked_simple_norm = div(masked_simple, whole != WholeSum::No ? sum(masked_simple) : row_sums);
  nb.show("masked_simple_norm", masked_simple_norm);
  nb.note("masked_simple_norm.note");
  const std::string n = std::to_string(context_length);
  nb.explain("masked_simple_norm.explain", {n});

  nb.cell({"mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)",
           "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)", "print(mask)", "print(masked)"});
  nb.show("mask", w.mask);
  nb.show("masked", w.masked);
  nb.note("masked.note");
  nb.explain("masked.explain");
  nb.confusion("masked.confusion");

  tensor_cell(nb, {"attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)", "print(attn_weights)"},
              "attn_weights", w.attn_weights, "attn_weights.note", "attn_weights.explain");

  nb.heading("3.5.1", "heading.leakage_after_softmax");
  nb.cell({"print(masked_simple_norm)", "print(attn_weights)", "print((masked_simple_norm - attn_weights).abs().max())",
           "print(torch.allclose(masked_simple_norm, attn_weights))"});
  // Both were shown (and recorded) above: printed again side by side in time, not recorded twice.
  nb.print(repr(masked_simple_norm));
  nb.print(repr(w.attn_weights));
  const float diff = max_abs_diff(masked_simple_norm, w.attn_weights);
  Tensor diff_t({}, {diff});
  // (a - b).abs().max() keeps the graph: PyTorch prints its grad_fn.
  if (masked_simple_norm.needs_grad() || w.attn_weights.needs_grad()) diff_t.set_grad_fn("MaxBackward1");
  nb.show("(masked_simple_norm - attn_weights).abs().max()", diff_t);
  bool close = true;
  {
    const std::vector<float> a = masked_simple_norm.values(), b = w.attn_weights.values();
    for (size_t i = 0; i < a.size(); ++i)
      if (!(std::fabs(a[i] - b[i]) <= 1e-8 + 1e-5 * std::fabs(b[i]))) close = false;
  }
  nb.print(close ? "True" : "False");
  nb.note("both_ways_close.note");
  nb.explain("both_ways_close.explain");

  nb.cell({"print(mask_simple.bool())", "print(mask.bool())",
           "print(torch.equal(mask_simple + mask, torch.ones(context_length, context_length)))"});
  nb.show("mask_simple.bool()", to_bool(mask_simple));
  nb.show("mask.bool()", to_bool(w.mask));
  Tensor both = add(mask_simple, w.mask);
  const std::vector<float> bv = both.values();
  bool complementary = true;
  for (float v : bv) complementary = complementary && v == 1.0f;
  nb.print(complementary ? "True" : "False");
  nb.note("masks_complementary.note");
  nb.explain("masks_complementary.explain");

  nb.cell({"values = sa_v2.W_value(inputs)", "context_vec = attn_weights @ values", "print(context_vec)"});
  nb.record("values", w.values);
  Tensor context_vec = matmul(w.attn_weights, w.values);
  nb.show("context_vec", context_vec);
  nb.note("context_vec.note", {first});
  nb.explain("context_vec.explain");
  return nb;
}

}  // namespace attn
