// After the chapter, ch04/06_swa: sliding-window attention. The chapter's layers, with a mask that is
// causal AND keeps only the last W keys (a band); W >= T is plain causal attention. The cache then never
// holds more than W tokens.
#include <cmath>

#include "core/ops_shape.h"
#include "core/print.h"
#include "core/tensor_print.h"
#include "lessons/common/bonus_cells.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"

namespace attn {

namespace {

// (full - causal).abs().max(dim=-1).values: per token, how far the window moved its output.
Tensor per_token_diff(const Tensor& a, const Tensor& b) {
  const int64_t n = a.size(1);
  std::vector<float> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(max_abs_diff(narrow(a, 1, i, 1), narrow(b, 1, i, 1)).item());
  return Tensor({1, n}, std::move(out));
}

// The case the bonus code's fix is for: every token in one cached call (a multi-token prefill). First the
// forward as it was before the fix (the cache trimmed to the last W before the chunk attends: the chunk's
// first queries see no key, NaN), computed by the Variant of the same forward, then the shown class.
void prefill_cells(Notebook& nb, const LessonOptions& opt, const Tensor& x, const Tensor& full,
                   SlidingWindowAttention& swa, const std::string& args, int64_t w) {
  const int64_t n = x.size(1);
  const std::string ws = str(w), ns = str(n);
  nb.heading("ch04/06", "heading.prefill");
  nb.cell(class_code("swa", "MultiHeadAttentionWithSWABeforeFix",
                     {"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
                      "before_fix = MultiHeadAttentionWithSWABeforeFix(" + args + ", sliding_window_size=" + ws + ")",
                      "before = before_fix(x, use_cache=True)  # all " + ns + " tokens in one cached call: a prefill",
                      "print(before)", "print(torch.isnan(before).any(dim=-1))"}));
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  SlidingWindowAttention old =
      SlidingWindowAttention::init(gen, opt.d_in(), opt.d_out, 0.0, *opt.num_heads, opt.qkv_bias, w);
  old.variant = opt.variant;
  old.variant.swa_trim_before_attend = true;
  const Tensor before = old.forward(x, true, gen, BernoulliPath::Default);
  nb.show("before", before);
  const std::vector<float> values = before.values();
  const int64_t width = before.size(2);
  std::vector<float> nan_rows;
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool any = false;
    for (int64_t j = 0; j < width; ++j) any = any || std::isnan(values[static_cast<size_t>(i * width + j)]);
    nan_rows.push_back(any ? 1.0f : 0.0f);
    nans += any;
  }
  nb.show("torch.isnan(before).any(dim=-1)", Tensor({1, n}, std::move(nan_rows), DType::Bool));
  if (nans > 0)
    nb.note("before.note", {ns, ws, str(nans - 1), str(nans)});
  else
    nb.note("before.note_none", {ns, ws});
  nb.explain("before.explain", {ws});

  nb.cell({"swa.reset_cache()", "prefill = swa(x, use_cache=True)  # the shown class, the same prefill",
           "print(tuple(swa.cache_k.shape))", "print(prefill)", "print((prefill - full).abs().max())"});
  swa.reset_cache();
  Generator none;
  const Tensor prefill = swa.forward(x, true, none, BernoulliPath::Default);
  nb.print(shape_tuple(*swa.cache_k));
  nb.show("prefill", prefill);
  const Tensor diff = max_abs_diff(prefill, full);
  show_scalar(nb, "(prefill - full).abs().max()", diff);
  nb.note("prefill.note", {ws, py_float(diff.item()), str(swa.cache_k->size(1)), ns});
  nb.explain("prefill.explain", {ws, str(w - 1)});
}

}  // namespace

