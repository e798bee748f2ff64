// §3.6.2: MultiHeadAttention. One projection for all heads, split into heads with view and
// transpose, one batched matmul for all heads, heads merged back and mixed by out_proj.
#include "lessons/common/causal_setup.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "nn/multihead_attention.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/usage_error.h"

namespace attn {

namespace {

std::string stride_text(const Tensor& t) { return shape_text(t.strides()); }
std::string bool_text(bool b) { return b ? "True" : "False"; }
void batched_matmul_cells(Notebook& nb) {
  section_heading(nb, "3.6.2");
  // The book's example tensor: (b, num_heads, num_tokens, head_dim) = (1, 2, 3, 4).
  Tensor a({1, 2, 3, 4}, {0.2745f, 0.6584f, 0.2775f, 0.8573f, 0.8993f, 0.0390f, 0.9268f, 0.7388f,
                          0.7179f, 0.7058f, 0.9156f, 0.4340f, 0.0772f, 0.3565f, 0.1479f, 0.5331f,
                          0.4066f, 0.2318f, 0.4545f, 0.9737f, 0.4606f, 0.5159f, 0.4220f, 0.5786f});
  nb.cell(
      {"a = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573],", "                    [0.8993, 0.0390, 0.9268, 0.7388],",
       "                    [0.7179, 0.7058, 0.9156, 0.4340]],",
       "                   [[0.0772, 0.3565, 0.1479, 0.5331],", "                    [0.4066, 0.2318, 0.4545, 0.9737],",
       "                    [0.4606, 0.5159, 0.4220, 0.5786]]]])", "print(a @ a.transpose(2, 3))"});
  nb.record("a", a);
  nb.show("a @ a.transpose(2, 3)", matmul(a, transpose(a, 2, 3)));
  nb.note("a_a_transpose_2_3.note");
  nb.explain("a_a_transpose_2_3.explain");

  nb.cell({"first_head = a[0, 0, :, :]", "first_res = first_head @ first_head.T",
           "print(\"First head:\\n\", first_res)", "", "second_head = a[0, 1, :, :]",
           "second_res = second_head @ second_head.T", "print(\"\\nSecond head:\\n\", second_res)"});
  Tensor first_head = select(select(a, 0, 0), 0, 0);
  Tensor second_head = select(select(a, 0, 0), 0, 1);
  nb.record("first_head", first_head);
  nb.show("First head:\n", "first_res", matmul(first_head, T(first_head)));
  nb.record("second_head", second_head);
  nb.show("\nSecond head:\n", "second_res", matmul(second_head, T(second_head)));
  nb.note("nsecond_head_n_second_res.note");
  nb.explain("nsecond_head_n_second_res.explain");
  nb.confusion("nsecond_head_n_second_res.confusion");
}

// Exercise 3.3. `after_mha`: the generator where the chapter's cells left it, which the cells carry on with
// when they do not seed it again (opt.no_reseed: `check`'s rerun of a program that left out the seed).
void gpt2_cells(Notebook& nb, const LessonOptions& opt, Generator& after_mha) {
  nb.heading("3.6.2", "heading.exercise_gpt2_size");
  std::vector<std::string> code = {
      "mha = MultiHeadAttention(d_in=768, d_out=768, context_length=1024, dropout=0.0, num_heads=12)",
      "print(sum(p.numel() for p in mha.parameters()))"};
  if (!opt.no_reseed) code.insert(code.begin(), "torch.manual_seed(" + fmt_seed(opt, 123) + ")");
  nb.cell(code);
  Generator seeded;
  seeded.manual_seed(opt.seed_or(123));
  Generator& gen = opt.no_reseed ? after_mha : seeded;
  MultiHeadAttention mha = MultiHeadAttention::init(gen, 768, 768, 1024, 0.0, 12, false);
  nb.print(std::to_string(mha.parameter_count()));
  const std::string params = std::to_string(mha.parameter_count());
  nb.note("gpt2_param_count.note", {params});
  nb.explain("gpt2_param_count.explain");

  nb.cell({"x = torch.rand(2, 6, 768)", "context_vecs = mha(x)", "print(x.shape)", "print(context_vecs.shape)",
           "print(context_vecs)"});
  Tensor x({2, 6, 768}, rand_values(gen, 2 * 6 * 768));
  nb.record("x", x);
  MultiHeadAttentionTrace t;
  Tensor context_vecs = mha.forward(x, gen, opt.bernoulli, &t);
  nb.print(repr_size(x.shape()));
  nb.print(repr_size(context_vecs.shape()));
  nb.show("context_vecs", context_vecs);
  const std::string scores_shape = shape_text(t.attn_scores.shape());
  nb.note("gpt2_context_vecs.note", {scores_shape});
  nb.explain("gpt2_context_vecs.explain");
}

}  // namespace

Notebook mha_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("mha", opt);
  const double p = opt.dropout.value_or(lesson_default("mha", "--dropout"));
  const int64_t context_length = opt.context_length_or_tokens();
  const int64_t h = opt.heads_or(lesson_default_count("mha", "--num-heads")), d_out = opt.d_out;
  if (d_out % h != 0) throw UsageError(error_text("mha.err.heads", {std::to_string(d_out), std::to_string(h)}));

