// trainable (3.4): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

LessonWork trainable_work(const LessonOptions& opt) {
  LessonWork w;
  w.weights = w.recorded =
      9 * work_count(opt.d_in()) * work_count(opt.d_out);  // SelfAttention v1, v2 and the weights of 3.4.1
  w.weight_knobs = {"d_out"};
  return w;
}

}  // namespace attn
