// The lessons rerun with each known mistake, for `attn-tutor check`'s diagnosis: the lesson's own
// modules and cells with one step varied (lib/nn/variant.h), or with the options a mistake amounts to.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "features/check/bonus_mistakes.h"
#include "features/check/cache_mistakes.h"
#include "features/check/replay.h"
#include "lessons/common/causal_setup.h"
#include "lessons/course-mha/course_settings.h"
#include "lessons/lesson_text.h"
#include "lessons/ui_text.h"

namespace attn {

namespace {

struct Reruns {
  const LessonOptions& base;
  std::vector<MistakeRerun> list;
  void variant(const std::string& mistake, Prose detail, Variant v) {
    LessonOptions o = base;
    o.variant = std::move(v);
    list.push_back({mistake, detail, std::move(o)});
  }
  void options(const std::string& mistake, Prose detail, LessonOptions o) {
    list.push_back({mistake, detail, std::move(o)});
  }
  void append(std::vector<MistakeRerun> more) {
    for (MistakeRerun& m : more) list.push_back(std::move(m));
  }
};

// The mistakes on the way from scores of rank `rank` to weights.
void weight_mistakes(Reruns& r, int64_t rank, bool scaled, bool causal, bool heads = false) {
  for (int64_t d = 0; d + 1 < rank; ++d) {
    Variant v;
    v.softmax_dim = d;
    r.variant("softmax-dim", text("check.detail.softmax-dim", {std::to_string(d)}), v);
  }
  using S = Variant::Scale;
  using M = Variant::Mask;
  auto scale = [](S x) {
    Variant v;
    v.scale = x;
    return v;
  };
  auto mask = [](M x) {
    Variant v;
    v.mask = x;
    return v;
  };
  enum Needs { Scaled, Heads, Causal };
  const struct {
    Needs needs;
    Variant v;
    const char* mistake;
    const char* detail;
  } table[] = {{Scaled, scale(S::None), "no-scaling", "check.detail.no-scaling"},
               {Scaled, scale(S::Dk), "wrong-scale", "check.detail.scale-dk"},
               {Scaled, scale(S::SqrtDin), "wrong-scale", "check.detail.scale-din"},
               {Heads, scale(S::SqrtWidth), "wrong-scale", "check.detail.scale-width"},
               {Causal, mask(M::NoDiagonal), "triu-diagonal", "check.detail.triu-diagonal"},
               {Causal, mask(M::AfterSoftmax), "mask-after-softmax", "check.detail.mask-after-softmax"},
               {Causal, mask(M::Tril), "tril-mask", "check.detail.tril-mask"},
               {Causal, mask(M::Discarded), "mask-discarded", "check.detail.mask-discarded"}};
  for (const auto& t : table)
    if (t.needs == Scaled ? scaled : t.needs == Heads ? scaled && heads : causal)
      r.variant(t.mistake, text(t.detail), t.v);
}

// The projections created in every other order: `n` of them (3, or 4 with out_proj).
void linear_orders(Reruns& r, int n, const char* names) {
  std::vector<int> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  const std::vector<std::string> name =
      n == 4 && std::string(names) == "d2l" ? std::vector<std::string>{"W_q", "W_k", "W_v", "W_o"}
      : std::string(names) == "course"      ? std::vector<std::string>{"Wq", "Wk", "Wv"}
                                            : std::vector<std::string>{"W_query", "W_key", "W_value", "out_proj"};
  while (std::next_permutation(order.begin(), order.end())) {
    std::string text;
    for (int i : order) text += (text.empty() ? "" : ", ") + name[static_cast<size_t>(i)];
    Variant v;
    v.linear_order = order;
    r.variant("linear-order", attn::text("check.detail.linear-order", {text}), v);
  }
}

// The dropout mistakes: eval(), the 1/p scale (on nn.Dropout's mask and on a torch.rand one), a
// hand-written torch.rand mask, dropout on the scores.
void dropout_mistakes(Reruns& r, double p, bool module, bool scores) {
  if (!(p > 0.0)) return;
  Variant v;
  v.eval = true;
  if (module) r.variant("eval-mode", text("check.detail.eval-mode"), v);
  v = Variant();
  v.rand_mask = true;
  if (p < 1.0) r.variant("rand-dropout", text("check.detail.rand-dropout", {py_float(p)}), v);
  v.dropout_by_p = true;
  if (p < 1.0 && p != 0.5) r.variant("dropout-scale", text("check.detail.rand-dropout-by-p", {py_float(p)}), v);
  if (!scores) return;
  v = Variant();
  v.dropout_on = Variant::DropoutOn::ScoresAfterMask;
  r.variant("dropout-on-scores", text("check.detail.dropout-after-mask"), v);
  v.dropout_on = Variant::DropoutOn::ScoresBeforeMask;
  r.variant("dropout-on-scores", text("check.detail.dropout-before-mask"), v);
}

// Dropout survivors scaled by 1/p: only visible when 1/p differs from 1/(1-p).
void dropout_scale(Reruns& r, double p) {
  if (!(p > 0.0 && p < 1.0 && p != 0.5)) return;
  Variant v;
  v.dropout_by_p = true;
  r.variant("dropout-scale", text("check.detail.dropout-by-p", {py_float(p)}), v);
}

// The settings the learner's first differing tensor's shape suggests (d_out, num_heads), when it has
// another shape than the lesson's: the lesson rerun with each.
void settings(Reruns& r, const std::string& lesson, const LessonOptions& opt) {
  const LessonInfo& info = *find_lesson(lesson);  // the sizes it takes, except after the chapter
  const bool heads = !info.after_chapter() && info.takes(option_row("--num-heads"));
  const bool d_out = !info.after_chapter() && info.takes(option_row("--d-out"));
  const int64_t book_heads = opt.num_heads                               ? *opt.num_heads
                             : info.default_value("--num-heads").empty() ? -1  // course-mha: from d_model
                                                                         : lesson_default_count(lesson, "--num-heads");
  for (int64_t d = d_out ? 1 : opt.d_out; d <= (d_out ? 8 : opt.d_out); ++d)
    for (int64_t h = heads ? 1 : 0; h <= (heads ? 4 : 0); ++h) {
      LessonOptions o = opt;
      o.d_out = d;
      if (heads) o.num_heads = h;
      if (d == opt.d_out && (!heads || h == book_heads)) continue;
      std::string config, flags;
      if (d != opt.d_out) {
        config = "d_out=" + std::to_string(d);
        flags = " --d-out " + std::to_string(d);
      }
      if (heads && h != book_heads) {
        config += (config.empty() ? "" : ", ") + std::string("num_heads=") + std::to_string(h);
        flags += " --num-heads " + std::to_string(h);
      }
      r.options("export-settings", text("check.detail.settings", {config, lesson + flags}), o);
    }
}

// Whether the lesson can run with settings `o` at all: its heads divide its width (mha's d_out, the
// course's d_model, d2l's num_hiddens), as the classes' asserts (or their shapes) require. Settings that
// cannot exist are no rerun.
bool settings_exist(const std::string& lesson, const LessonOptions& o) {
  if (lesson == "mha") return o.d_out % o.heads_or(lesson_default_count("mha", "--num-heads")) == 0;
  if (lesson == "course-mha") {
    const bool post = o.preset == "post";
    const int64_t d_model = post ? o.d_model.value_or(course::kDModel) : o.d_in();
    return d_model % o.heads_or(post ? course::kNumHeads : course::small_num_heads(d_model)) == 0;
  }
  if (lesson == "d2l-mha")
    return o.num_hiddens.value_or(lesson_default_count("d2l-mha", "--num-hiddens")) %
               o.heads_or(lesson_default_count("d2l-mha", "--num-heads")) ==
           0;
  return true;
}

void wrapper_mistakes(Reruns& r, const LessonOptions& opt) {
  const int64_t h = opt.heads_or(lesson_default_count("wrapper", "--num-heads"));
  std::vector<int> order(static_cast<size_t>(h));
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::vector<int>> orders;
  if (h <= 4) {
    while (std::next_permutation(order.begin(), order.end())) orders.push_back(order);
  } else {
    orders.push_back(std::vector<int>(order.rbegin(), order.rend()));
  }
  for (const std::vector<int>& o : orders) {
    std::string text;
    for (int i : o) text += (text.empty() ? "" : ", ") + std::to_string(i);
    Variant v;
    v.head_order = o;
    r.variant("head-order", attn::text("check.detail.head-order", {text}), v);
  }
  if (!opt.no_reseed) {
    LessonOptions o = opt;
    o.no_reseed = true;
    r.options("missing-reseed", text("check.detail.missing-reseed"), o);
  }
  // 001 In [45]: forward masks and normalises a stale global attn_scores (SelfAttention_v2's scores of
  // §3.5.1) instead of its own queries @ keys; only the values are the head's.
  for (bool reseed : {false, true}) {
    LessonOptions o = opt;
    o.no_reseed = !reseed;
    o.variant.stale_scores = causal_weights(opt, nullptr, false).attn_scores;
    r.options("stale-scores",
              text(reseed ? "check.detail.stale-scores" : "check.detail.stale-scores-no-reseed",
                   {std::to_string(opt.seed_or(789))}),
              o);
  }
}

void mha_mistakes(Reruns& r) {
  Variant no_proj;
  no_proj.no_out_proj = true;
  r.variant("no-out-proj", text("check.detail.no-out-proj"), no_proj);
  Variant split;
  split.split_without_transpose = true;
  r.variant("view-no-transpose", text("check.detail.split-no-transpose"), split);
  Variant merge;
  merge.merge_without_transpose = true;
  r.variant("view-no-transpose", text("check.detail.merge-no-transpose"), merge);
}

// The reruns for a lesson: its known mistakes, after the settings its shapes may show with `shapes_differ`.
std::vector<MistakeRerun> mistake_reruns(const std::string& lesson, const LessonOptions& opt, bool shapes_differ) {
  Reruns r{opt, {}};
  const double rate = dropout_rate(lesson, opt.dropout);
  if (shapes_differ) settings(r, lesson, opt);  // first, then the mistakes (a shape some mistake gives)
  if (lesson == "softmax") {
    weight_mistakes(r, 2, false, false);
  } else if (lesson == "trainable") {
    weight_mistakes(r, 2, true, false);
    linear_orders(r, 3, "book");
    LessonOptions o = opt;
    o.init = opt.init == Init::Rand ? Init::Randn : Init::Rand;
    r.options("init-draw", text(o.init == Init::Randn ? "check.detail.init-randn" : "check.detail.init-rand"), o);
  } else if (lesson == "causal-mask") {
    weight_mistakes(r, 2, true, true);
    linear_orders(r, 3, "book");
  } else if (lesson == "dropout") {
    weight_mistakes(r, 3, true, true);
    dropout_scale(r, rate);
    dropout_mistakes(r, rate, true, false);
    for (int bits : {1, 3, 2}) {
      Variant v;
      v.missing_dropout_reseeds = bits;
      r.variant("dropout-reseed",
                text(bits == 2   ? "check.detail.reseed-sum"
                     : bits == 1 ? "check.detail.reseed-weights"
                                 : "check.detail.reseed-both"),
                v);
    }
    linear_orders(r, 3, "book");
  } else if (lesson == "wrapper") {
    weight_mistakes(r, 3, true, true);
    dropout_scale(r, rate);
    wrapper_mistakes(r, opt);
    dropout_mistakes(r, rate, true, true);
    linear_orders(r, 3, "book");
  } else if (lesson == "mha") {
    weight_mistakes(r, 4, true, true, true);
    dropout_scale(r, rate);
    mha_mistakes(r);
    dropout_mistakes(r, rate, true, true);
    linear_orders(r, 4, "book");
  } else if (lesson == "course-mha") {
    weight_mistakes(r, 3, true, true, true);
    dropout_scale(r, rate);
    dropout_mistakes(r, rate, true, false);
    Variant v;
    v.no_out_proj = true;
    r.variant("no-out-proj", text("check.detail.no-projection-layer"), v);
    linear_orders(r, 3, "course");
  } else if (lesson == "d2l-mha") {
    weight_mistakes(r, 3, true, false);
    Variant v;
    v.repeat_heads = true;
    r.variant("repeat-valid-lens", text("check.detail.repeat-forward"), v);
    v.repeat_rows = true;
    r.variant("repeat-valid-lens", text("check.detail.repeat-both"), v);
    v = Variant();
    v.repeat_rows = true;
    r.variant("repeat-valid-lens", text("check.detail.repeat-softmax"), v);
    const double p = opt.dropout.value_or(lesson_default("d2l-mha", "--dropout"));  // in train() or eval()
    const bool training = opt.dropout && *opt.dropout > 0.0;                        // as the lesson decides
    if (training) {
      dropout_scale(r, p);
      dropout_mistakes(r, p, true, false);
    } else if (p > 0.0) {
      v = Variant();
      v.functional_dropout = true;
      r.variant("functional-dropout", text("check.detail.functional-dropout", {py_float(p)}), v);
    }
    linear_orders(r, 4, "d2l");
  } else if (find_lesson(lesson)->after_chapter()) {  // kv-cache, gqa, mla, swa
    r.append(cache_mistake_reruns(lesson, opt));
    r.append(own_setting_reruns(lesson, opt));
  }
  if (rate > 0.0 && opt.bernoulli == BernoulliPath::Default) {
    LessonOptions o = opt;
    o.bernoulli = BernoulliPath::Mkl;
    r.options("mkl-dropout", text("check.detail.mkl"), o);
  }

  // The lessons after the chapter and the chapter's mistakes that may change shapes, whatever
  // the shapes; and no rerun with settings the lesson refuses (its heads not dividing its width).
  r.append(chapter_mistake_reruns(lesson, opt));
  r.append(bonus_mistake_reruns(lesson, opt));
  r.list.erase(std::remove_if(r.list.begin(), r.list.end(),
                              [&](const MistakeRerun& x) { return !settings_exist(lesson, x.opt); }),
               r.list.end());
  return std::move(r.list);
}

}  // namespace

int64_t mistake_rerun_count(const std::string& lesson, const LessonOptions& opt) {
  return static_cast<int64_t>(
      std::max(mistake_reruns(lesson, opt, false).size(), mistake_reruns(lesson, opt, true).size()));
}

std::vector<WhatIf> mistake_what_ifs(const std::string& lesson, const LessonOptions& opt, bool shapes_differ,
                                     int64_t* runs, std::vector<RerunFailure>* failures) {
  std::vector<WhatIf> out;
  const LessonInfo* info = find_lesson(lesson);
  for (const MistakeRerun& rerun : mistake_reruns(lesson, opt, shapes_differ)) {
    if (runs) ++*runs;
    try {
      out.push_back({rerun.mistake, rerun.detail, info->run(rerun.opt).timeline()});
    } catch (const std::exception& e) {
      // Every rerun generated is one the lesson can run: one that throws is a bug, reported, never skipped.
      const std::string error = e.what();
      if (!failures)
        throw std::logic_error("check: the " + lesson + " lesson rerun with mistake " + rerun.mistake + " (" +
                               ui(rerun.detail.key, Lang::En, rerun.detail.args) + ") failed: " + error);
      failures->push_back({rerun.mistake, rerun.detail, error});
    }
  }
  return out;
}

}  // namespace attn
