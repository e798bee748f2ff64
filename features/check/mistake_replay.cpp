// The lessons rerun with each known mistake, for `attn-tutor check`'s diagnosis: the lesson's own
// modules and cells with one step varied (lib/nn/variant.h), or with the options a mistake amounts to.
#include <algorithm>
#include <numeric>

#include "features/check/replay.h"
#include "lessons/common/causal_setup.h"
#include "lessons/lesson_text.h"

namespace attn {

namespace {

// A mistake as a rerun of the lesson: its options with the mistake's variant or setting.
struct Rerun {
  std::string mistake, detail;
  LessonOptions opt;
};

struct Reruns {
  const LessonOptions& base;
  std::vector<Rerun> list;
  void variant(const std::string& mistake, const std::string& detail, Variant v) {
    LessonOptions o = base;
    o.variant = std::move(v);
    list.push_back({mistake, detail, std::move(o)});
  }
  void options(const std::string& mistake, const std::string& detail, LessonOptions o) {
    list.push_back({mistake, detail, std::move(o)});
  }
};

// The mistakes on the way from scores of rank `rank` to weights.
void weight_mistakes(Reruns& r, int64_t rank, bool scaled, bool causal) {
  for (int64_t d = 0; d + 1 < rank; ++d) {
    Variant v;
    v.softmax_dim = d;
    r.variant("softmax-dim", "torch.softmax(..., dim=" + std::to_string(d) + ")", v);
  }
  if (scaled) {
    Variant v;
    v.scale = Variant::Scale::None;
    r.variant("no-scaling", "torch.softmax(attn_scores, dim=-1), not divided by keys.shape[-1]**0.5", v);
  }
  if (causal) {
    Variant diag;
    diag.mask = Variant::Mask::NoDiagonal;
    r.variant("triu-diagonal", "mask = torch.triu(torch.ones(n, n)), without diagonal=1", diag);
    Variant after;
    after.mask = Variant::Mask::AfterSoftmax;
    r.variant("mask-after-softmax", "softmax over every token, then the future set to 0, rows not renormalised", after);
  }
}

// Dropout survivors scaled by 1/p: only visible when 1/p differs from 1/(1-p).
void dropout_scale(Reruns& r, double p) {
  if (!(p > 0.0 && p < 1.0 && p != 0.5)) return;
  Variant v;
  v.dropout_by_p = true;
  r.variant("dropout-scale", "survivors * 1/" + fmt_double(p) + " instead of 1/(1-p)", v);
}

void wrapper_mistakes(Reruns& r, const LessonOptions& opt) {
  const int64_t h = opt.heads_or(2);
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
    r.variant("head-order", "torch.cat of the heads in the order " + text, v);
  }
  if (!opt.no_reseed) {
    LessonOptions o = opt;
    o.no_reseed = true;
    r.options("missing-reseed", "attn-tutor wrapper --no-reseed, the wrapper built right after the CausalAttention cell", o);
  }
  // 001 In [45]: forward masks and normalises a stale global attn_scores (SelfAttention_v2's scores of
  // §3.5.1) instead of its own queries @ keys; only the values are the head's.
  for (bool reseed : {false, true}) {
    LessonOptions o = opt;
    o.no_reseed = !reseed;
    o.variant.stale_scores = causal_weights(opt, nullptr, false).attn_scores;
    r.options("stale-scores",
              std::string("every head masks and normalises the global attn_scores = queries @ keys.T of "
                          "SelfAttention_v2 (seed ") + std::to_string(opt.seed_or(789)) + "), not its own" +
                  (reseed ? "" : "; and with no torch.manual_seed before the wrapper its heads continue the generator "
                                 "after the CausalAttention cell (the reader's notebook, 001 In [45])"),
              o);
  }
}

void mha_mistakes(Reruns& r) {
  Variant split;
  split.split_without_transpose = true;
  r.variant("view-no-transpose",
            "keys, queries and values viewed straight as (b, num_heads, num_tokens, head_dim), no transpose(1, 2)", split);
  Variant merge;
  merge.merge_without_transpose = true;
  r.variant("view-no-transpose",
            "the heads merged with (attn_weights @ values).contiguous().view(b, num_tokens, d_out), no transpose(1, 2)",
            merge);
}

// Whether the lesson, with these options, draws a dropout mask at all.
bool draws_dropout(const std::string& lesson, const LessonOptions& opt) {
  if (lesson == "dropout") return opt.dropout.value_or(0.5) > 0.0;
  if (lesson == "course-mha") return opt.dropout.value_or(0.1) > 0.0;
  if (lesson == "wrapper" || lesson == "mha" || lesson == "d2l-mha") return opt.dropout.value_or(0.0) > 0.0;
  return false;
}

}  // namespace

std::vector<WhatIf> mistake_what_ifs(const std::string& lesson, const LessonOptions& opt) {
  Reruns r{opt, {}};
  if (lesson == "softmax") {
    weight_mistakes(r, 2, false, false);
  } else if (lesson == "trainable") {
    weight_mistakes(r, 2, true, false);
  } else if (lesson == "causal-mask") {
    weight_mistakes(r, 2, true, true);
  } else if (lesson == "dropout") {
    weight_mistakes(r, 3, true, true);
    dropout_scale(r, opt.dropout.value_or(0.5));
  } else if (lesson == "wrapper") {
    weight_mistakes(r, 3, true, true);
    dropout_scale(r, opt.dropout.value_or(0.0));
    wrapper_mistakes(r, opt);
  } else if (lesson == "mha") {
    weight_mistakes(r, 4, true, true);
    dropout_scale(r, opt.dropout.value_or(0.0));
    mha_mistakes(r);
  }
  if (draws_dropout(lesson, opt) && opt.bernoulli == BernoulliPath::Default) {
    LessonOptions o = opt;
    o.bernoulli = BernoulliPath::Mkl;
    r.options("mkl-dropout", "the lesson with --bernoulli mkl", o);
  }
  std::vector<WhatIf> out;
  const LessonInfo* info = find_lesson(lesson);
  for (const Rerun& rerun : r.list) {
    try {
      out.push_back({rerun.mistake, rerun.detail, info->run(rerun.opt).tensors()});
    } catch (const std::exception&) {
      // a mistake the lesson's code cannot run with (e.g. shapes PyTorch would reject): not a diagnosis
    }
  }
  return out;
}

}  // namespace attn
