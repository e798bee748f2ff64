// wrapper (3.6.1): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

LessonWork wrapper_work(const LessonOptions& opt) {
  LessonWork w;
  const double h = work_count(opt.heads_or(lesson_default_count("wrapper", "--num-heads")));
  w.context = work_count(opt.context_length_or_tokens());
  w.masks_built = h, w.masks_alive = h + 2;  // one buffer per CausalAttention head, ones and triu
  w.weights = w.recorded = 3 * work_count(opt.d_in()) * work_count(opt.d_out) * (h + (opt.no_reseed ? 1 : 0));
  w.mask_knobs = {"context_length", "num_heads"}, w.weight_knobs = {"d_out", "num_heads"};
  return w;
}

}  // namespace attn
