// The swa lesson's diagnoses (lessons/diagnosis.h): the window one token too wide (in the mask, or in the
// cache too), the cache keeping the oldest tokens, an export that forgot the window, and the mistakes of the
// modules after the chapter.
#include <algorithm>

#include "lessons/diagnosis.h"

namespace attn {

void swa_diagnoses(Reruns& r) {
  const LessonOptions& opt = r.base;
  const int64_t w = opt.window.value_or(lesson_default_count("swa", "--window")), n = opt.num_tokens();
  const std::string ws = std::to_string(w), wider_ws = std::to_string(w + 1);
  Variant v;
  v.window_off_by_one = true;
  r.variant(MistakeId::SwaWindowOffByOne, text("check.detail.swa-window-off-by-one", {ws, wider_ws}), v);
  // The same off-by-one in the learner's own cache (`[-(W + 1):]`, as their mask lets W + 1 keys through):
  // the numbers of a window of W + 1 everywhere, which an export that forgets window=W + 1 also gives.
  // (A window of the tokens or more is causal attention: one more changes nothing, no rerun.)
  if (w < n) {
    LessonOptions wider = opt;
    wider.window = w + 1;
    r.options(MistakeId::SwaWindowOffByOne, text("check.detail.swa-window-off-by-one-cache", {ws, wider_ws}),
              std::move(wider));
  }
  v = Variant();
  v.cache_keeps_oldest = true;
  r.variant(MistakeId::SwaCacheOldest, text("check.detail.swa-cache-oldest", {ws}), v);
  for (int64_t i = 1; i <= std::min<int64_t>(n, 9); ++i) {  // 1 .. 8, and the tokens (a window of them or more
    const int64_t window = i == 9 ? n : i;                  // is causal attention)
    if (window != w) {
      LessonOptions o = opt;
      o.window = window;
      settings_rerun(r, "window=" + std::to_string(window), "swa --window " + std::to_string(window), o);
    }
  }
  bonus_module_mistakes(r, opt.heads_or(lesson_default_count("swa", "--num-heads")),
                        opt.d_out_or(lesson_default_count("swa", "--d-out")));
}

}  // namespace attn
