// §3.4.1-3.4.2: scaled dot-product attention with trainable W_query, W_key, W_value, step by step,
// then as the SelfAttention_v1 and SelfAttention_v2 classes, and exercise 3.1.
#include <cmath>

#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/tensor_print.h"
#include "nn/attention_steps.h"
#include "nn/self_attention.h"

namespace attn {

namespace {

Tensor weight_param(Generator& gen, const LessonOptions& opt, int64_t d_in, int64_t d_out) {
  std::vector<float> v = opt.init == Init::Rand ? rand_values(gen, d_in * d_out) : randn_values(gen, d_in * d_out);
  Tensor p({d_in, d_out}, std::move(v));
  p.set_parameter(true);  // requires_grad=False: no suffix when printed
  return p;
}

// The module mistake `check` reruns the lesson with, in `place` (each place, unless it is scoped to one).
Variant variant_at(const LessonOptions& opt, CellVariant::VariantIn place) {
  const CellVariant::VariantIn in = opt.cells.variant_in;
  return in == CellVariant::VariantIn::Everywhere || in == place ? opt.variant : Variant();
}

}  // namespace

Notebook trainable_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("trainable", opt);
  const Tensor& inputs = opt.inputs.embeddings;
  const std::string journey = quoted_token(opt, 1);
  const int64_t d_in = inputs.size(1), d_out = opt.d_out;
  const std::string draw = opt.init == Init::Rand ? "torch.rand" : "torch.randn";
  const std::string N = std::to_string(inputs.size(0)), D = std::to_string(d_in), DO = std::to_string(d_out);
  Generator gen;
  using In = CellVariant::VariantIn;
  const Variant steps_v = variant_at(opt, In::Steps), v1 = variant_at(opt, In::SelfAttentionV1),
                v2 = variant_at(opt, In::SelfAttentionV2);

  section_heading(nb, "3.4.1");
  std::vector<std::string> setup = inputs_code(opt);
  setup.insert(setup.end(),
               {"x_2 = inputs[1]  # second input element", "d_in = inputs.shape[1]  # the input embedding size",
                "d_out = " + std::to_string(d_out) + "  # the output embedding size", "print(d_in, d_out)"});
  nb.cell(setup);
  nb.record("inputs", inputs);
  Tensor x_2 = select(inputs, 0, 1);
  nb.record("x_2", x_2);
  nb.print(std::to_string(d_in) + " " + std::to_string(d_out));
  nb.note("intro.note", {journey});
  nb.explain("intro.explain", {journey, D, DO});

