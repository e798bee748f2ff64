// The mla lesson's diagnoses (lessons/diagnosis.h): an export that forgot latent_dim, the mistakes of the
// modules after the chapter, and the values up-projected with W_UK.
#include "lessons/diagnosis.h"

namespace attn {

void mla_diagnoses(Reruns& r) {
  const LessonOptions& opt = r.base;
  const int64_t d_out = opt.d_out_or(lesson_default_count("mla", "--d-out"));
  const int64_t declared = opt.latent_dim.value_or(lesson_default_count("mla", "--latent-dim"));
  std::vector<int64_t> sizes = {1, 2, 3, 4, 5, 6, 7, 8, 16};  // small latents, and the class's own max(16, d_out // 8)
  if (d_out / 8 > 16) sizes.push_back(d_out / 8);
  for (int64_t d : sizes)
    if (d != declared) {
      LessonOptions o = opt;
      o.latent_dim = d;
      settings_rerun(r, "latent_dim=" + std::to_string(d), "mla --latent-dim " + std::to_string(d), o);
    }
  if (!bonus_module_mistakes(r, opt.heads_or(lesson_default_count("mla", "--num-heads")), d_out)) return;
  Variant v;
  v.mla_values_from_uk = true;
  r.variant(MistakeId::MlaValuesFromUk, text("check.detail.mla-values-from-uk"), v);
}

}  // namespace attn
