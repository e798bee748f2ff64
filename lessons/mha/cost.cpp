// mha (3.6.2): the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

LessonWork mha_work(const LessonOptions& opt) {
  LessonWork w;
  const double d_in = work_count(opt.d_in()), d_out = work_count(opt.d_out);
  w.context = work_count(opt.context_length_or_tokens());
  w.masks_built = 1, w.masks_alive = 2;                       // ones, then its triu
  w.weights = w.recorded = 3 * d_in * d_out + d_out * d_out;  // W_query, W_key, W_value, out_proj
  w.mask_knobs = {"context_length"}, w.weight_knobs = {"d_out"};
  if (opt.gpt2) {  // exercise 3.3: 4 x 768 x 768 weights and a 1024 x 1024 mask, whatever the options
    w.more_weights = 4 * 768.0 * 768.0;
    w.more_mask_elements = 1024.0 * 1024.0;
    if (w.more_weights > w.weights) w.weight_knobs = {"gpt2"};
    if (w.more_mask_elements > w.context * w.context) w.mask_knobs = {"gpt2"};
  }
  return w;
}

}  // namespace attn
