// swa (ch04/06): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"
#include "lessons/common/bonus_cost.h"

namespace attn {

LessonWork swa_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("swa", opt);
  const double layer = 3 * s.d_in * s.d_out + s.d_out * s.d_out;
  // the windowed module, the causal one it is compared with, and the forward before the fix (the prefill cells)
  w.weights = 3 * layer;
  w.macs = 5 * s.tokens * layer;  // both full forwards, the steps, and the two cached prefills
  w.calls = s.tokens + 4, w.cached = s.tokens;
  token_steps(w, s);
  w.streamed += 3 * s.tokens * s.tokens * s.d_out;  // the causal module's forward and the two prefills
  w.head_keys += 3 * s.tokens * s.tokens * s.heads;
  w.weight_knobs = w.mac_knobs = w.step_knobs = {"d_out"};
  return w;
}

}  // namespace attn
