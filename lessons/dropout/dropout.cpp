// §3.5.2-3.5.3: dropout on the attention weights (and its 1/(1-p) scale), a batch of two inputs,
// and the CausalAttention class step by step.
#include "nn/causal_attention.h"
#include "lessons/common/causal_setup.h"
#include "nn/attention_steps.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"

namespace attn {

namespace {

std::string p_text(double p) { return py_float(p); }

}  // namespace

Notebook dropout_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("dropout", opt);
  const double p = opt.dropout.value_or(lesson_default("dropout", "--dropout"));
  const int64_t n = opt.num_tokens();
  const bool mkl = opt.bernoulli == BernoulliPath::Mkl;
  Generator gen;

  section_heading(nb, "3.5.2");
  CausalWeights w = causal_weights(opt, &nb, false);

  gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "dropout = torch.nn.Dropout(" + p_text(p) + ")",
           "example = torch.ones(" + std::to_string(n) + ", " + std::to_string(n) + ")", "print(dropout(example))"});
  Tensor example = ones({n, n});
  nb.record("example", example);
  Tensor keep;
  const Variant& v = opt.variant;
  Tensor dropped_example = dropout_step(example, p, true, gen, opt.bernoulli, v, &keep);
  nb.show("dropout(example)", dropped_example);
  const std::string seed = fmt_seed(opt, 123);
  // rate 0 keeps all, rate 1 drops all: no draw decides anything there
  const std::string rate = p == 0.0 ? "rate_zero" : p == 1.0 ? "rate_one" : "random_mask";
  if (p == 0.0 || p == 1.0) {
    nb.note_case("dropout_example.note", rate);
  } else {
    int64_t kept = 0;
    for (float k : keep.values()) kept += k != 0.0f;
    nb.note_case("dropout_example.note", rate, {std::to_string(kept), std::to_string(n * n), py_float(1.0 - p)});
  }
  nb.explain("dropout_example.explain", {seed});
  if (p == 0.0 || p == 1.0) nb.confusion("dropout_example.confusion");

  if (p > 0.0 && p < 1.0) {
    const double scale = 1.0 / (1.0 - p);  // a Python float, as the cell computes it
    nb.cell({"scale = 1 / (1 - " + p_text(p) + ")", "print(scale)"});
    nb.print(py_float(scale));
    const std::string s_text = py_float(scale);
    nb.note("scale.note", {s_text});
    nb.explain("scale.explain");
    if (p == 0.5)
      nb.confusion("scale.confusion_book");
    else
      nb.confusion("scale.confusion", {s_text, py_float(1.0 / p)});
  }

  if (!opt.cells.no_reseed_before_dropout_weights) gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "print(dropout(attn_weights))"});
  Tensor dropped = dropout_step(w.attn_weights, p, true, gen, opt.bernoulli, v, &keep);
  nb.show("dropout(attn_weights)", dropped);
  nb.note_case("dropout_attn_weights.note", rate);
  nb.explain("dropout_attn_weights.explain");
  // (At rate 0 or 1 no draw decides anything: every machine keeps all or drops all.)
  if (p == 0.0 || p == 1.0)
    nb.confusion_case("dropout_attn_weights.confusion", "same_everywhere", {p_text(p)});
  else
    nb.confusion_case("dropout_attn_weights.confusion", mkl ? "mkl" : "default");
  if (mkl) nb.note("mkl_masks.note");

  if (!opt.cells.no_reseed_before_dropout_sum) gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "print(dropout(attn_weights).sum(dim=-1))"});
  nb.show("dropout(attn_weights).sum(dim=-1)",
          sum(dropout_step(w.attn_weights, p, true, gen, opt.bernoulli, v), -1, false));
  if (p == 0.0 || p == 1.0)  // the expected row sum is (1-p) x 1/(1-p) = 1 below p = 1, and 0 at p = 1
    nb.note_case("dropout_attn_weights_sum_dim_1.note", rate);
  else
    nb.note_case("dropout_attn_weights_sum_dim_1.note", rate, {p_text(p)});
  nb.explain("dropout_attn_weights_sum_dim_1.explain");

  section_heading(nb, "3.5.3");
  Tensor batch = batch_cell(nb, opt, false);

  const int64_t context_length = opt.context_length_or_tokens();
  std::vector<std::string> code = causal_attention_class_code();
  code.insert(
      code.end(),
      {"", "torch.manual_seed(" + fmt_seed(opt, 123) + ")",
       opt.context_length ? "context_length = " + std::to_string(context_length) : "context_length = batch.shape[1]",
       std::string("ca = CausalAttention(d_in, d_out, context_length, 0.0") + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
       "context_vecs = ca(batch)", "print(\"context_vecs.shape:\", context_vecs.shape)"});
  nb.cell(code);
  gen.manual_seed(opt.seed_or(123));
  CausalAttention ca = CausalAttention::init(gen, opt.d_in(), opt.d_out, context_length, 0.0, opt.qkv_bias, v);
  CausalAttentionTrace t;
  Tensor context_vecs = ca.forward(batch, gen, opt.bernoulli, &t, v);
  Steps run = t.steps;  // forward's values, then the name the cell gives its result
  run.bind("context_vecs", "context_vecs = ca(batch)", context_vecs);
  nb.trace(run);
  nb.print("context_vecs.shape: " + repr_size(context_vecs.shape()));
  nb.note("causal_attention_class.note");
  const std::string out_shape = shape_text(context_vecs.shape()), d_out = std::to_string(opt.d_out);
  nb.explain("causal_attention_class.explain", {out_shape, d_out});

  nb.cell({"# inside ca(batch), step by step: self is ca, x is batch", "self, x = ca, batch",
           "b, num_tokens, d_in = x.shape", "keys = self.W_key(x)", "queries = self.W_query(x)",
           "values = self.W_value(x)", "print(keys)", "print(queries)", "print(values)"});
  nb.show("keys", t.keys);
  nb.show("queries", t.queries);
  nb.show("values", t.values);
  nb.note("values.note");
  nb.explain("values.explain", {shape_text(batch.shape()), std::to_string(2 * n)});

  nb.cell({"attn_scores = queries @ keys.transpose(1, 2)",
           "attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)", "print(attn_scores)"});
  nb.show("attn_scores", t.attn_scores);
  nb.note("attn_scores.note");
  nb.explain("attn_scores.explain");

  nb.cell({"attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "attn_weights = self.dropout(attn_weights)", "print(attn_weights)"});
  nb.show("attn_weights", t.dropped_weights);
  nb.note("attn_weights.note");
  nb.explain_case("attn_weights.explain", opt.seed ? "own_seed" : "book_seeds");
  nb.confusion("attn_weights.confusion");

  nb.cell({"context_vec = attn_weights @ values",
           "# forward returns context_vec: back outside, context_vecs = ca(batch)", "print(context_vecs)"});
  nb.show("context_vecs", context_vecs);
  nb.note("context_vecs.note");
  nb.explain("context_vecs.explain");
  return nb;
}

}  // namespace attn
