// The causal-mask lesson's diagnoses (lessons/diagnosis.h): its weights' and mask's mistakes, the projections
// created in another order, and its cells' renormalisation by one sum (which changes row_sums' shape).
#include "lessons/diagnosis.h"

namespace attn {

void causal_mask_diagnoses(Reruns& r) {
  weight_mistakes(r, 2, true, true);
  linear_orders(r, {"W_query", "W_key", "W_value"});
  if (r.base.num_tokens() > 1) {  // one sum for the whole matrix: other numbers
    using W = CellVariant::WholeSum;
    CellVariant c;
    c.whole_sum = W::Norm;
    r.cells(MistakeId::CausalNormWhole, text("check.detail.causal-norm-whole"), c);
    c.whole_sum = W::RowSums;
    r.cells(MistakeId::CausalNormWhole, text("check.detail.causal-norm-whole-sums"), c);
    LessonOptions o = r.base;
    o.cells.whole_sum = W::Norm;
    o.variant = Variant();
    o.variant.mask = Variant::Mask::AfterSoftmax;
    r.options(MistakeId::CausalNormWhole, text("check.detail.causal-norm-whole-weights"), o);
  }
}

}  // namespace attn
