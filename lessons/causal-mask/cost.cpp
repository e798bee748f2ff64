// causal-mask (3.5.1): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

LessonWork causal_mask_work(const LessonOptions& opt) {
  LessonWork w;
  w.weights = w.recorded = 3 * work_count(opt.d_in()) * work_count(opt.d_out);  // its masks are the tokens' size
  w.weight_knobs = {"d_out"};
  return w;
}

}  // namespace attn
