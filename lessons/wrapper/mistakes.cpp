// The wrapper lesson's diagnoses (lessons/diagnosis.h): its weights' and dropout's mistakes, the heads
// concatenated in another order or along the tokens, a missing torch.manual_seed before the wrapper, a stale
// global attn_scores, the projections created in another order, MKL's masks.
#include <algorithm>
#include <numeric>

#include "lessons/common/causal_setup.h"
#include "lessons/diagnosis.h"

namespace attn {

namespace {

void head_mistakes(Reruns& r) {
  const LessonOptions& opt = r.base;
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
    std::string listed;
    for (int i : o) listed += (listed.empty() ? "" : ", ") + std::to_string(i);
    Variant v;
    v.head_order = o;
    r.variant(MistakeId::HeadOrder, text("check.detail.head-order", {listed}), v);
  }
  if (!opt.no_reseed) {
    LessonOptions o = opt;
    o.no_reseed = true;
    r.options(MistakeId::MissingReseed, text("check.detail.missing-reseed"), o);
  }
  // A reader's notebook (In [45]): forward masks and normalises a stale global attn_scores (SelfAttention_v2's
  // scores of §3.5.1) instead of its own queries @ keys; only the values are the head's.
  for (bool reseed : {false, true}) {
    LessonOptions o = opt;
    o.no_reseed = !reseed;
    o.variant.stale_scores = causal_weights(opt, nullptr, false).attn_scores;
    r.options(MistakeId::StaleScores,
              text(reseed ? "check.detail.stale-scores" : "check.detail.stale-scores-no-reseed",
                   {std::to_string(opt.seed_or(789))}),
              o);
  }
}

}  // namespace

void wrapper_diagnoses(Reruns& r) {
  const double rate = dropout_rate("wrapper", r.base.dropout);
  weight_mistakes(r, 3, true, true);
  dropout_scale(r, rate);
  head_mistakes(r);
  dropout_mistakes(r, rate, true, true);
  linear_orders(r, {"W_query", "W_key", "W_value"});
  mkl_dropout(r, rate);
  // (b, H * T, d_out) instead of (b, T, H * d_out): other numbers with two heads or more
  if (r.base.heads_or(lesson_default_count("wrapper", "--num-heads")) > 1) {
    Variant v;
    v.cat_tokens = true;
    r.variant(MistakeId::WrapperCatTokens, text("check.detail.wrapper-cat-tokens"), v);
  }
}

}  // namespace attn
