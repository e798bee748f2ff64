// After the chapter, ch04/05_mla: multi-head latent attention. Each token is projected down to a latent
// of latent_dim numbers, the only thing the cache keeps; keys and values are projected back up from it
// for every cached token at every step. Then the parameters and the cache against MultiHeadAttention.
#include "core/ops_shape.h"
#include "core/print.h"
#include "lessons/common/bonus_cells.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"

namespace attn {

namespace {

void class_cell(Notebook& nb, const LessonOptions& opt, const MultiHeadLatentAttention& mla) {
  class_parameters_cell(
      nb, opt, "MultiHeadLatentAttention", "mla",
      bonus_class_args(opt) + (opt.qkv_bias ? ", qkv_bias=True" : "") + ", latent_dim=" + str(mla.latent_dim),
      {{"W_query", &mla.W_query},
       {"W_DKV", &mla.W_DKV},
       {"W_UK", &mla.W_UK},
       {"W_UV", &mla.W_UV},
       {"out_proj", &mla.out_proj}});
  nb.note("class.note", {str(mla.latent_dim), str(mla.d_out)});
  nb.explain("class.explain", {fmt_seed(opt, 123), str(std::max<int64_t>(16, mla.d_out / 8))});
}

}  // namespace

Notebook mla_lesson(const LessonOptions& given) {
  LessonOptions opt = bonus_options(given, "mla");
  opt.latent_dim = given.latent_dim.value_or(lesson_default_count("mla", "--latent-dim"));
  Notebook nb = lesson_notebook("mla", opt);
  nb.heading("ch04/05", "heading.setup");
  const Tensor x = bonus_inputs_cell(nb, opt);
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  MultiHeadLatentAttention mla =
      MultiHeadLatentAttention::init(gen, opt.d_in(), opt.d_out, 0.0, *opt.num_heads, opt.qkv_bias, *opt.latent_dim);
  mla.variant = opt.variant;  // `check`'s reruns: the learner's class, with its mistake
  class_cell(nb, opt, mla);
  BonusAttentionTrace t;
  const Tensor full = mla.forward(x, false, gen, BernoulliPath::Default, &t);
  const std::string L = str(mla.latent_dim), d = str(mla.d_out);

  nb.heading("ch04/05", "heading.forward");
  nb.cell({"queries_all = mla.W_query(x)", "latent_new = mla.W_DKV(x)  # (b, T, latent_dim): what the cache will hold",
           "latent_total = latent_new  # use_cache=False: no cached latents before it",
           "latent = latent_total  # added (not in the bonus code): the name this lesson's exports keep",
           "print(latent_total)"});
  nb.record("queries_all", t.queries_proj);
  nb.record("latent_new", t.latent_total);
  nb.show("latent_total", t.latent_total);
  nb.record("latent", t.latent_total);
  nb.note("latent.note", {shape_text(t.latent_total.shape()), L, str(opt.d_in())});
  nb.explain("latent.explain");

  nb.cell({"keys_all = mla.W_UK(latent_total)", "values_all = mla.W_UV(latent_total)", "print(keys_all)"});
  nb.show("keys_all", t.keys_proj);
  nb.record("values_all", t.values_proj);
  nb.note("up.note", {shape_text(t.keys_proj.shape()), L, d});
  nb.explain("up.explain", {L, d});

  heads_cell(nb,
             {"b, num_tokens, _ = x.shape", "num_heads = mla.num_heads", "head_dim = mla.head_dim",
              "queries = mla._reshape_to_heads(queries_all, num_heads, head_dim)",
              "keys = mla._reshape_to_heads(keys_all, num_heads, head_dim)",
              "values = mla._reshape_to_heads(values_all, num_heads, head_dim)", "print(keys)"},
             t);

  weights_cell(nb,
               {"attn_scores = torch.matmul(queries, keys.transpose(-2, -1))", "num_tokens_Q = queries.shape[-2]",
                "num_tokens_K = keys.shape[-2]", "device = queries.device",
                "q_positions = torch.arange(num_tokens_Q, device=device, dtype=torch.long)  # use_cache=False",
                "k_positions = torch.arange(num_tokens_K, device=device, dtype=torch.long)",
                "mask_bool = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)",
                "attn_scores.masked_fill_(mask_bool, -torch.inf)",
                "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)", "print(mask_bool)",
                "print(attn_weights)"},
               t, "mask_bool");
  output_cell(nb, "mla", t, full);

  nb.heading("ch04/05", "heading.cost");
  const ChapterMha mha = chapter_mha(opt);
  const int64_t mha_params = mha.parameters, mha_cached = mha.cached_per_token;
  std::vector<std::string> compare = mha.listing;
  compare.insert(compare.end(),
                 {mha.code, "print(sum(p.numel() for p in mla.parameters()), sum(p.numel() for p in mha.parameters()))",
                  "print(mla.latent_dim, 2 * mha.d_out)  # numbers cached per token"});
  nb.cell(compare);
  nb.print(str(mla.parameter_count()) + " " + str(mha_params));
  nb.print(L + " " + str(mha_cached));
  nb.note(mla.latent_dim < mha_cached ? "cost.note" : "cost.note_none",
          {str(mla.parameter_count()), str(mha_params), L, str(mha_cached)});
  nb.explain("cost.explain");

  module_steps_cell(nb, "mla", "mla.cache_c_kv", x, full, mla, &MultiHeadLatentAttention::cache_c_kv);
  return nb;
}

}  // namespace attn
