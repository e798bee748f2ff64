// §3.6.1: multi-head attention as a list of CausalAttention heads whose outputs are concatenated.
#include "causal_attention.h"
#include "causal_setup.h"
#include "lesson.h"
#include "lesson_text.h"
#include "ops_shape.h"
#include "print.h"

namespace attn {

Notebook wrapper_lesson(const LessonOptions& opt) {
  Notebook nb("wrapper", {"3.6.1"}, opt.config_json(), opt.inputs.tokens);
  const double p = opt.dropout.value_or(0.0);
  const int64_t context_length = opt.context_length_or_tokens();
  const int64_t h = opt.heads_or(2), d_out = opt.d_out;
  Generator gen;

  nb.heading("3.6.1", "Stacking multiple single-head attention layers");
  Tensor batch = batch_cell(nb, opt, true);

  if (opt.no_reseed) {
    nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "context_length = batch.shape[1]",
             "d_in, d_out = " + std::to_string(opt.d_in()) + ", " + std::to_string(d_out),
             std::string("ca = CausalAttention(d_in, d_out, context_length, 0.0") + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
             "context_vecs = ca(batch)"});
    gen.manual_seed(opt.seed_or(123));
    CausalAttention ca = CausalAttention::init(gen, opt.d_in(), d_out, opt.num_tokens(), 0.0, opt.qkv_bias);
    ca.forward(batch, gen, opt.bernoulli);
    nb.note("The CausalAttention cell of 3.5.3 ran just before: building ca took " + std::to_string(gen.draws()) +
            " random numbers (three nn.Linear weights) from the generator seeded with " + fmt_seed(opt, 123) + ".");
  }

  std::vector<std::string> code = wrapper_class_code();
  code.push_back("");
  if (!opt.no_reseed) code.push_back("torch.manual_seed(" + fmt_seed(opt, 123) + ")");
  code.insert(code.end(), {opt.context_length ? "context_length = " + std::to_string(context_length)
                                              : "context_length = batch.shape[1]  # the number of tokens",
                           "d_in, d_out = " + std::to_string(opt.d_in()) + ", " + std::to_string(d_out),
                           "mha = MultiHeadAttentionWrapper(d_in, d_out, context_length, " + fmt_double(p) +
                               ", num_heads=" + std::to_string(h) + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                           "context_vecs = mha(batch)", "print(context_vecs)",
                           "print(\"context_vecs.shape:\", context_vecs.shape)"});
  nb.cell(code);
  if (!opt.no_reseed) gen.manual_seed(opt.seed_or(123));
  const uint64_t draws_before = gen.draws();
  MultiHeadAttentionWrapper mha =
      MultiHeadAttentionWrapper::init(gen, opt.d_in(), d_out, context_length, p, h, opt.qkv_bias);
  std::vector<Tensor> head_outputs;
  Tensor context_vecs = mha.forward(batch, gen, opt.bernoulli, &head_outputs);
  nb.show("context_vecs", context_vecs);
  nb.print("context_vecs.shape: " + repr_size(context_vecs.shape()));
  if (opt.no_reseed)
    nb.note("No torch.manual_seed before the wrapper: the generator carries on where ca left it, draw " +
            std::to_string(draws_before) + " onwards. Head 1 therefore gets the weights the book's head 2 gets "
            "(the book's head 1 got draws 0.." + std::to_string(draws_before - 1) +
            ", which ca consumed here), and head 2 gets fresh ones. This is why the reader's notebook (001 "
            "In [45]) starts with [0.4772, 0.1063, ...]: the book's third and fourth columns.");
  else
    nb.note("Two heads, each a CausalAttention with its own W_query, W_key, W_value drawn one after the other "
            "from the seed. The output is " + std::to_string(h) + " x " + std::to_string(d_out) + " = " +
            std::to_string(h * d_out) + " wide.");

  nb.cell({"# inside mha(batch) above, before the cat:", "head_outputs = [head(x) for head in self.heads]",
           "for i, out in enumerate(head_outputs):", "    print(f\"head {i}:\", out)"});
  for (size_t i = 0; i < head_outputs.size(); ++i)
    nb.show("head " + std::to_string(i) + ":", "head_outputs[" + std::to_string(i) + "]", head_outputs[i]);
  nb.note("Each head runs on its own, one after another, and returns (b, num_tokens, d_out) = " +
          shape_text(head_outputs[0].shape()) + ". The heads are independent: same input, different weights." +
          (p > 0.0 ? " These are the outputs from inside mha(batch); calling the heads again would draw new "
                     "dropout masks and give other numbers."
                   : ""));

  nb.cell({"torch.cat(head_outputs, dim=-1)", "print(torch.cat(head_outputs, dim=-1).shape)"});
  nb.record("torch.cat(head_outputs, dim=-1)", context_vecs);
  nb.print(repr_size(context_vecs.shape()));
  nb.note("torch.cat along the last dimension puts the heads side by side: columns 1.." + std::to_string(d_out) +
          " are head 0, the next " + std::to_string(d_out) + " head 1, and so on. Here d_out is PER HEAD, so the "
          "width is num_heads * d_out = " + std::to_string(h * d_out) + "; in MultiHeadAttention (mha) d_out is "
          "the TOTAL width and each head gets d_out / num_heads. Exercise 3.2: --d-out 1 gives width " +
          std::to_string(h) + ".");
  return nb;
}

}  // namespace attn
