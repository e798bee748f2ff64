// kv-cache (ch04/03): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"
#include "lessons/common/bonus_cost.h"

namespace attn {

LessonWork kv_cache_work(const LessonOptions& opt) {
  LessonWork w;
  const BonusSizes s = bonus_sizes("kv-cache", opt);
  const double C = work_count(opt.context_length_or_tokens()), T = s.tokens, D = s.d_out;
  w.context = C;
  w.masks_built = 1, w.masks_alive = 2;         // the chapter's triu buffer, and its .bool() in the full forward
  const double layer = 3 * s.d_in * D + D * D;  // W_query, W_key, W_value, out_proj
  w.weights = layer;
  // Calls: the full forward (T tokens), T steps, the prefill (T tokens in two calls), then one token
  // at a time until the cache overflows context_length (C - T + 1 calls, the cache growing to C).
  w.calls = T + 2 + (C - T + 1);
  w.cached = C;
  w.macs = (3 * T + (C - T + 1)) * layer;
  token_steps(w, s);
  const double overflow_keys = (C * (C + 1) - T * (T + 1)) / 2;
  w.streamed += (overflow_keys + 2 * T * T) * D;
  w.head_keys += (overflow_keys + 2 * T * T) * s.heads;
  w.recorded += 2 * T * T * D;  // cache_k, cache_v at every step
  w.mask_knobs = {"context_length"}, w.weight_knobs = {"d_out"};
  w.mac_knobs = {"context_length", "d_out"}, w.step_knobs = {"context_length", "d_out", "num_heads"};
  return w;
}

}  // namespace attn
