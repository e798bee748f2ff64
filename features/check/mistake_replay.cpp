// The lessons recomputed with each known mistake, for `attn-tutor check`'s diagnosis: the same seeds,
// inputs and modules as the lessons, one mistake applied, the tensors named as the lessons name them.
#include <algorithm>
#include <limits>
#include <numeric>

#include "nn/attention_variants.h"
#include "nn/causal_attention.h"
#include "lessons/common/causal_setup.h"
#include "core/dropout.h"
#include "nn/multihead_attention.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "lessons/lesson_text.h"
#include "features/check/replay.h"
#include "nn/self_attention.h"

namespace attn {

namespace {

struct Variant {
  std::string mistake, detail;
  AttentionVariant v;
};

// The mistakes on the way from (..., T, T) scores of rank `rank` to weights.
std::vector<Variant> weight_variants(int64_t rank, bool causal) {
  std::vector<Variant> out;
  for (int64_t d = 0; d + 1 < rank; ++d) {
    Variant s{"softmax-dim", "torch.softmax(..., dim=" + std::to_string(d) + ")", {}};
    s.v.softmax_dim = d;
    out.push_back(s);
  }
  Variant unscaled{"no-scaling", "torch.softmax(attn_scores, dim=-1), not divided by keys.shape[-1]**0.5", {}};
  unscaled.v.scale = false;
  out.push_back(unscaled);
  if (causal) {
    Variant diag{"triu-diagonal", "mask = torch.triu(torch.ones(n, n)), without diagonal=1", {}};
    diag.v.mask_diagonal = 0;
    out.push_back(diag);
    Variant after{"mask-after-softmax", "softmax over every token, then the future set to 0, rows not renormalised", {}};
    after.v.mask_after_softmax = true;
    out.push_back(after);
  }
  return out;
}

// Dropout survivors scaled by 1/p: only visible when 1/p differs from 1/(1-p).
bool scale_matters(double p) { return p > 0.0 && p < 1.0 && p != 0.5; }

Variant dropout_by_p(double p) {
  Variant d{"dropout-scale", "survivors * 1/" + py_float(p) + " instead of 1/(1-p)", {}};
  d.v.dropout_by_p = true;
  return d;
}

void add(WhatIf& w, const std::string& name, const Tensor& t) { w.tensors.push_back({name, 0, "", t}); }

WhatIf what_if(const Variant& v) { return {v.mistake, v.detail, {}}; }

// The lesson itself with other options (a missing re-seed, the MKL dropout path).
WhatIf rerun(const std::string& lesson, const LessonOptions& opt, const std::string& mistake, const std::string& detail) {
  return {mistake, detail, find_lesson(lesson)->run(opt).tensors()};
}

void softmax_what_ifs(const LessonOptions& opt, std::vector<WhatIf>& out) {
  const Tensor& x = opt.inputs.embeddings;
  const Tensor scores = matmul(x, T(x));
  for (Variant v : weight_variants(2, false)) {
    if (v.mistake != "softmax-dim") continue;  // §3.3 does not scale
    v.v.scale = false;
    WhatIf w = what_if(v);
    const Tensor weights = attention_weights(scores, 1, false, v.v).weights;
    add(w, "attn_weights", weights);
    add(w, "attn_weights.sum(dim=-1)", sum(weights, -1, false));
    add(w, "all_context_vecs", matmul(weights, x));
    out.push_back(w);
  }
}

void trainable_what_ifs(const LessonOptions& opt, std::vector<WhatIf>& out) {
  const Tensor& x = opt.inputs.embeddings;
  const int64_t d_in = opt.d_in(), d_out = opt.d_out;
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  auto draw = [&] {
    return Tensor({d_in, d_out}, opt.init == Init::Rand ? rand_values(gen, d_in * d_out) : randn_values(gen, d_in * d_out));
  };
  const Tensor W_query = draw(), W_key = draw(), W_value = draw();
  const Tensor query_2 = matmul(select(x, 0, 1), W_query);
  const Tensor keys = matmul(x, W_key), values = matmul(x, W_value);
  const Tensor attn_scores_2 = matmul(query_2, T(keys));

  gen.manual_seed(opt.seed_or(123));
  const SelfAttentionV1 sa_v1 = SelfAttentionV1::init(gen, d_in, d_out);
  gen.manual_seed(opt.seed_or(789));
  const SelfAttentionV2 sa_v2 = SelfAttentionV2::init(gen, d_in, d_out, opt.qkv_bias);
  auto self_attention = [](const Tensor& q, const Tensor& k, const Tensor& v, const AttentionVariant& var) {
    return matmul(attention_weights(matmul(q, T(k)), k.size(-1), false, var).weights, v);
  };
  for (const Variant& v : weight_variants(2, false)) {
    WhatIf w = what_if(v);
    if (v.mistake == "no-scaling") {  // the 1-D weights have one dimension only
      const Tensor attn_weights_2 = attention_weights(attn_scores_2, keys.size(-1), false, v.v).weights;
      add(w, "attn_weights_2", attn_weights_2);
      add(w, "context_vec_2", matmul(attn_weights_2, values));
    }
    add(w, "sa_v1(inputs)", self_attention(matmul(x, sa_v1.W_query), matmul(x, sa_v1.W_key), matmul(x, sa_v1.W_value), v.v));
    const Tensor v2 = self_attention(sa_v2.W_query(x), sa_v2.W_key(x), sa_v2.W_value(x), v.v);
    add(w, "sa_v2(inputs)", v2);
    if (!opt.qkv_bias) add(w, "sa_v1(inputs)", v2);  // exercise 3.1: sa_v1 with sa_v2's weights
    out.push_back(w);
  }
}

// §3.5.1's weights (the causal-mask lesson, and the recap at the start of dropout) with a mistake.
void causal_weight_tensors(const CausalWeights& cw, const AttentionVariant& v, WhatIf& w) {
  const int64_t d_k = cw.keys.size(-1);
  add(w, "attn_weights", attention_weights(cw.attn_scores, d_k, false, v).weights);
  const WeightsTrace t = attention_weights(cw.attn_scores, d_k, true, v);
  add(w, "mask", t.mask);
  if (!v.mask_after_softmax) add(w, "masked", t.masked);
  add(w, "attn_weights", t.weights);
  add(w, "context_vec", matmul(t.weights, cw.values));
}

void causal_mask_what_ifs(const LessonOptions& opt, std::vector<WhatIf>& out) {
  const CausalWeights cw = causal_weights(opt, nullptr, false);
  for (const Variant& v : weight_variants(2, true)) {
    WhatIf w = what_if(v);
    causal_weight_tensors(cw, v.v, w);
    out.push_back(w);
  }
}

void dropout_what_ifs(const LessonOptions& opt, std::vector<WhatIf>& out) {
  const double p = opt.dropout.value_or(0.5);
  const CausalWeights cw = causal_weights(opt, nullptr, false);
  const Tensor batch = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
  const int64_t n = opt.num_tokens();
  auto dropout_cells = [&](const Tensor& weights, const AttentionVariant& v, WhatIf& w) {
    Generator gen;
    gen.manual_seed(opt.seed_or(123));
    add(w, "dropout(example)", dropout_variant(ones({n, n}), p, gen, opt.bernoulli, v));
    gen.manual_seed(opt.seed_or(123));
    add(w, "dropout(attn_weights)", dropout_variant(weights, p, gen, opt.bernoulli, v));
    gen.manual_seed(opt.seed_or(123));
    add(w, "dropout(attn_weights).sum(dim=-1)", sum(dropout_variant(weights, p, gen, opt.bernoulli, v), -1, false));
  };
  std::vector<Variant> variants = weight_variants(3, true);
  if (scale_matters(p)) variants.push_back(dropout_by_p(p));
  for (const Variant& v : variants) {
    WhatIf w = what_if(v);
    // The recap of §3.5.1 and §3.5.2's cells on it (2-D: dim=0 is the only wrong softmax dimension).
    if (v.v.softmax_dim <= 0) {
      AttentionVariant two_d = v.v;
      if (v.mistake == "softmax-dim") two_d.softmax_dim = 0;
      causal_weight_tensors(cw, two_d, w);
      dropout_cells(attention_weights(cw.attn_scores, cw.keys.size(-1), true, two_d).weights, two_d, w);
    }
    // §3.5.3's CausalAttention on the batch (its dropout is 0.0).
    Generator gen;
    gen.manual_seed(opt.seed_or(123));
    const CausalAttention ca =
        CausalAttention::init(gen, opt.d_in(), opt.d_out, opt.context_length_or_tokens(), 0.0, opt.qkv_bias);
    const CausalAttentionTrace t = causal_attention_forward(ca, batch, gen, opt.bernoulli, v.v);
    add(w, "attn_scores", t.attn_scores);
    add(w, "attn_weights", t.dropped_weights);
    add(w, "context_vecs", t.context_vec);
    out.push_back(w);
  }
}

void wrapper_what_ifs(const LessonOptions& opt, std::vector<WhatIf>& out) {
  const double p = opt.dropout.value_or(0.0);
  const int64_t h = opt.heads_or(2), context_length = opt.context_length_or_tokens();
  const Tensor batch = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
  // The wrapper as the lesson builds it: after torch.manual_seed, or (no re-seed) after the
  // CausalAttention cell drew its weights from the same seed.
  auto build = [&](Generator& gen, bool reseed) {
    gen.manual_seed(opt.seed_or(123));
    if (!reseed) {
      const CausalAttention ca = CausalAttention::init(gen, opt.d_in(), opt.d_out, opt.num_tokens(), 0.0, opt.qkv_bias);
      ca.forward(batch, gen, opt.bernoulli);
    }
    return MultiHeadAttentionWrapper::init(gen, opt.d_in(), opt.d_out, context_length, p, h, opt.qkv_bias);
  };
  auto add_heads = [&](WhatIf& w, const std::vector<Tensor>& heads) {
    for (size_t i = 0; i < heads.size(); ++i) add(w, "head_outputs[" + std::to_string(i) + "]", heads[i]);
    add(w, "context_vecs", cat(heads, -1));
    add(w, "torch.cat(head_outputs, dim=-1)", cat(heads, -1));
  };

  std::vector<Variant> variants = weight_variants(3, true);
  if (scale_matters(p)) variants.push_back(dropout_by_p(p));
  for (const Variant& v : variants) {
    WhatIf w = what_if(v);
    Generator gen;
    const MultiHeadAttentionWrapper mha = build(gen, !opt.no_reseed);
    std::vector<Tensor> heads;
    for (const CausalAttention& head : mha.heads)
      heads.push_back(causal_attention_forward(head, batch, gen, opt.bernoulli, v.v).context_vec);
    add_heads(w, heads);
    out.push_back(w);
  }

  {  // the same heads, concatenated in another order
    Generator gen;
    const MultiHeadAttentionWrapper mha = build(gen, !opt.no_reseed);
    std::vector<Tensor> heads;
    mha.forward(batch, gen, opt.bernoulli, &heads);
    std::vector<size_t> order(heads.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<std::vector<size_t>> orders;
    if (h <= 4) {
      while (std::next_permutation(order.begin(), order.end())) orders.push_back(order);
    } else {
      orders.push_back(std::vector<size_t>(order.rbegin(), order.rend()));
    }
    for (const std::vector<size_t>& o : orders) {
      std::vector<Tensor> shuffled;
      std::string text;
      for (size_t i : o) {
        shuffled.push_back(heads[i]);
        text += (text.empty() ? "" : ", ") + std::to_string(i);
      }
      WhatIf w{"head-order", "torch.cat of the heads in the order " + text, {}};
      add(w, "context_vecs", cat(shuffled, -1));
      add(w, "torch.cat(head_outputs, dim=-1)", cat(shuffled, -1));
      out.push_back(w);
    }
  }

  if (!opt.no_reseed) {
    LessonOptions o = opt;
    o.no_reseed = true;
    out.push_back(rerun("wrapper", o, "missing-reseed",
                        "attn-tutor wrapper --no-reseed, the wrapper built right after the CausalAttention cell"));
  }

  // 001 In [45]: forward masks and normalises a stale global attn_scores (SelfAttention_v2's scores of §3.5.1)
  // instead of its own queries @ keys; only the values are the head's.
  const CausalWeights cw = causal_weights(opt, nullptr, false);
  const int64_t n = opt.num_tokens();
  for (bool reseed : {false, true}) {
    Generator gen;
    const MultiHeadAttentionWrapper mha = build(gen, reseed);
    std::vector<Tensor> heads;
    for (const CausalAttention& head : mha.heads) {
      const Tensor masked = masked_fill(cw.attn_scores, to_bool(triu(ones({n, n}), 1)),
                                        -std::numeric_limits<float>::infinity());
      const Tensor weights = softmax(div(masked, sqrt_d_k(head.d_out)), -1);
      heads.push_back(matmul(dropout(weights, p, gen, opt.bernoulli), head.W_value(batch)));
    }
    WhatIf w{"stale-scores",
             std::string("every head masks and normalises the global attn_scores = queries @ keys.T of "
                         "SelfAttention_v2 (seed ") + std::to_string(opt.seed_or(789)) + "), not its own" +
                 (reseed ? "" : "; and with no torch.manual_seed before the wrapper its heads continue the generator "
                                "after the CausalAttention cell (the reader's notebook, 001 In [45])"),
             {}};
    add_heads(w, heads);
    out.push_back(w);
  }
}

void mha_what_ifs(const LessonOptions& opt, std::vector<WhatIf>& out) {
  const double p = opt.dropout.value_or(0.0);
  const Tensor batch = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
  std::vector<Variant> variants = weight_variants(4, true);
  if (scale_matters(p)) variants.push_back(dropout_by_p(p));
  Variant split{"view-no-transpose",
                "keys, queries and values viewed straight as (b, num_heads, num_tokens, head_dim), no transpose(1, 2)", {}};
  split.v.split_without_transpose = true;
  variants.push_back(split);
  Variant merge{"view-no-transpose",
                "the heads merged with (attn_weights @ values).contiguous().view(b, num_tokens, d_out), no transpose(1, 2)",
                {}};
  merge.v.merge_without_transpose = true;
  variants.push_back(merge);
  for (const Variant& v : variants) {
    Generator gen;
    gen.manual_seed(opt.seed_or(123));
    const MultiHeadAttention mha = MultiHeadAttention::init(gen, opt.d_in(), opt.d_out, opt.context_length_or_tokens(),
                                                            p, opt.heads_or(2), opt.qkv_bias);
    const MultiHeadAttentionTrace t = multihead_attention_forward(mha, batch, gen, opt.bernoulli, v.v);
    WhatIf w = what_if(v);
    for (const Tensor& k : {t.keys, t.keys_view, t.keys_heads}) add(w, "keys", k);
    for (const Tensor& q : {t.queries, t.queries_view, t.queries_heads}) add(w, "queries", q);
    for (const Tensor& x : {t.values, t.values_view, t.values_heads}) add(w, "values", x);
    add(w, "attn_scores", t.attn_scores);
    add(w, "attn_scores", t.masked_scores);
    add(w, "attn_weights", t.dropped_weights);
    add(w, "attn_weights @ values", t.context_heads);
    add(w, "context_vec", t.context_transposed);
    add(w, "context_vec", t.context_merged);
    add(w, "context_vecs", t.context_vec);
    out.push_back(w);
  }
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
  std::vector<WhatIf> out;
  if (lesson == "softmax") softmax_what_ifs(opt, out);
  else if (lesson == "trainable") trainable_what_ifs(opt, out);
  else if (lesson == "causal-mask") causal_mask_what_ifs(opt, out);
  else if (lesson == "dropout") dropout_what_ifs(opt, out);
  else if (lesson == "wrapper") wrapper_what_ifs(opt, out);
  else if (lesson == "mha") mha_what_ifs(opt, out);
  if (draws_dropout(lesson, opt) && opt.bernoulli == BernoulliPath::Default) {
    LessonOptions o = opt;
    o.bernoulli = BernoulliPath::Mkl;
    out.push_back(rerun(lesson, o, "mkl-dropout", "the lesson with --bernoulli mkl"));
  }
  return out;
}

}  // namespace attn