  batched_matmul_cells(nb);

  nb.heading("3.6.2", "heading.weight_splits");
  Tensor batch = batch_cell(nb, opt, true);
  // batch_cell writes its own note and explanation.

  std::vector<std::string> code = multihead_attention_class_code();
  code.insert(code.end(), {"", "torch.manual_seed(" + fmt_seed(opt, 123) + ")",
                           "batch_size, context_length, d_in = batch.shape", "d_out = " + std::to_string(d_out),
                           "mha = MultiHeadAttention(d_in, d_out, context_length, " + py_float(p) +
                               ", num_heads=" + std::to_string(h) + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                           "context_vecs = mha(batch)", "print(context_vecs)",
                           "print(\"context_vecs.shape:\", context_vecs.shape)"});
  // With dropout, mha(batch) draws the mask: the cells that step through it replay the same draws.
  if (p > 0.0) code.insert(code.end() - 3, "rng = torch.get_rng_state()  # before mha(batch): replayed below");
  if (opt.context_length)
    code[code.size() - (p > 0.0 ? 7 : 6)] =
        "batch_size, context_length, d_in = 2, " + std::to_string(context_length) + ", " + std::to_string(opt.d_in());
  nb.cell(code);
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  MultiHeadAttention mha =
      MultiHeadAttention::init(gen, opt.d_in(), d_out, context_length, p, h, opt.qkv_bias, opt.variant);
  MultiHeadAttentionTrace t;
  Tensor context_vecs = mha.forward(batch, gen, opt.bernoulli, &t, opt.variant);
  Steps run = t.steps;  // forward's values, then the name the cell gives its result
  run.bind("context_vecs", "context_vecs = mha(batch)", context_vecs);
  nb.trace(run);
  nb.show("context_vecs", context_vecs);
  nb.print("context_vecs.shape: " + repr_size(context_vecs.shape()));
  const std::string hd = str(mha.head_dim);
  nb.note("context_vecs.note", {str(h), hd, str(d_out)});
  nb.explain("context_vecs.explain", {fmt_seed(opt, 123)});
  nb.confusion("context_vecs.confusion", {str(d_out), str(h), str(h * d_out), hd});

  const std::string b_t = "(b, num_tokens, ";
  std::vector<std::string> inside = {"# inside mha(batch), step by step: self is mha, x is batch",
                                     "self, x = mha, batch"};
  if (p > 0.0) inside.push_back("torch.set_rng_state(rng)  # so that self.dropout draws what mha(batch) drew");
  inside.insert(inside.end(), {"b, num_tokens, d_in = x.shape", "keys = self.W_key(x)", "queries = self.W_query(x)",
                               "values = self.W_value(x)", "print(keys)", "print(queries)", "print(values)"});
  nb.cell(inside);
  nb.show("keys", t.keys);
  nb.show("queries", t.queries);
  nb.show("values", t.values);
  const std::string keys_shape = shape_text(t.keys.shape());
  nb.note("values.note", {b_t, keys_shape});
  nb.explain("values.explain", {str(opt.d_in()), str(d_out)});

  nb.cell({"keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)",
           "queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)",
           "values = values.view(b, num_tokens, self.num_heads, self.head_dim)", "print(keys)"});
  nb.show("keys", t.keys_view);
  nb.record("queries", t.queries_view);
  nb.record("values", t.values_view);
  const std::string view_shape = shape_text(t.keys_view.shape());
  nb.note("keys.note", {view_shape});
  const bool one_col = mha.head_dim == 1;
  const std::string last_col = str(mha.head_dim - 1);
  nb.explain_case("keys.explain", one_col ? "one_column" : "columns", {str(d_out), str(h), hd, last_col});
  nb.confusion("keys.confusion");