Notebook swa_lesson(const LessonOptions& given) {
  LessonOptions opt = bonus_options(given, "swa");
  const int64_t w = given.window.value_or(lesson_default_count("swa", "--window")), n = opt.num_tokens();
  opt.window = w;
  Notebook nb = lesson_notebook("swa", opt);
  const std::string ws = str(w);
  const std::string args = bonus_class_args(opt) + (opt.qkv_bias ? ", qkv_bias=True" : "");

  nb.heading("ch04/06", "heading.setup");
  const Tensor x = bonus_inputs_cell(nb, opt);
  nb.cell(class_code("swa", "MultiHeadAttentionWithSWA",
                     {"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
                      "swa = MultiHeadAttentionWithSWA(" + args + ", sliding_window_size=" + ws + ")",
                      "print(swa.sliding_window_size)"}));
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  SlidingWindowAttention swa =
      SlidingWindowAttention::init(gen, opt.d_in(), opt.d_out, 0.0, *opt.num_heads, opt.qkv_bias, w);
  swa.variant = opt.variant;  // `check`'s reruns: the learner's class, with its mistake
  nb.print(ws);
  nb.note("class.note", {ws});
  nb.explain("class.explain", {fmt_seed(opt, 123)});
  BonusAttentionTrace t;
  const Tensor full = swa.forward(x, false, gen, BernoulliPath::Default, &t);

  nb.heading("ch04/06", "heading.forward");
  heads_cell(nb,
             {"b, num_tokens, d_in = x.shape", "keys_new = swa.W_key(x)  # Shape: (b, num_tokens, d_out)",
              "values_new = swa.W_value(x)", "queries = swa.W_query(x)",
              "keys_new = keys_new.view(b, num_tokens, swa.num_heads, swa.head_dim)",
              "values_new = values_new.view(b, num_tokens, swa.num_heads, swa.head_dim)",
              "queries = queries.view(b, num_tokens, swa.num_heads, swa.head_dim)",
              "keys, values = keys_new, values_new  # use_cache=False", "keys = keys.transpose(1, 2)",
              "queries = queries.transpose(1, 2)", "values = values.transpose(1, 2)", "print(keys)"},
             t);

  nb.cell({"num_tokens_Q = queries.shape[-2]", "num_tokens_K = keys.shape[-2]", "device = queries.device",
           "q_start = 0  # use_cache=False", "k_start = 0",
           "q_positions = torch.arange(q_start, q_start + num_tokens_Q, device=device, dtype=torch.long)",
           "k_positions = torch.arange(k_start, k_start + num_tokens_K, device=device, dtype=torch.long)",
           "W = num_tokens_K + 1 if swa.sliding_window_size is None else int(swa.sliding_window_size)",
           "diff = q_positions.unsqueeze(-1) - k_positions.unsqueeze(0)  # how far key j lies behind query i",
           "mask_bool = (diff < 0) | (diff >= W)", "print(diff)", "print(mask_bool)"});
  nb.show("diff", t.diff);
  nb.show("mask_bool", t.mask_bool);
  nb.note(w >= n ? "mask.note_wide" : "mask.note", {ws, str(w - 1), str(n)});
  nb.explain("mask.explain", {ws});
  nb.confusion("mask.confusion", {ws, str(w + 1)});

  nb.cell({"attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head",
           "attn_scores.masked_fill_(mask_bool, -torch.inf)",
           "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)", "print(attn_scores)",
           "print(attn_weights)"});
  nb.show("attn_scores", t.masked_scores);
  nb.show("attn_weights", t.attn_weights);
  nb.note("weights.note", {ws});
  nb.explain("weights.explain");

  output_cell(nb, "swa", t, full);

  nb.heading("ch04/06", "heading.compare");
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
           "causal = MultiHeadAttentionWithSWA(" + args + ")  # sliding_window_size=None: causal only",
           "print((full - causal(x)).abs().max(dim=-1).values)"});
  gen.manual_seed(opt.seed_or(123));
  SlidingWindowAttention causal =
      SlidingWindowAttention::init(gen, opt.d_in(), opt.d_out, 0.0, *opt.num_heads, opt.qkv_bias, std::nullopt);
  causal.variant = opt.variant;
  const Tensor causal_out = causal.forward(x, false, gen, BernoulliPath::Default);
  nb.record("causal", causal_out);
  nb.show("(full - causal).abs().max(dim=-1).values", per_token_diff(full, causal_out));
  nb.note(w >= n ? "compare.note_wide" : "compare.note", {ws, str(std::min(w, n))});
  nb.explain("compare.explain");

  module_steps_cell(nb, "swa", "swa.cache_k", x, full, swa, &SlidingWindowAttention::cache_k);

  const int64_t cached = swa.cache_k->size(1), bytes = 2 * swa.cache_k->numel() * 4;
  nb.cell({"n_bytes = 2 * swa.cache_k.numel() * swa.cache_k.element_size()",
           "print(n_bytes, \"bytes for\", swa.cache_k.shape[1], \"tokens; without the window:\", 2 * 4 * num_tokens * "
           "swa.d_out)"});
  nb.print(str(bytes) + " bytes for " + str(cached) + " tokens; without the window: " + str(2 * 4 * n * opt.d_out));
  nb.note("bytes.note", {ws, str(cached), str(n)});
  nb.explain("bytes.explain");

  prefill_cells(nb, opt, x, full, swa, args, w);
  return nb;
}

}  // namespace attn
