// §3.6.1: multi-head attention as a list of CausalAttention heads whose outputs are concatenated.
#include "nn/causal_attention.h"
#include "lessons/common/causal_setup.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "core/ops_shape.h"
#include "core/print.h"

namespace attn {

Notebook wrapper_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("wrapper", opt);
  const double p = opt.dropout.value_or(lesson_default("wrapper", "--dropout"));
  const int64_t context_length = opt.context_length_or_tokens();
  const int64_t h = opt.heads_or(lesson_default_count("wrapper", "--num-heads")), d_out = opt.d_out;
  Generator gen;

  section_heading(nb, "3.6.1");
  Tensor batch = batch_cell(nb, opt, true);

  // The wrapper's heads are 3.5.3's CausalAttention: its class comes first, in the first cell that uses it.
  std::vector<std::string> causal_class = causal_attention_class_code();
  causal_class.push_back("");
  if (opt.no_reseed) {
    std::vector<std::string> first = causal_class;
    first.insert(first.end(), {"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "context_length = batch.shape[1]",
                               "d_in, d_out = " + std::to_string(opt.d_in()) + ", " + std::to_string(d_out),
                               std::string("ca = CausalAttention(d_in, d_out, context_length, 0.0") +
                                   (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                               "context_vecs = ca(batch)"});
    nb.cell(first);
    gen.manual_seed(opt.seed_or(123));
    CausalAttention ca =
        CausalAttention::init(gen, opt.d_in(), d_out, opt.num_tokens(), 0.0, opt.qkv_bias, opt.variant);
    ca.forward(batch, gen, opt.bernoulli, nullptr, opt.variant);
    nb.note("context_vecs_ca_batch.note", {std::to_string(gen.draws()), fmt_seed(opt, 123)});
    nb.explain("context_vecs_ca_batch.explain");
  }

  std::vector<std::string> code = opt.no_reseed ? std::vector<std::string>{} : causal_class;
  const std::vector<std::string> wrapper_class = wrapper_class_code();
  code.insert(code.end(), wrapper_class.begin(), wrapper_class.end());
  code.push_back("");
  if (!opt.no_reseed) code.push_back("torch.manual_seed(" + fmt_seed(opt, 123) + ")");
  code.insert(code.end(), {opt.context_length ? "context_length = " + std::to_string(context_length)
                                              : "context_length = batch.shape[1]  # the number of tokens",
                           "d_in, d_out = " + std::to_string(opt.d_in()) + ", " + std::to_string(d_out),
                           "mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, " + py_float(p) +
                               ", num_heads=" + std::to_string(h) + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                           "context_vecs = mha(batch)", "print(context_vecs)",
                           "print(\"context_vecs.shape:\", context_vecs.shape)"});
  // With dropout the heads draw their masks in mha(batch): the next cell replays them from the same state.
  if (p > 0.0) code.insert(code.end() - 3, "rng = torch.get_rng_state()  # before mha(batch): replayed below");
  nb.cell(code);
  if (!opt.no_reseed) gen.manual_seed(opt.seed_or(123));
  const uint64_t draws_before = gen.draws();
  MultiHeadAttentionWrapper mha =
      MultiHeadAttentionWrapper::init(gen, opt.d_in(), d_out, context_length, p, h, opt.qkv_bias, opt.variant);
  WrapperTrace trace;
  Tensor context_vecs = mha.forward(batch, gen, opt.bernoulli, &trace, opt.variant);
  const std::vector<Tensor>& head_outputs = trace.head_outputs;
  Steps run = trace.steps;  // every head's values, then the name the cell gives the result
  run.bind("context_vecs", "context_vecs = mha(batch)", context_vecs);
  nb.trace(run);
  nb.show("context_vecs", context_vecs);
  nb.print("context_vecs.shape: " + repr_size(context_vecs.shape()));
  const std::string hs = std::to_string(h), ds = std::to_string(d_out), width = std::to_string(h * d_out);
  const std::string seed = fmt_seed(opt, 123);
  nb.note(h == 1 ? "heads.note_one" : "heads.note", {hs, ds, width});
  nb.explain("wrapper_context_vecs.explain", {shape_text(context_vecs.shape())});
  if (opt.no_reseed) {
    const std::string drawn = std::to_string(draws_before), last = std::to_string(draws_before - 1);
    const bool book = !opt.seed && !opt.custom_inputs && d_out == 2 && h >= 2 && !opt.qkv_bias;
    nb.confusion_case("wrapper_context_vecs.confusion",
                      book     ? "no_reseed_book"
                      : h >= 2 ? "no_reseed_heads"
                               : "no_reseed_one_head",
                      {drawn, last, seed});
  } else {
    // The book's numbers only at its seed and settings (§3.6.1: its inputs, d_out 2, 2 heads, dropout 0, no bias).
    const bool book_numbers =
        opt.seed_or(123) == 123 && !opt.custom_inputs && d_out == 2 && h == 2 && p == 0.0 && !opt.qkv_bias;
    nb.confusion_case("wrapper_context_vecs.confusion", book_numbers ? "reseed_book" : "reseed_other", {seed});
  }

  std::vector<std::string> heads_code = {"# inside mha(batch) above, before the cat: self is mha, x is batch",
                                         "self, x = mha, batch"};
  if (p > 0.0) heads_code.push_back("torch.set_rng_state(rng)  # the dropout draws of mha(batch) again");
  heads_code.insert(heads_code.end(), {"head_outputs = [head(x) for head in self.heads]",
                                       "for i, out in enumerate(head_outputs):", "    print(f\"head {i}:\", out)"});
  nb.cell(heads_code);
  for (size_t i = 0; i < head_outputs.size(); ++i)
    nb.show("head " + std::to_string(i) + ":", "head_outputs[" + std::to_string(i) + "]", head_outputs[i]);
  nb.note_case("head_outputs.note", p > 0.0 ? "with_dropout" : "without_dropout",
               {shape_text(head_outputs[0].shape())});
  nb.explain(d_out == 1 ? "head_outputs.explain_one" : "head_outputs.explain", {ds});

  nb.cell({"torch.cat(head_outputs, dim=-1)", "print(torch.cat(head_outputs, dim=-1).shape)"});
  nb.record("torch.cat(head_outputs, dim=-1)", context_vecs);
  nb.print(repr_size(context_vecs.shape()));
  nb.note("heads_cat.note", {ds, hs});
  nb.explain("heads_cat.explain");
  nb.confusion_case("heads_cat.confusion", d_out % h == 0 ? "divisible" : "not_divisible", {ds, width});
  return nb;
}

}  // namespace attn
