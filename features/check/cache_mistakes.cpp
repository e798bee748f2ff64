// The KV cache and sliding-window mistakes (lib/nn/variant.h's issue-23 block) as reruns of the lessons
// kv-cache and swa: the module's forward or the lesson's cells with one mistake, everything else the book's.
#include "features/check/cache_mistakes.h"

#include <algorithm>

#include "lessons/lesson_text.h"

namespace attn {

std::vector<MistakeRerun> cache_mistake_reruns(const std::string& lesson, const LessonOptions& opt) {
  std::vector<MistakeRerun> out;
  auto rerun = [&](const std::string& mistake, Prose detail, auto set) {
    LessonOptions o = opt;
    set(o.variant);
    out.push_back({mistake, std::move(detail), std::move(o)});
  };
  if (lesson == "swa") {
    const int64_t w = opt.window.value_or(lesson_default_count("swa", "--window"));
    rerun("swa-window-off-by-one",
          text("check.detail.swa-window-off-by-one", {std::to_string(w), std::to_string(w + 1)}),
          [](Variant& v) { v.window_off_by_one = true; });
    // The same off-by-one in the learner's own cache (`[-(W + 1):]`, as their mask lets W + 1 keys through):
    // the numbers of a window of W + 1 everywhere, which an export that forgets window=W + 1 also gives.
    // (A window of the tokens or more is causal attention: one more changes nothing, no rerun.)
    if (w < opt.num_tokens()) {
      LessonOptions wider = opt;
      wider.window = w + 1;
      out.push_back({"swa-window-off-by-one",
                     text("check.detail.swa-window-off-by-one-cache", {std::to_string(w), std::to_string(w + 1)}),
                     std::move(wider)});
    }
    rerun("swa-cache-oldest", text("check.detail.swa-cache-oldest", {std::to_string(w)}),
          [](Variant& v) { v.cache_keeps_oldest = true; });
  } else if (lesson == "kv-cache") {
    rerun("kv-mask-row0", text("check.detail.kv-mask-from-row-zero"), [](Variant& v) { v.mask_from_row0 = true; });
    // The lesson's second text: the prompt of its prefill cell, the first (n + 1) / 2 tokens. Without the
    // reset it needs mask rows up to 2n: at a shorter context_length the book's class raises (its mask buffer
    // runs out), but a learner's cache that masks by positions (no buffer) runs on and gives the numbers of
    // the book's class with room for them: that rerun, with context_length 2n, named as such.
    const std::string prompt = std::to_string((opt.num_tokens() + 1) / 2);
    if (opt.context_length_or_tokens() >= 2 * opt.num_tokens()) {
      rerun("no-reset-cache", text("check.detail.no-reset-cache", {prompt}),
            [](Variant& v) { v.no_reset_cache = true; });
    } else {
      LessonOptions o = opt;
      o.context_length = 2 * opt.num_tokens();
      o.variant.no_reset_cache = true;
      out.push_back(
          {"no-reset-cache",
           text("check.detail.no-reset-cache-positions", {prompt, std::to_string(opt.context_length_or_tokens())}),
           std::move(o)});
    }
  }
  return out;
}

std::vector<MistakeRerun> own_setting_reruns(const std::string& lesson, const LessonOptions& opt) {
  std::vector<MistakeRerun> out;
  auto rerun = [&](const std::string& key, const std::string& flag, int64_t value, auto set) {
    LessonOptions o = opt;
    set(o, value);
    const std::string v = std::to_string(value);
    out.push_back({"export-settings", text("check.detail.settings", {key + "=" + v, lesson + " " + flag + " " + v}),
                   std::move(o)});
  };
  if (lesson == "gqa") {  // every group count that divides the heads
    const int64_t heads = opt.heads_or(lesson_default_count(lesson, "--num-heads"));
    const int64_t declared = opt.num_kv_groups.value_or(lesson_default_count(lesson, "--num-kv-groups"));
    for (int64_t g = 1; g <= std::min<int64_t>(heads, 64); ++g)
      if (heads % g == 0 && g != declared)
        rerun("num_kv_groups", "--num-kv-groups", g, [](LessonOptions& o, int64_t v) { o.num_kv_groups = v; });
  } else if (lesson == "mla") {  // small latents, and the class's own default max(16, d_out // 8)
    const int64_t d_out = opt.d_out_or(lesson_default_count(lesson, "--d-out"));
    const int64_t declared = opt.latent_dim.value_or(lesson_default_count(lesson, "--latent-dim"));
    std::vector<int64_t> sizes = {1, 2, 3, 4, 5, 6, 7, 8, 16};
    if (d_out / 8 > 16) sizes.push_back(d_out / 8);
    for (int64_t d : sizes)
      if (d != declared) rerun("latent_dim", "--latent-dim", d, [](LessonOptions& o, int64_t v) { o.latent_dim = v; });
  } else if (lesson == "swa") {  // 1 .. 8, and the tokens (a window of them or more is causal attention)
    const int64_t declared = opt.window.value_or(lesson_default_count(lesson, "--window")), n = opt.num_tokens();
    for (int64_t w = 1; w <= std::min<int64_t>(n, 9); ++w) {
      const int64_t window = w == 9 ? n : w;
      if (window != declared) rerun("window", "--window", window, [](LessonOptions& o, int64_t v) { o.window = v; });
    }
  }
  return out;
}

}  // namespace attn
