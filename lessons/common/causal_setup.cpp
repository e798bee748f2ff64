#include "lessons/common/causal_setup.h"

#include <limits>

#include "lessons/lesson_text.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "nn/attention_steps.h"

namespace attn {

std::vector<std::string> self_attention_v2_class_code() { return listing("common", "SelfAttention_v2"); }

std::vector<std::string> causal_attention_class_code() { return listing("common", "CausalAttention"); }

std::vector<std::string> wrapper_class_code() { return listing("common", "MultiHeadAttentionWrapper"); }

std::vector<std::string> multihead_attention_class_code() { return listing("common", "MultiHeadAttention"); }

Tensor batch_cell(Notebook& nb, const LessonOptions& opt, bool with_inputs) {
  std::vector<std::string> code = with_inputs ? inputs_code(opt) : std::vector<std::string>{};
  code.insert(code.end(), {"batch = torch.stack((inputs, inputs), dim=0)", "print(batch.shape)"});
  nb.cell(code);
  Tensor batch = stack({opt.inputs.embeddings, opt.inputs.embeddings}, 0);
  nb.record("batch", batch);
  nb.print(repr_size(batch.shape()));
  const std::string shape = shape_text(batch.shape());
  const std::string n = std::to_string(opt.num_tokens()), d_in = std::to_string(opt.d_in());
  const std::string cat_shape = "(" + std::to_string(2 * opt.num_tokens()) + ", " + d_in + ")";
  nb.note("setup.batch.note", {shape});
  nb.explain_case("setup.batch.explain", with_inputs ? "inputs_again" : "inputs_known", {cat_shape});
  return batch;
}

CausalWeights causal_weights(const LessonOptions& opt, Notebook* nb, bool verbose) {
  const Tensor& inputs = opt.inputs.embeddings;
  Generator gen;
  gen.manual_seed(opt.seed_or(789));
  const Variant& v = opt.variant;
  SelfAttentionV2 sa_v2 = SelfAttentionV2::init(gen, opt.d_in(), opt.d_out, opt.qkv_bias, v);
  CausalWeights w;
  w.queries = sa_v2.W_query(inputs);
  w.keys = sa_v2.W_key(inputs);
  w.values = sa_v2.W_value(inputs);
  w.attn_scores = matmul(w.queries, T(w.keys));
  const int64_t d_k = w.keys.size(-1);
  const ScaleSizes sizes{d_k, opt.d_in(), d_k};
  auto weights = [&](const Tensor& s) { return scaled_softmax(s, sqrt_d_k(d_k), sizes, 1, v); };
  w.attn_weights_unmasked = weights(w.attn_scores);
  const int64_t context_length = w.attn_scores.size(0);
  const Shape square = {context_length, context_length};
  w.mask = v.mask == Variant::Mask::NoDiagonal ? triu(ones(square), 0)
           : v.mask == Variant::Mask::Tril     ? tril(ones(square), 0)
                                               : triu(ones(square), 1);
  w.masked = mask_scores(w.attn_scores, to_bool(w.mask), v);
  if (v.mask == Variant::Mask::AfterSoftmax)
    w.attn_weights = masked_fill(w.attn_weights_unmasked, to_bool(w.mask), 0.0f);
  else
    w.attn_weights = weights(v.mask == Variant::Mask::Discarded ? w.attn_scores : w.masked);
  if (v.mask == Variant::Mask::AfterSoftmax && opt.cells.whole_sum != CellVariant::WholeSum::No)
    w.attn_weights = div(w.attn_weights, sum(w.attn_weights));
  if (!nb) return w;

  const std::string seed = fmt_seed(opt, 789), d_in = std::to_string(opt.d_in()), d_out = std::to_string(opt.d_out);
  std::vector<std::string> code = inputs_code(opt);
  code.push_back("d_in, d_out = inputs.shape[1], " + std::to_string(opt.d_out));
  const std::vector<std::string> cls = self_attention_v2_class_code();
  code.insert(code.end(), cls.begin(), cls.end());
  code.push_back("torch.manual_seed(" + fmt_seed(opt, 789) + ")");
  code.push_back(std::string("sa_v2 = SelfAttention_v2(d_in, d_out") + (opt.qkv_bias ? ", qkv_bias=True)" : ")"));
  if (!verbose) {
    code.insert(code.end(),
                {"queries = sa_v2.W_query(inputs)", "keys = sa_v2.W_key(inputs)", "attn_scores = queries @ keys.T",
                 "context_length = attn_scores.shape[0]",
                 "mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)",
                 "masked = attn_scores.masked_fill(mask.bool(), -torch.inf)",
                 "attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)", "print(attn_weights)"});
    nb->cell(code);
    nb->show("attn_weights", w.attn_weights);
    nb->note("setup.causal_weights.note");
    nb->explain("setup.causal_weights.explain", {seed});
    return w;
  }
  nb->cell(code);
  nb->note("setup.sa_v2.note");
  nb->explain("setup.sa_v2.explain", {seed, d_out, d_in});
  nb->cell({"queries = sa_v2.W_query(inputs)", "keys = sa_v2.W_key(inputs)", "attn_scores = queries @ keys.T",
            "attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=1)", "print(queries)", "print(keys)",
            "print(attn_scores)", "print(attn_weights)"});
  nb->show("queries", w.queries);
  nb->show("keys", w.keys);
  nb->show("attn_scores", w.attn_scores);
  nb->show("attn_weights", w.attn_weights_unmasked);
  const std::string n = std::to_string(opt.num_tokens());
  const bool third = opt.num_tokens() >= 3;
  if (third)
    nb->note_case("setup.attn_weights.note", "three_tokens", {n, quoted_token(opt, 1), quoted_token(opt, 2)});
  else
    nb->note_case("setup.attn_weights.note", "fewer_tokens", {n});
  nb->explain("setup.attn_weights.explain");
  return w;
}

}  // namespace attn
