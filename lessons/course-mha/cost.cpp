// course-mha: the work its cells do, for lessons/cost_model.cpp (its registry row names this function).
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"
#include "lessons/course-mha/course_settings.h"

namespace attn {

LessonWork course_mha_work(const LessonOptions& opt) {
  LessonWork w;
  const bool post = opt.preset == "post";
  const double d = post ? work_count(opt.d_model.value_or(course::kDModel)) : work_count(opt.d_in());
  const int64_t heads = post ? course::kNumHeads : course::small_num_heads(static_cast<int64_t>(d));
  const double h = work_count(opt.heads_or(heads));
  w.context = opt.context_length ? work_count(*opt.context_length)
              : post             ? course::kContextLength
                                 : work_count(opt.num_tokens());
  w.masks_built = 2 * h, w.masks_alive = h + 2;  // the heads' buffers, and a CausalAttention per head
  w.weights = w.recorded = 7 * d * d;  // Wq, Wk, Wv of every head, the projection, each head's CausalAttention copy
  w.bytes_per_weight = 8;
  w.mask_knobs = {"context_length", "num_heads"}, w.weight_knobs = {"d_model"};
  return w;
}

}  // namespace attn
