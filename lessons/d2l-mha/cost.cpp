// d2l-mha: the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

LessonWork d2l_mha_work(const LessonOptions& opt) {
  LessonWork w;
  const double n = work_count(opt.num_hiddens.value_or(lesson_default_count("d2l-mha", "--num-hiddens")));
  const double in = opt.custom_inputs ? work_count(opt.d_in()) : n;
  w.weights = w.recorded = 3 * in * n + n * n;  // W_q, W_k, W_v and W_o
  w.bytes_per_weight = 10;
  w.weight_knobs = {"num_hiddens"};
  return w;
}

}  // namespace attn
