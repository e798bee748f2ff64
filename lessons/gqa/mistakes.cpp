// The gqa lesson's diagnoses (lessons/diagnosis.h): an export that forgot num_kv_groups, the mistakes of the
// modules after the chapter, and the key/value groups tiled or read by the wrong head.
#include <algorithm>

#include "lessons/diagnosis.h"

namespace attn {

void gqa_diagnoses(Reruns& r) {
  const LessonOptions& opt = r.base;
  const int64_t heads = opt.heads_or(lesson_default_count("gqa", "--num-heads"));
  const int64_t groups = opt.num_kv_groups.value_or(lesson_default_count("gqa", "--num-kv-groups"));
  for (int64_t g = 1; g <= std::min<int64_t>(heads, 64); ++g)  // every group count that divides the heads
    if (heads % g == 0 && g != groups) {
      LessonOptions o = opt;
      o.num_kv_groups = g;
      settings_rerun(r, "num_kv_groups=" + std::to_string(g), "gqa --num-kv-groups " + std::to_string(g), o);
    }
  if (!bonus_module_mistakes(r, heads, opt.d_out_or(lesson_default_count("gqa", "--d-out")))) return;
  const int64_t group_size = groups > 0 ? heads / groups : 0;
  const std::string g = std::to_string(groups), size = std::to_string(group_size);
  // repeat tiles the groups (head h reads group h % G): the same as repeat_interleave when G or the
  // group size is 1
  if (groups > 1 && group_size > 1) {
    Variant v;
    v.gqa_repeat = true;
    r.variant(MistakeId::GqaRepeat, text("check.detail.gqa-repeat", {size, g}), v);
  }
  // head h reads group h // G instead of h // group_size: the same when G == group_size (G * G == H),
  // an IndexError when a head's index reaches past the last group (G * G < H)
  if (groups * groups > heads) {
    Variant v;
    v.gqa_group_by_count = true;
    r.variant(MistakeId::GqaWrongGroup, text("check.detail.gqa-wrong-group", {g, size}), v);
  }
}

}  // namespace attn
