// §3.4.1-3.4.2: scaled dot-product attention with trainable W_query, W_key, W_value, step by step,
// then as the SelfAttention_v1 and SelfAttention_v2 classes, and exercise 3.1.
#include "lesson.h"
#include "lesson_text.h"
#include "ops_math.h"
#include "ops_shape.h"
#include "print.h"
#include "self_attention.h"

namespace attn {

namespace {

Tensor weight_param(Generator& gen, const LessonOptions& opt, int64_t d_in, int64_t d_out) {
  std::vector<float> v = opt.init == Init::Rand ? rand_values(gen, d_in * d_out) : randn_values(gen, d_in * d_out);
  Tensor p({d_in, d_out}, std::move(v));
  p.set_parameter(true);  // requires_grad=False: no suffix when printed
  return p;
}

}  // namespace

Notebook trainable_lesson(const LessonOptions& opt) {
  Notebook nb("trainable", {"3.4.1", "3.4.2"}, opt.config_json(), opt.inputs.tokens);
  const Tensor& inputs = opt.inputs.embeddings;
  const std::string journey = quoted_token(opt, 1);
  const int64_t d_in = inputs.size(1), d_out = opt.d_out;
  const std::string draw = opt.init == Init::Rand ? "torch.rand" : "torch.randn";
  Generator gen;

  nb.heading("3.4.1", "Computing the attention weights step by step");
  std::vector<std::string> setup = inputs_code(opt);
  setup.insert(setup.end(), {"x_2 = inputs[1]  # second input element", "d_in = inputs.shape[1]  # the input embedding size",
                             "d_out = " + std::to_string(d_out) + "  # the output embedding size", "print(d_in, d_out)"});
  nb.cell(setup);
  nb.record("inputs", inputs);
  Tensor x_2 = select(inputs, 0, 1);
  nb.record("x_2", x_2);
  nb.print(std::to_string(d_in) + " " + std::to_string(d_out));
  nb.note("x_2 is " + journey + ". d_in is the embedding size; d_out the size we project to (GPT models use "
          "d_in = d_out; the book picks different sizes to make the shapes easy to follow).");

  const uint64_t seed1 = opt.seed_or(123);
  gen.manual_seed(seed1);
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
           "W_query = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)",
           "W_key   = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)",
           "W_value = torch.nn.Parameter(" + draw + "(d_in, d_out), requires_grad=False)", "print(W_query)",
           "print(W_key)", "print(W_value)"});
  Tensor W_query = weight_param(gen, opt, d_in, d_out);
  Tensor W_key = weight_param(gen, opt, d_in, d_out);
  Tensor W_value = weight_param(gen, opt, d_in, d_out);
  nb.show("W_query", W_query);
  nb.show("W_key", W_key);
  nb.show("W_value", W_value);
  nb.note(std::string("Three (d_in, d_out) matrices of random numbers ") +
          (opt.init == Init::Rand ? "uniform in [0, 1)" : "from a standard normal") +
          ", drawn in this order from the seeded generator. Training would tune them; requires_grad=False keeps "
          "the printout free of autograd suffixes.");

  nb.cell({"query_2 = x_2 @ W_query", "key_2 = x_2 @ W_key", "value_2 = x_2 @ W_value", "print(query_2)",
           "print(key_2)", "print(value_2)"});
  Tensor query_2 = matmul(x_2, W_query);
  Tensor key_2 = matmul(x_2, W_key);
  Tensor value_2 = matmul(x_2, W_value);
  nb.show("query_2", query_2);
  nb.show("key_2", key_2);
  nb.show("value_2", value_2);
  nb.note(journey + " projected three ways: its query (what it looks for), its key (what it offers to "
          "other queries) and its value (what it hands over when attended to), each " + std::to_string(d_out) + "-d.");

  nb.cell({"keys = inputs @ W_key", "values = inputs @ W_value", "print(\"keys.shape:\", keys.shape)",
           "print(\"values.shape:\", values.shape)", "print(keys)", "print(values)"});
  Tensor keys = matmul(inputs, W_key);
  Tensor values = matmul(inputs, W_value);
  nb.print("keys.shape: " + repr_size(keys.shape()));
  nb.print("values.shape: " + repr_size(values.shape()));
  nb.show("keys", keys);
  nb.show("values", values);
  nb.note("Every token needs a key and a value, because the query of " + journey +
          " is compared with all of them: one matrix product maps all rows from " + std::to_string(d_in) + "-d to " +
          std::to_string(d_out) + "-d at once.");

  nb.cell({"keys_2 = keys[1]", "attn_score_22 = query_2.dot(keys_2)", "print(attn_score_22)"});
  Tensor keys_2 = select(keys, 0, 1);
  nb.record("keys_2", keys_2);
  Tensor attn_score_22 = dot(query_2, keys_2);
  nb.show("attn_score_22", attn_score_22);
  nb.note("The unnormalised score omega_22: the query of " + journey + " against its own key. Unlike §3.3, the "
          "dot product is now taken between projected vectors, not the raw embeddings.");

  nb.cell({"attn_scores_2 = query_2 @ keys.T", "print(attn_scores_2)"});
  Tensor attn_scores_2 = matmul(query_2, T(keys));
  nb.show("attn_scores_2", attn_scores_2);
  nb.note("All scores of the query " + journey + " in one product; the second entry is attn_score_22.");

  nb.heading("3.4.1", "Scaled dot-product: from scores to weights and the context vector");
  nb.cell({"d_k = keys.shape[-1]", "attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)",
           "print(d_k)", "print(attn_weights_2)"});
  const int64_t d_k = keys.size(-1);
  nb.record("d_k", Tensor({}, {static_cast<float>(d_k)}, DType::Int64));
  nb.print(std::to_string(d_k));
  Tensor attn_weights_2 = softmax(div(attn_scores_2, sqrt_d_k(d_k)), -1);
  nb.show("attn_weights_2", attn_weights_2);
  nb.note("Dividing by sqrt(d_k) = " + fmt_double(sqrt_d_k(d_k)) + " keeps the scores from growing with the "
          "embedding size, so softmax does not saturate into a one-hot vector with vanishing gradients.");

  nb.cell({"context_vec_2 = attn_weights_2 @ values", "print(context_vec_2)"});
  Tensor context_vec_2 = matmul(attn_weights_2, values);
  nb.show("context_vec_2", context_vec_2);
  nb.note("The context vector of " + journey + ": the value vectors weighted by attention. It lives in the " +
          std::to_string(d_out) + "-d value space, not in the input space as in §3.3.");

  nb.heading("3.4.2", "Implementing a compact self-attention Python class");
  const uint64_t seed_v1 = opt.seed_or(123);
  gen.manual_seed(seed_v1);
  SelfAttentionV1 sa_v1 = SelfAttentionV1::init(gen, d_in, d_out);
  nb.cell({"class SelfAttention_v1(nn.Module):", "    def __init__(self, d_in, d_out):", "        super().__init__()",
           "        self.W_query = nn.Parameter(torch.rand(d_in, d_out))",
           "        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))",
           "        self.W_value = nn.Parameter(torch.rand(d_in, d_out))", "", "    def forward(self, x):",
           "        keys = x @ self.W_key", "        queries = x @ self.W_query", "        values = x @ self.W_value",
           "        attn_scores = queries @ keys.T # omega",
           "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "        context_vec = attn_weights @ values", "        return context_vec", "",
           "torch.manual_seed(" + fmt_seed(opt, 123) + ")", "sa_v1 = SelfAttention_v1(d_in, d_out)",
           "print(sa_v1(inputs))"});
  Tensor sa_v1_out = sa_v1.forward(inputs);
  nb.show("sa_v1(inputs)", sa_v1_out);
  nb.note(opt.init == Init::Rand && seed_v1 == seed1
              ? "Same seed and same draws as the step-by-step cells, so row 2 is context_vec_2 again: the class "
                "computes every token's context vector at once."
              : "Row i is token i's context vector. (With these options the step-by-step weights were drawn "
                "differently, so row 2 need not equal context_vec_2.)");

  const uint64_t seed_v2 = opt.seed_or(789);
  gen.manual_seed(seed_v2);
  SelfAttentionV2 sa_v2 = SelfAttentionV2::init(gen, d_in, d_out, opt.qkv_bias);
  const std::string bias = opt.qkv_bias ? "True" : "False";
  nb.cell({"class SelfAttention_v2(nn.Module):", "    def __init__(self, d_in, d_out, qkv_bias=False):",
           "        super().__init__()", "        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)",
           "        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)",
           "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)", "", "    def forward(self, x):",
           "        keys = self.W_key(x)", "        queries = self.W_query(x)", "        values = self.W_value(x)",
           "        attn_scores = queries @ keys.T",
           "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "        context_vec = attn_weights @ values", "        return context_vec", "",
           "torch.manual_seed(" + fmt_seed(opt, 789) + ")",
           std::string("sa_v2 = SelfAttention_v2(d_in, d_out") + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
           "print(sa_v2(inputs))"});
  Tensor sa_v2_out = sa_v2.forward(inputs);
  nb.show("sa_v2(inputs)", sa_v2_out);
  nb.note("Different numbers from sa_v1 only because nn.Linear initialises its weights differently: uniform "
          "in +-1/sqrt(d_in) (Kaiming), drawn weight by weight as its constructor runs.");

  nb.cell({"print(sa_v2.W_query.weight)", "print(sa_v2.W_key.weight)", "print(sa_v2.W_value.weight)"});
  nb.show("sa_v2.W_query.weight", sa_v2.W_query.weight);
  nb.show("sa_v2.W_key.weight", sa_v2.W_key.weight);
  nb.show("sa_v2.W_value.weight", sa_v2.W_value.weight);
  if (opt.qkv_bias) {
    nb.cell({"print(sa_v2.W_query.bias)", "print(sa_v2.W_key.bias)", "print(sa_v2.W_value.bias)"});
    nb.show("sa_v2.W_query.bias", *sa_v2.W_query.bias);
    nb.show("sa_v2.W_key.bias", *sa_v2.W_key.bias);
    nb.show("sa_v2.W_value.bias", *sa_v2.W_value.bias);
  }
  nb.note("nn.Linear stores its weight transposed, as (d_out, d_in) = " + shape_text({d_out, d_in}) +
          ", and computes x @ weight.T. That is the key to exercise 3.1.");

  nb.heading("3.4.2", "Exercise 3.1: copy SelfAttention_v2's weights into SelfAttention_v1");
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
  Tensor sa_v1_copied = sa_v1.forward(inputs);
  nb.show("sa_v1(inputs)", sa_v1_copied);
  const bool equal = sa_v1_copied.shape() == sa_v2_out.shape() && sa_v1_copied.values() == sa_v2_out.values();
  nb.print(equal ? "True" : "False");
  nb.note(equal ? "Identical to sa_v2(inputs), bit for bit: the two classes compute the same function; only "
                  "their initial weights and the (d_out, d_in) storage differ."
                : "Not equal: with qkv_bias=True, SelfAttention_v2 also adds a bias that SelfAttention_v1 has no "
                  "place for. Without --qkv-bias the two outputs are identical.");
  return nb;
}

}  // namespace attn
