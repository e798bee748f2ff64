// mha-forms (ch03/02_bonus): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/common/bonus_cost.h"
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

LessonWork mha_forms_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("mha-forms", opt);
  const double layer = 3 * s.d_in * s.d_out + s.d_out * s.d_out;  // W_query, W_key, W_value, out_proj
  w.weights = w.recorded = 4 * layer;  // the chapter's, the combined copy, the einsum copy, in_proj
  // Ten forward passes (the chapter's, nine forms and the explicit steps), each its projections and T x T scores.
  w.macs = 10 * (s.tokens * layer + 2 * s.tokens * s.tokens * s.d_out);
  w.calls = 10;
  w.weight_knobs = w.mac_knobs = {"d_out"};
  return w;
}

}  // namespace attn
