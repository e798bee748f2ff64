// The course-mha lesson's diagnoses (lessons/diagnosis.h): its weights' and dropout's mistakes, the
// projection layer forgotten, the heads' projections created in another order, MKL's masks.
#include "lessons/course-mha/course_settings.h"
#include "lessons/diagnosis.h"

namespace attn {

void course_mha_diagnoses(Reruns& r) {
  const double rate = dropout_rate("course-mha", r.base.dropout);
  weight_mistakes(r, 3, true, true, true);
  dropout_scale(r, rate);
  dropout_mistakes(r, rate, true, false);
  Variant v;
  v.no_out_proj = true;
  r.variant(MistakeId::NoOutProj, text("check.detail.no-projection-layer"), v);
  linear_orders(r, {"Wq", "Wk", "Wv"});
  mkl_dropout(r, rate);
}

// Whether course-mha can run with `o`: its heads divide d_model, as the course's class requires.
bool course_mha_settings_exist(const LessonOptions& o) {
  const bool post = o.preset == "post";
  const int64_t d_model = post ? o.d_model.value_or(course::kDModel) : o.d_in();
  return d_model % o.heads_or(post ? course::kNumHeads : course::small_num_heads(d_model)) == 0;
}

}  // namespace attn
