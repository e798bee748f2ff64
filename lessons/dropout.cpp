// §3.5.2-3.5.3: dropout on the attention weights (and its 1/(1-p) scale), a batch of two inputs,
// and the CausalAttention class step by step.
#include "causal_attention.h"
#include "causal_setup.h"
#include "dropout.h"
#include "lesson.h"
#include "lesson_text.h"
#include "ops_math.h"
#include "ops_shape.h"
#include "print.h"

namespace attn {

namespace {

std::string p_text(double p) { return fmt_double(p); }

}  // namespace

Notebook dropout_lesson(const LessonOptions& opt) {
  Notebook nb("dropout", {"3.5.2", "3.5.3"}, opt.config_json(), opt.inputs.tokens);
  const double p = opt.dropout.value_or(0.5);
  const int64_t n = opt.num_tokens();
  const bool mkl = opt.bernoulli == BernoulliPath::Mkl;
  Generator gen;

  nb.heading("3.5.2", "Masking additional attention weights with dropout");
  CausalWeights w = causal_weights(opt, &nb, false);

  gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "dropout = torch.nn.Dropout(" + p_text(p) + ")",
           "example = torch.ones(" + std::to_string(n) + ", " + std::to_string(n) + ")", "print(dropout(example))"});
  Tensor example = ones({n, n});
  nb.record("example", example);
  Tensor keep;
  Tensor dropped_example = dropout(example, p, gen, opt.bernoulli, &keep);
  nb.show("dropout(example)", dropped_example);
  if (p == 0.0) {
    nb.note("Dropout(0.0) returns its input unchanged and draws no random numbers at all.");
  } else if (p == 1.0) {
    nb.note("Dropout(1.0) drops everything: PyTorch returns input * 0 without drawing random numbers.");
  } else {
    int64_t kept = 0;
    for (float k : keep.values()) kept += k != 0.0f;
    nb.note(std::to_string(kept) + " of " + std::to_string(n * n) + " entries survive (each independently with "
            "probability 1 - p = " + fmt_double(1.0 - p) + "); the rest are zero.");
  }

  if (p > 0.0 && p < 1.0) {
    const float q = static_cast<float>(1.0 - p);
    const float scale = 1.0f / q;
    nb.cell({"scale = 1 / (1 - " + p_text(p) + ")", "print(scale)"});
    nb.print(fmt_double(static_cast<double>(scale)));
    nb.note("Survivors are multiplied by 1/(1-p) = " + fmt_double(static_cast<double>(scale)) +
            ", not by 1/p: the expected value of each entry stays what it was, so the layer behaves the same "
            "on average in training (dropout on) and inference (dropout off). PyTorch computes it in float32 "
            "as 1/float32(1-p).");
  }

  gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "print(dropout(attn_weights))"});
  Tensor dropped = dropout(w.attn_weights, p, gen, opt.bernoulli, &keep);
  nb.show("dropout(attn_weights)", dropped);
  nb.note("The same seed gives the same mask as for the ones above: compare where the zeros are. Entries above "
          "the diagonal were already 0; dropout zeroes some of the others and doubles the survivors.");
  if (mkl)
    nb.note("--bernoulli mkl: these are the masks an Intel CPU printed with PyTorch <= 2.6 (the reader's "
            "notebook, 001 In [38]-[39]). There PyTorch drew the mask with Intel MKL's generator, seeded with "
            "a single draw from torch's own; AMD and Apple machines, and every machine since PyTorch 2.7, use "
            "torch's generator directly (the book's masks). Both are correct dropout; only the random stream "
            "differs, and everything drawn afterwards shifts too.");

  gen.manual_seed(opt.seed_or(123));
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")", "print(dropout(attn_weights).sum(dim=-1))"});
  nb.show("dropout(attn_weights).sum(dim=-1)", sum(dropout(w.attn_weights, p, gen, opt.bernoulli), -1, false));
  nb.note("After dropout the rows no longer sum to 1: dropout is applied after softmax and is not "
          "renormalised. Only the expected row sum is still 1.");

  nb.heading("3.5.3", "Implementing a compact causal attention class");
  Tensor batch = batch_cell(nb, opt, false);
  nb.note("Two copies of the input text stacked into a batch: (batch size, tokens, embedding size).");

  const int64_t context_length = opt.context_length_or_tokens();
  std::vector<std::string> code = causal_attention_class_code();
  code.insert(code.end(), {"", "torch.manual_seed(" + fmt_seed(opt, 123) + ")",
                           opt.context_length ? "context_length = " + std::to_string(context_length)
                                              : "context_length = batch.shape[1]",
                           std::string("ca = CausalAttention(d_in, d_out, context_length, 0.0") +
                               (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                           "context_vecs = ca(batch)",
                           "print(\"context_vecs.shape:\", context_vecs.shape)"});
  nb.cell(code);
  gen.manual_seed(opt.seed_or(123));
  CausalAttention ca = CausalAttention::init(gen, opt.d_in(), opt.d_out, context_length, 0.0, opt.qkv_bias);
  CausalAttentionTrace t;
  Tensor context_vecs = ca.forward(batch, gen, opt.bernoulli, &t);
  nb.print("context_vecs.shape: " + repr_size(context_vecs.shape()));
  nb.note("register_buffer stores the mask with the module (it moves with it to a GPU) but it is not a "
          "parameter; [:num_tokens, :num_tokens] lets one module serve any text up to context_length tokens.");

  nb.cell({"# inside ca(batch), step by step", "keys = self.W_key(x)", "queries = self.W_query(x)",
           "values = self.W_value(x)", "print(keys)", "print(queries)", "print(values)"});
  nb.show("keys", t.keys);
  nb.show("queries", t.queries);
  nb.show("values", t.values);
  nb.note("The same projections as before, now for a batch: (b, num_tokens, d_out). nn.Linear works on the "
          "last dimension whatever comes before it.");

  nb.cell({"attn_scores = queries @ keys.transpose(1, 2)",
           "attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)", "print(attn_scores)"});
  nb.show("attn_scores", t.attn_scores);
  nb.note("keys.transpose(1, 2) swaps tokens and features but leaves the batch dimension alone (keys.T would "
          "reverse all three). masked_fill_ with a trailing underscore works in place.");

  nb.cell({"attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "attn_weights = self.dropout(attn_weights)", "print(attn_weights)"});
  nb.show("attn_weights", t.dropped_weights);
  nb.note("dim=-1 matters now: with a batch dimension, dim=1 would normalise over the query axis, not over "
          "the keys. Dropout(0.0) passes the weights through untouched.");

  nb.cell({"context_vec = attn_weights @ values", "return context_vec", "# back outside: context_vecs = ca(batch)",
           "print(context_vecs)"});
  nb.show("context_vecs", context_vecs);
  nb.note("One causal context vector per token and per text: both texts are identical, so both blocks are.");
  return nb;
}

}  // namespace attn
