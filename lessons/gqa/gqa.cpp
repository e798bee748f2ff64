// After the chapter, ch04/04_gqa: grouped-query attention. Keys and values are projected to
// num_kv_groups heads only and repeat_interleave'd to the query heads; G = num_heads is multi-head
// attention, G = 1 multi-query attention. Then the parameters and the cache against MultiHeadAttention,
// and the tokens one at a time through the smaller cache.
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/usage_error.h"
#include "lessons/common/bonus_cells.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"

namespace attn {

namespace {

void class_cell(Notebook& nb, const LessonOptions& opt, const GroupedQueryAttention& gqa) {
  class_parameters_cell(
      nb, opt, "GroupedQueryAttention", "gqa",
      bonus_class_args(opt) + ", num_kv_groups=" + str(gqa.num_kv_groups) + (opt.qkv_bias ? ", qkv_bias=True" : ""),
      {{"W_key", &gqa.W_key}, {"W_value", &gqa.W_value}, {"W_query", &gqa.W_query}, {"out_proj", &gqa.out_proj}});
  const std::string kv = str(gqa.num_kv_groups * gqa.head_dim);
  nb.note("class.note", {kv, str(gqa.num_kv_groups), str(gqa.head_dim), str(gqa.d_out)});
  nb.explain("class.explain", {fmt_seed(opt, 123)});
  nb.confusion("class.confusion");
}

}  // namespace

Notebook gqa_lesson(const LessonOptions& given) {
  LessonOptions opt = bonus_options(given, "gqa");
  const int64_t h = *opt.num_heads, g = opt.num_kv_groups.value_or(lesson_default_count("gqa", "--num-kv-groups"));
  if (h % g != 0) {
    std::string divisors;
    for (int64_t d = 1; d <= h; ++d)
      if (h % d == 0) divisors += (divisors.empty() ? "" : ", ") + str(d);
    throw UsageError(
        error_text(given.num_kv_groups ? "gqa.err.groups" : "gqa.err.groups-default", {str(h), str(g), divisors}));
  }
  opt.num_kv_groups = g;
  Notebook nb = lesson_notebook("gqa", opt);
  nb.heading("ch04/04", "heading.setup");
  const Tensor x = bonus_inputs_cell(nb, opt);
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  GroupedQueryAttention gqa = GroupedQueryAttention::init(gen, opt.d_in(), opt.d_out, 0.0, h, g, opt.qkv_bias);
  gqa.variant = opt.variant;  // `check`'s reruns: the learner's class, with its mistake
  class_cell(nb, opt, gqa);
  BonusAttentionTrace t;
  const Tensor full = gqa.forward(x, false, gen, BernoulliPath::Default, &t);
  const std::string hd = str(gqa.head_dim), gs = str(gqa.group_size), hs = str(h), gstr = str(g);

  nb.heading("ch04/04", "heading.forward");
  nb.cell(
      {"queries = gqa.W_query(x)", "keys = gqa.W_key(x)", "values = gqa.W_value(x)", "print(keys)", "print(values)"});
  nb.record("queries", t.queries_proj);
  nb.show("keys", t.keys_proj);
  nb.show("values", t.values_proj);
  nb.note("proj.note", {shape_text(t.queries_proj.shape()), shape_text(t.keys_proj.shape()), gstr, hd});
  nb.explain("proj.explain");

  nb.cell({"b, num_tokens, _ = x.shape",
           "queries = queries.view(b, num_tokens, gqa.num_heads, gqa.head_dim).transpose(1, 2)",
           "keys_new = keys.view(b, num_tokens, gqa.num_kv_groups, gqa.head_dim).transpose(1, 2)",
           "values_new = values.view(b, num_tokens, gqa.num_kv_groups, gqa.head_dim).transpose(1, 2)",
           "print(queries.shape, keys_new.shape)", "print(keys_new)"});
  nb.record("queries", t.queries);
  nb.print(repr_size(t.queries.shape()) + " " + repr_size(t.keys_new.shape()));
  nb.show("keys_new", t.keys_new);
  nb.record("values_new", t.values_new);
  nb.note("heads.note", {shape_text(t.queries.shape()), shape_text(t.keys_new.shape())});
  nb.explain("heads.explain", {hs, gstr});

  nb.cell({"keys_base, values_base = keys_new, values_new  # use_cache=False",
           "keys = keys_base.repeat_interleave(gqa.group_size, dim=1)",
           "values = values_base.repeat_interleave(gqa.group_size, dim=1)", "print(keys)",
           "for head in range(gqa.num_heads):",
           "    print(\"query head\", head, \"reads key/value group\", head // gqa.group_size)"});
  nb.show("keys", t.keys);
  nb.record("values", t.values);
  for (int64_t head = 0; head < h; ++head)
    nb.print("query head " + str(head) + " reads key/value group " + str(head / gqa.group_size));
  nb.note(gqa.group_size == 1 ? "repeat.note_mha"
          : g == 1            ? "repeat.note_mqa"
                              : "repeat.note",
          {shape_text(t.keys.shape()), gs, gstr, hs});
  nb.explain("repeat.explain", {gs});
  nb.confusion("repeat.confusion");

  weights_cell(
      nb,
      {"attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head", "num_tokens_Q = queries.shape[-2]",
       "num_tokens_K = keys.shape[-2]", "device = queries.device",
       "q_positions = torch.arange(num_tokens_Q, device=device, dtype=torch.long)  # use_cache=False",
       "k_positions = torch.arange(num_tokens_K, device=device, dtype=torch.long)",
       "mask = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)",
       "attn_scores = attn_scores.masked_fill(mask, -torch.inf)",
       "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)", "print(mask)", "print(attn_weights)"},
      t, "mask", {gs});
  output_cell(nb, "gqa", t, full);

  nb.heading("ch04/04", "heading.cost");
  const ChapterMha mha = chapter_mha(opt);
  std::vector<std::string> compare = mha.listing;
  compare.insert(compare.end(),
                 {mha.code, "print(sum(p.numel() for p in gqa.parameters()), sum(p.numel() for p in mha.parameters()))",
                  "print(2 * gqa.num_kv_groups * gqa.head_dim, 2 * mha.d_out)  # numbers cached per token"});
  nb.cell(compare);
  const int64_t gqa_cached = 2 * g * gqa.head_dim, mha_cached = mha.cached_per_token, mha_params = mha.parameters;
  nb.print(str(gqa.parameter_count()) + " " + str(mha_params));
  nb.print(str(gqa_cached) + " " + str(mha_cached));
  // Where the parameters differ: MultiHeadAttention's out_proj has a bias (d_out numbers) that GroupedQueryAttention's
  // (bias=False) lacks; the rest is W_key and W_value, num_kv_groups x head_dim output features instead of d_out.
  const int64_t fewer = mha_params - gqa.parameter_count(), out_bias = gqa.d_out, kv_fewer = fewer - out_bias;
  const Prose ratio = gqa.group_size == 1 ? text("cost.note_same") : text("cost.note_fewer", {gs});
  const Prose params = kv_fewer == 0 ? text("cost.note_params_bias", {str(fewer)})
                                     : text("cost.note_params_kv", {str(fewer), str(kv_fewer), str(g * gqa.head_dim),
                                                                    str(gqa.d_out), str(out_bias)});
  nb.note("cost.note", {str(gqa.parameter_count()), str(mha_params), str(gqa_cached), str(mha_cached), ratio, params});
  nb.explain("cost.explain", {gstr});

  module_steps_cell(nb, "gqa", "gqa.cache_k", x, full, gqa, &GroupedQueryAttention::cache_k);
  return nb;
}

}  // namespace attn
