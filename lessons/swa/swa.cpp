// After the chapter, ch04/06_swa: sliding-window attention. The chapter's layers, with a mask that is
// causal AND keeps only the last W keys (a band); W >= T is plain causal attention. The cache then never
// holds more than W tokens.
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/tensor_print.h"
#include "lessons/common/bonus_cells.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"

namespace attn {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// (full - causal).abs().max(dim=-1).values: per token, how far the window moved its output.
Tensor per_token_diff(const Tensor& a, const Tensor& b) {
  const int64_t n = a.size(1);
  std::vector<float> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(max_abs_diff(narrow(a, 1, i, 1), narrow(b, 1, i, 1)).item());
  return Tensor({1, n}, std::move(out));
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
  SlidingWindowAttention swa = SlidingWindowAttention::init(gen, opt.d_in(), opt.d_out, 0.0, *opt.num_heads, opt.qkv_bias, w);
  swa.variant = opt.variant;  // `check`'s reruns: the learner's class, with its mistake
  nb.print(ws);
  nb.note("class.note", {ws});
  nb.explain("class.explain", {fmt_seed(opt, 123)});
  BonusAttentionTrace t;
  const Tensor full = swa.forward(x, false, gen, BernoulliPath::Default, &t);

  nb.heading("ch04/06", "heading.forward");
  heads_cell(nb, {"b, num_tokens, _ = x.shape",
                  "queries = swa.W_query(x).view(b, num_tokens, swa.num_heads, swa.head_dim).transpose(1, 2)",
                  "keys = swa.W_key(x).view(b, num_tokens, swa.num_heads, swa.head_dim).transpose(1, 2)",
                  "values = swa.W_value(x).view(b, num_tokens, swa.num_heads, swa.head_dim).transpose(1, 2)",
                  "print(keys)"},
             t);

  nb.cell({"q_positions = torch.arange(num_tokens)", "k_positions = torch.arange(num_tokens)",
           "diff = q_positions.unsqueeze(-1) - k_positions.unsqueeze(0)  # how far key j lies behind query i",
           "mask_bool = (diff < 0) | (diff >= swa.sliding_window_size)", "print(diff)", "print(mask_bool)"});
  nb.show("diff", t.diff);
  nb.show("mask_bool", t.mask_bool);
  nb.note(w >= n ? "mask.note_wide" : "mask.note", {ws, str(w - 1), str(n)});
  nb.explain("mask.explain", {ws});
  nb.confusion("mask.confusion", {ws, str(w + 1)});

  nb.cell({"attn_scores = (queries @ keys.transpose(2, 3)).masked_fill(mask_bool, -torch.inf)",
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
  SlidingWindowAttention causal = SlidingWindowAttention::init(gen, opt.d_in(), opt.d_out, 0.0, *opt.num_heads, opt.qkv_bias, std::nullopt);
  causal.variant = opt.variant;
  const Tensor causal_out = causal.forward(x, false, gen, BernoulliPath::Default);
  nb.record("causal", causal_out);
  nb.show("(full - causal).abs().max(dim=-1).values", per_token_diff(full, causal_out));
  nb.note(w >= n ? "compare.note_wide" : "compare.note", {ws, str(std::min(w, n))});
  nb.explain("compare.explain");

  module_steps_cell(nb, "swa", "swa.cache_k", x, full, swa, &SlidingWindowAttention::cache_k);

  const int64_t cached = swa.cache_k->size(1), bytes = 2 * swa.cache_k->numel() * 4;
  nb.cell({"n_bytes = 2 * swa.cache_k.numel() * swa.cache_k.element_size()",
           "print(n_bytes, \"bytes for\", swa.cache_k.shape[1], \"tokens; without the window:\", 2 * 4 * num_tokens * swa.d_out)"});
  nb.print(str(bytes) + " bytes for " + str(cached) + " tokens; without the window: " + str(2 * 4 * n * opt.d_out));
  nb.note("bytes.note", {ws, str(cached), str(n)});
  nb.explain("bytes.explain");
  return nb;
}

}  // namespace attn
