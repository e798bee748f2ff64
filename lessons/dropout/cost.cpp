// dropout (3.5.2, 3.5.3): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

LessonWork dropout_work(const LessonOptions& opt) {
  LessonWork w;
  w.context = work_count(opt.context_length_or_tokens());
  w.masks_built = 2, w.masks_alive = 2;  // the §3.5.1 setup's mask and CausalAttention's buffer
  w.weights = w.recorded = 6 * work_count(opt.d_in()) * work_count(opt.d_out);
  w.mask_knobs = {"context_length"}, w.weight_knobs = {"d_out"};
  return w;
}

}  // namespace attn
