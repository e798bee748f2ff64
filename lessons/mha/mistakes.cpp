// The mha lesson's diagnoses (lessons/diagnosis.h): its weights' and dropout's mistakes, out_proj forgotten,
// the heads split or merged by a view without transpose, the projections created in another order, MKL's masks,
// Exercise 3.3 without its seed.
#include "lessons/diagnosis.h"

namespace attn {

void mha_diagnoses(Reruns& r) {
  const double rate = dropout_rate("mha", r.base.dropout);
  weight_mistakes(r, 4, true, true, true);
  dropout_scale(r, rate);
  Variant no_proj;
  no_proj.no_out_proj = true;
  r.variant(MistakeId::NoOutProj, text("check.detail.no-out-proj"), no_proj);
  Variant split;
  split.split_without_transpose = true;
  r.variant(MistakeId::ViewNoTranspose, text("check.detail.split-no-transpose"), split);
  Variant merge;
  merge.merge_without_transpose = true;
  r.variant(MistakeId::ViewNoTranspose, text("check.detail.merge-no-transpose"), merge);
  dropout_mistakes(r, rate, true, true);
  linear_orders(r, {"W_query", "W_key", "W_value", "out_proj"});
  mkl_dropout(r, rate);
  if (r.base.gpt2 && !r.base.no_reseed) {  // Exercise 3.3 without torch.manual_seed: x from the chapter's generator
    LessonOptions o = r.base;
    o.no_reseed = true;
    r.options(MistakeId::MissingReseed, text("check.detail.missing-reseed-exercise"), o);
  }
}

// Whether mha can run with `o`: its heads divide d_out, as MultiHeadAttention's assert requires.
bool mha_settings_exist(const LessonOptions& o) {
  return o.d_out % o.heads_or(lesson_default_count("mha", "--num-heads")) == 0;
}

}  // namespace attn
