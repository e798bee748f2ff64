// The trainable lesson's diagnoses (lessons/diagnosis.h): its weights' mistakes (everywhere, or in one class's
// forward only), the projections created in another order, the weights drawn by the other distribution.
#include "lessons/diagnosis.h"

namespace attn {

void trainable_diagnoses(Reruns& r) {
  weight_mistakes(r, 2, true, false);
  // The same mistakes in one class's forward only: a learner's 3.4.1 cells right, one class written wrong.
  const size_t everywhere = r.list.size();
  for (auto in : {CellVariant::VariantIn::SelfAttentionV1, CellVariant::VariantIn::SelfAttentionV2})
    for (size_t i = 0; i < everywhere; ++i) {
      MistakeRerun one = r.list[i];
      one.opt.cells.variant_in = in;
      r.list.push_back(std::move(one));
    }
  linear_orders(r, {"W_query", "W_key", "W_value"});
  LessonOptions o = r.base;
  o.init = r.base.init == Init::Rand ? Init::Randn : Init::Rand;
  r.options(MistakeId::InitDraw, text(o.init == Init::Randn ? "check.detail.init-randn" : "check.detail.init-rand"), o);
}

}  // namespace attn
