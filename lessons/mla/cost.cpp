// mla (ch04/05): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"
#include "lessons/common/bonus_cost.h"

namespace attn {

LessonWork mla_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("mla", opt);
  const double L = work_count(opt.latent_dim.value_or(lesson_default_count("mla", "--latent-dim"))), D = s.d_out,
               T = s.tokens;
  const double down = s.d_in * D + s.d_in * L + D * D, up = 2 * L * D;  // W_query, W_DKV, out_proj; W_UK, W_UV
  w.weights = w.recorded = down + up;
  // Every call projects all cached latents up again: T in the full forward, 1 + 2 + ... + T in the steps.
  w.macs = 2 * T * down + (T + T * (T + 1) / 2) * up;
  w.calls = T + 1, w.cached = T;
  token_steps(w, s);
  w.weight_knobs = {"d_out", "latent_dim"};
  w.mac_knobs = {"d_out", "latent_dim"}, w.step_knobs = {"d_out"};
  return w;
}

}  // namespace attn
