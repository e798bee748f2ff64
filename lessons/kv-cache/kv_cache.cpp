// After the chapter, ch04/03_kv-cache: the chapter's MultiHeadAttention with a KV cache. The tokens go in
// one at a time; cache_k/cache_v grow, the causal mask's rows follow ptr_current_pos, and every step's
// output is the matching row of the full causal forward. Then the work it saves, its bytes, a reset with a
// chunked prefill (where the mask offset matters) and what happens past context_length.
#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "core/ops_shape.h"
#include "core/print.h"
#include "core/tensor_print.h"
#include "lessons/common/bonus_cells.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"

namespace attn {

namespace {

std::string slice(int64_t a, int64_t b) { return str(a) + ":" + str(b); }

// Multiply-adds of one forward call with n_q new tokens and n_k keys: the three projections and out_proj of
// the new tokens, the scores and the weighted values.
int64_t macs(int64_t n_q, int64_t n_k, int64_t d_in, int64_t d_out) {
  return n_q * (3 * d_in * d_out + d_out * d_out) + 2 * n_q * n_k * d_out;
}

void step_cell(Notebook& nb, const LessonOptions& opt, KVCacheMultiHeadAttention& mha, const Tensor& x,
               const Tensor& full, int64_t i) {
  const std::string cut = "[:, " + slice(i, i + 1) + ", :]";
  std::vector<std::string> code = {"out = mha(x" + cut + ", use_cache=True)  # " + quoted_token(opt, i)};
  code.push_back(i == 0 ? "# inside: the first call stores keys_new, values_new as cache_k, cache_v"
                        : "# inside: cache_k = torch.cat([self.cache_k, keys_new], dim=1), cache_v alike");
  code.insert(code.end(),
              {"print(mha.cache_k.shape, mha.cache_v.shape)",
               "# inside: mask_bool = self.mask.bool()[" + slice(i, i + 1) + ", :" + str(i + 1) +
                   "], then self.ptr_current_pos += 1",
               "mask_bool, attn_weights = mha.mask_bool, mha.attn_weights  # as forward kept them", "print(mask_bool)",
               "print(attn_weights)", "print(out)", "print((out - full" + cut + ").abs().max())"});
  nb.cell(code);
  Generator gen;
  BonusAttentionTrace t;
  const Tensor out = mha.forward(token_slice(x, i, 1), true, gen, BernoulliPath::Default, &t);
  nb.record("cache_k", *mha.cache_k);
  nb.record("cache_v", *mha.cache_v);
  nb.print(repr_size(mha.cache_k->shape()) + " " + repr_size(mha.cache_v->shape()));
  nb.show("mask_bool", t.mask_bool);
  nb.show("attn_weights", t.attn_weights);
  nb.show("out", out, true);  // bound anew each step, even to an equal value
  show_scalar(nb, "(out - full" + cut + ").abs().max()", max_abs_diff(out, token_slice(full, i, 1)));
  const std::string tokens = str(i + 1);
  if (i == 0) {
    nb.note("step.first.note", {quoted_token(opt, 0), shape_text(mha.cache_k->shape())});
    nb.explain("step.first.explain", {str(mha.mha.num_heads), str(mha.mha.head_dim)});
  } else {
    nb.note("step.next.note", {quoted_token(opt, i), tokens, shape_text(mha.cache_k->shape()), str(i)});
    nb.explain("step.next.explain", {str(i), tokens, slice(i, i + 1)});
  }
  if (i == 1) nb.confusion("step.offset.confusion", {"1:2, :2", ":1, :1"});
}

void work_cell(Notebook& nb, const LessonOptions& opt) {
  const int64_t n = opt.num_tokens(), d_in = opt.d_in(), d_out = opt.d_out;
  nb.cell({"d_in, d_out = " + str(d_in) + ", " + str(d_out),
           "def macs(n_q, n_k):  # multiply-adds: projections of the new tokens, scores, weights @ values",
           "    return n_q * (3 * d_in * d_out + d_out * d_out) + 2 * n_q * n_k * d_out",
           "print(\"token  without cache  with cache\")",
           "for t in range(1, " + str(n + 1) + "):", "    print(f\"{t:5} {macs(t, t):14} {macs(1, t):11}\")",
           "print(\"total\", sum(macs(t, t) for t in range(1, " + str(n + 1) + ")), sum(macs(1, t) for t in range(1, " +
               str(n + 1) + ")))"});
  nb.print("token  without cache  with cache");
  int64_t without = 0, with = 0;
  for (int64_t t = 1; t <= n; ++t) {
    char line[96];
    std::snprintf(line, sizeof line, "%5lld %14lld %11lld", static_cast<long long>(t),
                  static_cast<long long>(macs(t, t, d_in, d_out)), static_cast<long long>(macs(1, t, d_in, d_out)));
    nb.print(line);
    without += macs(t, t, d_in, d_out);
    with += macs(1, t, d_in, d_out);
  }
  nb.print("total " + str(without) + " " + str(with));
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.1f", static_cast<double>(without) / static_cast<double>(with));
  nb.note("work.note", {str(n), str(without), str(with), ratio});
  nb.explain("work.explain");
}

void bytes_cell(Notebook& nb, const KVCacheMultiHeadAttention& mha) {
  nb.cell(
      {"n_bytes = 2 * mha.cache_k.numel() * mha.cache_k.element_size()  # keys and values, float32", "print(n_bytes)"});
  const Shape& s = mha.cache_k->shape();
  const int64_t bytes = 2 * mha.cache_k->numel() * 4;
  nb.print(str(bytes));
  nb.note("bytes.note", {str(s[0]), str(s[1]), str(s[2]), str(s[3]), str(bytes)});
  nb.explain("bytes.explain");
}

void prefill_cell(Notebook& nb, KVCacheMultiHeadAttention& mha, const Tensor& x, const Tensor& full, bool reset) {
  const int64_t n = x.size(1), p = (n + 1) / 2;
  nb.cell({"mha.reset_cache()", "print(mha.cache_k, mha.ptr_current_pos)",
           "prompt = mha(x[:, :" + str(p) + ", :], use_cache=True)  # prefill: mask[0:" + str(p) + ", :" + str(p) + "]",
           "rest = mha(x[:, " + str(p) + ":, :], use_cache=True)  # " + str(n - p) + " more at once: mask[" +
               slice(p, n) + ", :" + str(n) + "]",
           "mask_bool = mha.mask_bool  # the second call's", "print(mask_bool)", "print(rest)",
           "print((torch.cat([prompt, rest], dim=1) - full).abs().max())"});
  if (reset) mha.reset_cache();  // `check`'s rerun of a program without it: the previous cache stays
  nb.print("None 0");
  Generator gen;
  const Tensor prompt = mha.forward(token_slice(x, 0, p), true, gen, BernoulliPath::Default);
  BonusAttentionTrace t;
  const Tensor rest = mha.forward(token_slice(x, p, n - p), true, gen, BernoulliPath::Default, &t);
  nb.record("prompt", prompt);
  nb.show("mask_bool", t.mask_bool);
  nb.show("rest", rest);
  show_scalar(nb, "(torch.cat([prompt, rest], dim=1) - full).abs().max()", max_abs_diff(cat({prompt, rest}, 1), full));
  // The version before ptr_current_pos sliced mask[:num_tokens_Q, :num_tokens_K], from row 0.
  HeadsAttentionTrace wrong;
  const Tensor stale_rows =
      to_bool(narrow(narrow(mha.mha.mask, 0, 0, n - p), 1, 0, t.keys.size(2)));  // n keys after a reset
  attend_heads(t.queries, t.keys, t.values, stale_rows, 0.0, gen, BernoulliPath::Default, mha.mha.out_proj, wrong);
  nb.note("prefill.note", {str(p), slice(p, n), str(n)});
  nb.explain("prefill.explain");
  char diff[32];
  std::snprintf(diff, sizeof diff, "%.4g", max_abs_diff(wrong.context_vec, rest).item());
  const std::string q = str(n - p);
  nb.confusion("prefill.confusion", {":" + q + ", :" + q, q + ", " + q, shape_text(t.attn_scores.shape()), str(n), q,
                                     ":" + q + ", :" + str(n), diff});
}

void overflow_cell(Notebook& nb, KVCacheMultiHeadAttention& mha, const Tensor& x) {
  const int64_t ctx = mha.mha.mask.size(0), more = ctx - mha.ptr_current_pos + 1;
  nb.cell(
      {"try:", "    for _ in range(" + str(more) + "):  # one token more than context_length = " + str(ctx) + " holds",
       "        extra = mha(x[:, -1:, :], use_cache=True)",
       "except RuntimeError as e:", "    print(\"RuntimeError:\", e)"});
  Generator gen;
  std::string error;
  try {
    for (int64_t k = 0; k < more; ++k) mha.forward(token_slice(x, x.size(1) - 1, 1), true, gen, BernoulliPath::Default);
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  nb.print("RuntimeError: " + error);
  nb.note("overflow.note", {str(ctx), str(ctx - 1)});
  nb.explain("overflow.explain", {str(ctx)});
}

}  // namespace

Notebook kv_cache_lesson(const LessonOptions& given) {
  const LessonOptions opt = bonus_options(given, "kv-cache");
  Notebook nb = lesson_notebook("kv-cache", opt);
  const int64_t context_length = opt.context_length_or_tokens();
  const int64_t h = *opt.num_heads, d_out = opt.d_out;

  nb.heading("ch04/03", "heading.setup");
  const Tensor x = bonus_inputs_cell(nb, opt);

  nb.cell(class_code("kv-cache", "MultiHeadAttention",
                     {"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
                      "mha = MultiHeadAttention(d_in=" + str(opt.d_in()) + ", d_out=" + str(d_out) +
                          ", context_length=" + str(context_length) + ", dropout=0.0, num_heads=" + str(h) +
                          (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                      "print(mha.cache_k, mha.ptr_current_pos)"}));
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  KVCacheMultiHeadAttention mha =
      KVCacheMultiHeadAttention::init(gen, opt.d_in(), d_out, context_length, 0.0, h, opt.qkv_bias);
  mha.variant = opt.variant;
  nb.print("None 0");
  nb.note("module.note", {str(context_length)});
  nb.explain("module.explain", {fmt_seed(opt, 123)});

  nb.cell({"full = mha(x)  # use_cache=False: every token at once, as in chapter 3",
           "attn_weights = mha.attn_weights  # as forward kept it", "print(attn_weights)", "print(full)"});
  BonusAttentionTrace ft;
  const Tensor full = mha.forward(x, false, gen, BernoulliPath::Default, &ft);
  nb.show("attn_weights", ft.attn_weights);
  nb.show("full", full);
  nb.note("full.note", {shape_text(ft.attn_weights.shape())});
  nb.explain("full.explain");

  nb.heading("ch04/03", "heading.steps");
  for (int64_t i = 0; i < opt.num_tokens(); ++i) step_cell(nb, opt, mha, x, full, i);

  nb.heading("ch04/03", "heading.cost");
  work_cell(nb, opt);
  bytes_cell(nb, mha);
  prefill_cell(nb, mha, x, full, !opt.cells.no_reset_cache);
  overflow_cell(nb, mha, x);
  return nb;
}

}  // namespace attn