  const uint64_t seed1 = opt.seed_or(123);
  gen.manual_seed(seed1);
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
           "W_query = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)",
           "W_key   = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)",
           "W_value = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)", "print(W_query)",
           "print(W_key)", "print(W_value)"});
  Tensor drawn[3];  // W_query, W_key, W_value, drawn in this order (a learner's may differ)
  for (int i : creation_order(steps_v, 3)) drawn[i] = weight_param(gen, opt, d_in, d_out);
  const Tensor &W_query = drawn[0], &W_key = drawn[1], &W_value = drawn[2];
  nb.show("W_query", W_query);
  nb.show("W_key", W_key);
  nb.show("W_value", W_value);
  nb.note_case("w_value.note", opt.init == Init::Rand ? "rand" : "randn");
  const std::string seed_text = fmt_seed(opt, 123);
  nb.explain("w_value.explain", {seed_text, std::to_string(d_in * d_out)});

  nb.cell({"query_2 = x_2 @ W_query", "key_2 = x_2 @ W_key", "value_2 = x_2 @ W_value", "print(query_2)",
           "print(key_2)", "print(value_2)"});
  Tensor query_2 = matmul(x_2, W_query);
  Tensor key_2 = matmul(x_2, W_key);
  Tensor value_2 = matmul(x_2, W_value);
  nb.show("query_2", query_2);
  nb.show("key_2", key_2);
  nb.show("value_2", value_2);
  nb.note("value_2.note", {journey, DO});
  nb.explain("value_2.explain", {D, DO, journey});

  nb.cell({"keys = inputs @ W_key", "values = inputs @ W_value", "print(\"keys.shape:\", keys.shape)",
           "print(\"values.shape:\", values.shape)", "print(keys)", "print(values)"});
  Tensor keys = matmul(inputs, W_key);
  Tensor values = matmul(inputs, W_value);
  nb.print("keys.shape: " + repr_size(keys.shape()));
  nb.print("values.shape: " + repr_size(values.shape()));
  nb.show("keys", keys);
  nb.show("values", values);
  nb.note("values.note", {journey, D, DO});
  nb.explain("values.explain", {N, D, DO, journey});

  nb.cell({"keys_2 = keys[1]", "attn_score_22 = query_2.dot(keys_2)", "print(attn_score_22)"});
  Tensor keys_2 = select(keys, 0, 1);
  nb.record("keys_2", keys_2);
  Tensor attn_score_22 = dot(query_2, keys_2);
  nb.show("attn_score_22", attn_score_22);
  nb.note("attn_score_22.note", {journey});
  nb.explain("attn_score_22.explain", {journey});

  nb.cell({"attn_scores_2 = query_2 @ keys.T", "print(attn_scores_2)"});
  Tensor attn_scores_2 = matmul(query_2, T(keys));
  nb.show("attn_scores_2", attn_scores_2);
  nb.note("attn_scores_2.note", {journey});
  const std::string top_score = quoted_token(opt, argmax(attn_scores_2.values()));
  nb.explain("attn_scores_2.explain", {DO, N, journey, top_score});

  nb.heading("3.4.1", "heading.scaled_dot_product");
  nb.cell({"d_k = keys.shape[-1]", "attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)", "print(d_k)",
           "print(attn_weights_2)"});
  const int64_t d_k = keys.size(-1);
  nb.record("d_k", Tensor({}, {static_cast<float>(d_k)}, DType::Int64));
  nb.print(std::to_string(d_k));
  Tensor attn_weights_2 = scaled_softmax(attn_scores_2, sqrt_d_k(d_k), {d_k, d_in, d_k}, -1, steps_v);
  nb.show("attn_weights_2", attn_weights_2);
  const std::string root = py_float(sqrt_d_k(d_k)), DK = std::to_string(d_k);
  nb.note("attn_weights_2.note", {root});
  nb.explain("attn_weights_2.explain", {DK});

  nb.cell({"context_vec_2 = attn_weights_2 @ values", "print(context_vec_2)"});
  Tensor context_vec_2 = matmul(attn_weights_2, values);
  nb.show("context_vec_2", context_vec_2);
  nb.note("context_vec_2.note", {journey, DO});
  const std::vector<float> w2 = attn_weights_2.values();
  const int64_t top = argmax(w2);
  nb.explain("context_vec_2.explain", {N, DO, journey, element_text(attn_weights_2, top), quoted_token(opt, top)});

  section_heading(nb, "3.4.2");
  const uint64_t seed_v1 = opt.seed_or(123);
  gen.manual_seed(seed_v1);
  SelfAttentionV1 sa_v1 = SelfAttentionV1::init(gen, d_in, d_out, v1);
  nb.cell({"class SelfAttention_v1(nn.Module):", "    def __init__(self, d_in, d_out):", "        super().__init__()",
           "        self.W_query = nn.Parameter(torch.rand(d_in, d_out))",
           "        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))",
           "        self.W_value = nn.Parameter(torch.rand(d_in, d_out))", "",
           "    def forward(self, x):", "        keys = x @ self.W_key", "        queries = x @ self.W_query",
           "        values = x @ self.W_value", "        attn_scores = queries @ keys.T # omega",
           "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "        context_vec = attn_weights @ values", "        return context_vec", "",
           "torch.manual_seed(" + fmt_seed(opt, 123) + ")", "sa_v1 = SelfAttention_v1(d_in, d_out)",
           "print(sa_v1(inputs))"});
  SelfAttentionTrace inside_v1;  // its attention weights, for --heatmap and --html
  Tensor sa_v1_out = sa_v1.forward(inputs, &inside_v1, v1);
  nb.inside(inside_v1.steps);
  nb.show("sa_v1(inputs)", sa_v1_out);
  const bool same_draws = opt.init == Init::Rand && seed_v1 == seed1;
  const std::string draws = same_draws ? "same_draws" : "other_draws";
  nb.note_case("sa_v1_inputs.note", draws);
  nb.confusion_case("sa_v1_inputs.confusion", draws, {seed_text});
  nb.explain("sa_v1_inputs.explain", {N, DO});

  const uint64_t seed_v2 = opt.seed_or(789);
  gen.manual_seed(seed_v2);
  SelfAttentionV2 sa_v2 = SelfAttentionV2::init(gen, d_in, d_out, opt.qkv_bias, v2);
  const std::string bias = opt.qkv_bias ? "True" : "False";
  nb.cell({"class SelfAttention_v2(nn.Module):", "    def __init__(self, d_in, d_out, qkv_bias=False):",
           "        super().__init__()", "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)",
           "        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)",
           "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)", "",
           "    def forward(self, x):", "        keys = self.W_key(x)", "        queries = self.W_query(x)",
           "        values = self.W_value(x)", "        attn_scores = queries @ keys.T",
           "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "        context_vec = attn_weights @ values", "        return context_vec", "",
           "torch.manual_seed(" + fmt_seed(opt, 789) + ")",
           std::string("sa_v2 = SelfAttention_v2(d_in, d_out") + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
           "print(sa_v2(inputs))"});
  SelfAttentionTrace inside_v2;
  Tensor sa_v2_out = sa_v2.forward(inputs, &inside_v2, v2);
  nb.inside(inside_v2.steps);
  nb.show("sa_v2(inputs)", sa_v2_out);
  const std::string seed2_text = fmt_seed(opt, 789);
  if (seed_v2 != seed_v1)
    nb.note_case("sa_v2_inputs.note", "other_seed", {seed2_text, seed_text});
  else
    nb.note_case("sa_v2_inputs.note", "same_seed");
  nb.explain("sa_v2_inputs.explain");

  nb.cell({"print(sa_v2.W_query.weight)", "print(sa_v2.W_key.weight)", "print(sa_v2.W_value.weight)"});
  nb.show("sa_v2.W_query.weight", sa_v2.W_query.weight);
  nb.show("sa_v2.W_key.weight", sa_v2.W_key.weight);
  nb.show("sa_v2.W_value.weight", sa_v2.W_value.weight);
  const std::string shape = shape_text({d_out, d_in});
  char bound[32];
  std::snprintf(bound, sizeof bound, "%.3f", 1.0 / std::sqrt(static_cast<double>(d_in)));
  nb.note("sa_v2_w_value_weight.note", {shape});
  nb.explain("sa_v2_w_value_weight.explain", {DO, D, std::string(bound)});
  if (opt.qkv_bias) {
    nb.cell({"print(sa_v2.W_query.bias)", "print(sa_v2.W_key.bias)", "print(sa_v2.W_value.bias)"});
    nb.show("sa_v2.W_query.bias", *sa_v2.W_query.bias);
    nb.show("sa_v2.W_key.bias", *sa_v2.W_key.bias);
    nb.show("sa_v2.W_value.bias", *sa_v2.W_value.bias);
    nb.note("sa_v2_w_value_bias.note", {DO});
    nb.explain("sa_v2_w_value_bias.explain");
  }

  nb.heading("3.4.2", "heading.exercise_copy_weights");
  nb.cell({"sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)",
           "sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)",
           "sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)", "print(sa_v1(inputs))",
           "print(torch.equal(sa_v1(inputs), sa_v2(inputs)))"});
  auto as_param = [](const Tensor& w) {
    Tensor p = T(w);
    p.set_grad_fn("");
    p.set_parameter(true).set_requires_grad(true);
    return p;
  };
  sa_v1.W_query = as_param(sa_v2.W_query.weight);
  sa_v1.W_key = as_param(sa_v2.W_key.weight);
  sa_v1.W_value = as_param(sa_v2.W_value.weight);
  SelfAttentionTrace inside_copied;
  Tensor sa_v1_copied = sa_v1.forward(inputs, &inside_copied, v1);
  nb.inside(inside_copied.steps);
  nb.show("sa_v1(inputs)", sa_v1_copied);
  const bool equal = sa_v1_copied.shape() == sa_v2_out.shape() && sa_v1_copied.values() == sa_v2_out.values();
  nb.print(equal ? "True" : "False");
  nb.note_case("sa_v1_copied_equal.note", equal ? "equal" : "bias_differs");
  nb.explain("sa_v1_copied_equal.explain");
  return nb;
}

}  // namespace attn
