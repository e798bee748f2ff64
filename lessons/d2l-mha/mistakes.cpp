// The d2l-mha lesson's diagnoses (lessons/diagnosis.h): its weights' mistakes, valid_lens repeated instead of
// repeat_interleave'd, its dropout's (in train()) or F.dropout left training (in eval()), the projections
// created in another order, MKL's masks.
#include "core/py_repr.h"
#include "lessons/diagnosis.h"

namespace attn {

void d2l_mha_diagnoses(Reruns& r) {
  const LessonOptions& opt = r.base;
  weight_mistakes(r, 3, true, false);
  Variant v;
  v.repeat_heads = true;
  r.variant(MistakeId::RepeatValidLens, text("check.detail.repeat-forward"), v);
  v.repeat_rows = true;
  r.variant(MistakeId::RepeatValidLens, text("check.detail.repeat-both"), v);
  v = Variant();
  v.repeat_rows = true;
  r.variant(MistakeId::RepeatValidLens, text("check.detail.repeat-softmax"), v);
  const double p = opt.dropout.value_or(lesson_default("d2l-mha", "--dropout"));  // in train() or eval()
  const bool training = opt.dropout && *opt.dropout > 0.0;                        // as the lesson decides
  if (training) {
    dropout_scale(r, p);
    dropout_mistakes(r, p, true, false);
  } else if (p > 0.0) {
    v = Variant();
    v.functional_dropout = true;
    r.variant(MistakeId::FunctionalDropout, text("check.detail.functional-dropout", {py_float(p)}), v);
  }
  linear_orders(r, {"W_q", "W_k", "W_v", "W_o"});
  mkl_dropout(r, dropout_rate("d2l-mha", opt.dropout));
}

// Whether d2l-mha can run with `o`: its heads divide num_hiddens.
bool d2l_mha_settings_exist(const LessonOptions& o) {
  return o.num_hiddens.value_or(lesson_default_count("d2l-mha", "--num-hiddens")) %
             o.heads_or(lesson_default_count("d2l-mha", "--num-heads")) ==
         0;
}

}  // namespace attn
