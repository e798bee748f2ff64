// The trainable lesson's diagnoses (lessons/diagnosis.h): its weights' mistakes, the projections created in
// another order, the weights drawn by the other distribution.
#include "lessons/diagnosis.h"

namespace attn {

void trainable_diagnoses(Reruns& r) {
  weight_mistakes(r, 2, true, false);
  linear_orders(r, {"W_query", "W_key", "W_value"});
  LessonOptions o = r.base;
  o.init = r.base.init == Init::Rand ? Init::Randn : Init::Rand;
  r.options(MistakeId::InitDraw, text(o.init == Init::Randn ? "check.detail.init-randn" : "check.detail.init-rand"), o);
}

}  // namespace attn
