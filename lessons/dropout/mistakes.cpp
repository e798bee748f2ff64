// The dropout lesson's diagnoses (lessons/diagnosis.h): its weights' and dropout's mistakes, a missing
// torch.manual_seed before each of its later dropout cells (named by the cell: lessons/cell_variant.h),
// the projections created in another order, MKL's masks.
#include "lessons/diagnosis.h"

namespace attn {

void dropout_diagnoses(Reruns& r) {
  const double rate = dropout_rate("dropout", r.base.dropout);
  weight_mistakes(r, 3, true, true);
  dropout_scale(r, rate);
  dropout_mistakes(r, rate, true, false);
  CellVariant weights, both, sum;
  weights.no_reseed_before_dropout_weights = true;  // print(dropout(attn_weights))
  sum.no_reseed_before_dropout_sum = true;          // print(dropout(attn_weights).sum(dim=-1))
  both.no_reseed_before_dropout_weights = both.no_reseed_before_dropout_sum = true;
  r.cells(MistakeId::DropoutReseed, text("check.detail.reseed-weights"), weights);
  r.cells(MistakeId::DropoutReseed, text("check.detail.reseed-both"), both);
  r.cells(MistakeId::DropoutReseed, text("check.detail.reseed-sum"), sum);
  linear_orders(r, {"W_query", "W_key", "W_value"});
  mkl_dropout(r, rate);
}

}  // namespace attn
