// The kv-cache lesson's diagnoses (lessons/diagnosis.h): the cache's mask rows taken from row 0, a new prompt
// without reset_cache(), and the mistakes of the modules after the chapter.
#include "lessons/diagnosis.h"

namespace attn {

void kv_cache_diagnoses(Reruns& r) {
  const LessonOptions& opt = r.base;
  Variant row0;
  row0.mask_from_row0 = true;
  r.variant(MistakeId::KvMaskRow0, text("check.detail.kv-mask-from-row-zero"), row0);
  // The lesson's second text: the prompt of its prefill cell, the first (n + 1) / 2 tokens. Without the
  // reset it needs mask rows up to 2n: at a shorter context_length the book's class raises (its mask buffer
  // runs out), but a learner's cache that masks by positions (no buffer) runs on and gives the numbers of
  // the book's class with room for them: that rerun, with context_length 2n, named as such.
  const std::string prompt = std::to_string((opt.num_tokens() + 1) / 2);
  CellVariant no_reset;
  no_reset.no_reset_cache = true;
  if (opt.context_length_or_tokens() >= 2 * opt.num_tokens()) {
    r.cells(MistakeId::NoResetCache, text("check.detail.no-reset-cache", {prompt}), no_reset);
  } else {
    LessonOptions o = opt;
    o.context_length = 2 * opt.num_tokens();
    o.cells = no_reset;
    r.options(MistakeId::NoResetCache,
              text("check.detail.no-reset-cache-positions", {prompt, std::to_string(opt.context_length_or_tokens())}),
              std::move(o));
  }
  bonus_module_mistakes(r, opt.heads_or(lesson_default_count("kv-cache", "--num-heads")),
                        opt.d_out_or(lesson_default_count("kv-cache", "--d-out")));
}

}  // namespace attn
