// gqa (ch04/04): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"
#include "lessons/common/bonus_cost.h"

namespace attn {

LessonWork gqa_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("gqa", opt);
  const double g = work_count(opt.num_kv_groups.value_or(lesson_default_count("gqa", "--num-kv-groups")));
  const double kv = g * (s.d_out / s.heads);
  const double layer = 2 * s.d_in * kv + s.d_in * s.d_out + s.d_out * s.d_out;  // W_key, W_value, W_query, out_proj
  w.weights = w.recorded = layer;
  w.macs = 2 * s.tokens * layer;  // the full forward and the steps
  w.calls = s.tokens + 1, w.cached = s.tokens;
  token_steps(w, s);
  w.weight_knobs = w.mac_knobs = w.step_knobs = {"d_out"};
  return w;
}

}  // namespace attn