  nb.cell({"keys = keys.transpose(1, 2)", "queries = queries.transpose(1, 2)", "values = values.transpose(1, 2)",
           "print(keys)"});
  nb.show("keys", t.keys_heads);
  nb.record("queries", t.queries_heads);
  nb.record("values", t.values_heads);
  nb.note("keys_transposed.note", {shape_text(t.keys_heads.shape())});
  nb.explain("keys_transposed.explain");

  nb.cell({"attn_scores = queries @ keys.transpose(2, 3)", "print(attn_scores)"});
  nb.show("attn_scores", t.attn_scores);
  const std::string scores_shape = shape_text(t.attn_scores.shape());
  nb.note("attn_scores.note", {scores_shape});
  nb.explain("attn_scores.explain", {hd, str(d_out)});
  nb.confusion("attn_scores.confusion");

  nb.cell({"mask_bool = self.mask.bool()[:num_tokens, :num_tokens]", "attn_scores.masked_fill_(mask_bool, -torch.inf)",
           "print(mask_bool)", "print(attn_scores)"});
  nb.show("mask_bool", t.mask_bool);
  nb.show("attn_scores", t.masked_scores);
  nb.note("masked_scores.note");
  const std::string tok0 = quoted_token(opt, 0), tok1 = quoted_token(opt, 1);
  nb.explain("masked_scores.explain", {tok1, tok0});

  nb.cell({"attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "attn_weights = self.dropout(attn_weights)", "print(attn_weights)"});
  nb.show("attn_weights", t.dropped_weights);
  const std::string scale = py_float(sqrt_d_k(mha.head_dim));
  nb.note("attn_weights.note", {scale});
  const std::string p_text = py_float(p);
  nb.explain_case("attn_weights.explain", p == 0.0 ? "no_dropout" : "dropout", {p_text});
  nb.confusion("attn_weights.confusion", {scores_shape, str(h)});

  nb.cell({"context_vec = (attn_weights @ values).transpose(1, 2)", "print(context_vec.shape)",
           "print((attn_weights @ values).stride(), context_vec.stride())", "print(context_vec.is_contiguous())"});
  nb.record("attn_weights @ values", t.context_heads);
  nb.record("context_vec", t.context_transposed);
  nb.print(repr_size(t.context_transposed.shape()));
  nb.print(stride_text(t.context_heads) + " " + stride_text(t.context_transposed));
  nb.print(bool_text(t.context_transposed.is_contiguous()));
  const std::string ct_shape = shape_text(t.context_transposed.shape());
  nb.note("context_vec_is_contiguous.note", {ct_shape});
  nb.explain_case("context_vec_is_contiguous.explain",
                  t.context_transposed.is_contiguous() ? "contiguous" : "not_contiguous");

  nb.cell({"context_vec = context_vec.contiguous()", "print(context_vec.stride(), context_vec.is_contiguous())",
           "context_vec = context_vec.view(b, num_tokens, self.d_out)", "print(context_vec)"});
  nb.print(stride_text(t.context_contiguous) + " " + bool_text(t.context_contiguous.is_contiguous()));
  nb.show("context_vec", t.context_merged);
  const bool viewable = can_view(t.context_transposed, {t.context_transposed.size(0), batch.size(1), d_out});
  const std::string cc_strides = stride_text(t.context_contiguous), merged_shape = shape_text(t.context_merged.shape());
  nb.note("context_vec.note", {cc_strides, b_t, merged_shape});
  nb.explain("context_vec.explain", {str(d_out)});
  const char* why = !viewable ? "view_fails" : mha.head_dim == 1 ? "head_dim_one" : h == 1 ? "one_head" : "sizes_allow";
  nb.confusion_case("contiguous.confusion", why);

  projection_cell(nb,
                  {"context_vec = self.out_proj(context_vec)",
                   "# forward returns context_vec: back outside, context_vecs = mha(batch)",
                   "print(mha.out_proj.weight)", "print(mha.out_proj.bias)", "print(context_vecs)"},
                  "mha.out_proj", mha.out_proj, "context_vecs", t.context_vec, "out_proj.note", "out_proj.explain");

  if (opt.gpt2) gpt2_cells(nb, opt, gen);
  return nb;
}

}  // namespace attn
