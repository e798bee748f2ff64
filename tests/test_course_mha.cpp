// course-mha: the course's Attention heads are the book's CausalAttention heads, its weights
// come from the generator in the course's construction order, and bad sizes are usage errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nn/causal_attention.h"
#include "nn/course_attention.h"
#include "nn/linear.h"
#include "core/ops_shape.h"
#include "core/random_ops.h"
#include "run_cli.h"
#include "nn/self_attention.h"

namespace {

using namespace attn;

bool bit_equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  const std::vector<float> va = a.values(), vb = b.values();
  for (size_t i = 0; i < va.size(); ++i)
    if (std::memcmp(&va[i], &vb[i], sizeof(float)) != 0) return false;
  return true;
}

Tensor chapter_batch() {
  Tensor inputs({6, 3}, {0.43f, 0.15f, 0.89f, 0.55f, 0.87f, 0.66f, 0.57f, 0.85f, 0.64f, 0.22f, 0.58f, 0.33f, 0.77f,
                         0.25f, 0.10f, 0.05f, 0.80f, 0.55f});
  return stack({inputs, inputs}, 0);
}

struct HeadCase {
  int64_t d_model, num_heads, context_length, T;
  double dropout;
  uint64_t seed;
  BernoulliPath path;
};

}  // namespace

TEST_CASE("course-mha: every Attention head equals CausalAttention with its weights") {
  const std::vector<HeadCase> cases = {
      {3, 3, 6, 6, 0.1, 123, BernoulliPath::Default},      // --preset small
      {3, 1, 6, 6, 0.0, 123, BernoulliPath::Default},      // one head of size 3
      {512, 8, 128, 6, 0.1, 123, BernoulliPath::Default},  // --preset post
      {24, 4, 10, 5, 0.5, 7, BernoulliPath::Mkl},
      {10, 2, 4, 4, 1.0, 0, BernoulliPath::Default},
      {6, 3, 6, 6, 0.9, 18446744073709551615ull, BernoulliPath::Default},
  };
  for (const HeadCase& hc : cases) {
    CAPTURE(hc.d_model);
    CAPTURE(hc.num_heads);
    CAPTURE(hc.dropout);
    Generator gen;
    gen.manual_seed(hc.seed);
    const CourseMultiHeadAttention mha =
        CourseMultiHeadAttention::init(gen, hc.d_model, hc.num_heads, hc.context_length, hc.dropout);
    const Tensor x =
        hc.d_model == 3 ? chapter_batch() : Tensor({2, hc.T, hc.d_model}, randn_values(gen, 2 * hc.T * hc.d_model));
    for (const CourseAttention& head : mha.heads) {
      CausalAttention ca =
          CausalAttention::init(gen, hc.d_model, hc.d_model / hc.num_heads, hc.context_length, hc.dropout, false);
      ca.W_query.weight = head.Wq.weight;
      ca.W_key.weight = head.Wk.weight;
      ca.W_value.weight = head.Wv.weight;
      Generator state = gen;  // torch.get_rng_state()
      CourseAttentionTrace t;
      const Tensor out_course = head.forward(x, gen, hc.path, &t);
      CausalAttentionTrace bt;
      const Tensor out_book = ca.forward(x, state, hc.path, &bt);  // after torch.set_rng_state(state)
      CHECK(bit_equal(out_course, out_book));
      CHECK(bit_equal(t.dropped, bt.dropped_weights));                    // the same dropout mask
      CHECK(bit_equal(t.mask_is_zero, causal_mask_bool(ca.mask, hc.T)));  // tril == 0 is triu(diagonal=1).bool()
      CHECK(gen.draws() == state.draws());
      CHECK(out_course.shape() == Shape{2, hc.T, hc.d_model / hc.num_heads});
    }
  }
}

TEST_CASE("course-mha: the projection and the second dropout come after the cat of the heads") {
  Generator gen;
  gen.manual_seed(123);
  const CourseMultiHeadAttention mha = CourseMultiHeadAttention::init(gen, 3, 3, 6, 0.1);
  CourseMultiHeadTrace t;
  Generator before = gen;
  const Tensor out = mha.forward(chapter_batch(), gen, BernoulliPath::Default, &t);
  // Replayed by hand: each head (drawing its own dropout mask), cat, projection_layer, dropout.
  std::vector<Tensor> heads;
  for (const CourseAttention& head : mha.heads)
    heads.push_back(head.forward(chapter_batch(), before, BernoulliPath::Default));
  const Tensor cat_heads = cat(heads, -1);
  CHECK(bit_equal(cat_heads, t.head_outputs));
  const Tensor projected = mha.projection_layer(cat_heads);
  CHECK(bit_equal(projected, t.projected));
  CHECK(bit_equal(out, t.out));
  CHECK(out.shape() == Shape{2, 6, 3});
  CHECK(out.grad_fn() == "MulBackward0");
  CHECK(t.projected.grad_fn() == "ViewBackward0");
  CHECK(mha.parameter_count() == 3 * 3 * 3 * 1 + 3 * 3 + 3);
}

TEST_CASE("course-mha: weights are drawn heads[i].Wq/Wk/Wv in order and projection_layer last") {
  Generator gen;
  gen.manual_seed(123);
  const CourseMultiHeadAttention mha = CourseMultiHeadAttention::init(gen, 8, 2, 4, 0.1);
  Generator ref;
  ref.manual_seed(123);
  for (const CourseAttention& head : mha.heads) {
    CHECK(bit_equal(head.Wq.weight, Linear::init(ref, 8, 4, false).weight));
    CHECK(bit_equal(head.Wk.weight, Linear::init(ref, 8, 4, false).weight));
    CHECK(bit_equal(head.Wv.weight, Linear::init(ref, 8, 4, false).weight));
    CHECK_FALSE(head.Wq.bias.has_value());
  }
  const Linear proj = Linear::init(ref, 8, 8, true);
  CHECK(bit_equal(mha.projection_layer.weight, proj.weight));
  REQUIRE(mha.projection_layer.bias.has_value());
  CHECK(bit_equal(*mha.projection_layer.bias, *proj.bias));
  CHECK(gen.draws() == ref.draws());  // the buffers and nn.Dropout drew nothing
  // The Wq printed by the lesson (seed 123, d_model 3, 3 heads): torch prints [[-0.2354, 0.0191, -0.2867]].
  Generator g123;
  g123.manual_seed(123);
  const CourseMultiHeadAttention small = CourseMultiHeadAttention::init(g123, 3, 3, 6, 0.1);
  CHECK(std::fabs(small.heads[0].Wq.weight.at({0, 0}) - -0.2354f) < 5e-5f);
  CHECK(std::fabs(small.heads[0].Wq.weight.at({0, 2}) - -0.2867f) < 5e-5f);
}

TEST_CASE("course-mha: math.sqrt is correctly rounded and ** 0.5 is pow") {
  CHECK(math_sqrt(64) == 8.0);
  CHECK(math_sqrt(2921) != sqrt_d_k(2921));  // 54.04627646748664 vs 54.046276467486635 in Python too
  CHECK(static_cast<float>(math_sqrt(2921)) == static_cast<float>(sqrt_d_k(2921)));
  for (int64_t n = 1; n <= 4096; ++n) CHECK(static_cast<float>(math_sqrt(n)) == static_cast<float>(sqrt_d_k(n)));
}

TEST_CASE("course-mha: d_model not divisible by the heads is a usage error") {
  Generator gen;
  CHECK_THROWS_AS(CourseMultiHeadAttention::init(gen, 512, 7, 8, 0.1), std::invalid_argument);
  expect_usage_error("course-mha --preset post --num-heads 7", "--d-model 512: must be divisible by --num-heads 7");
  expect_usage_error("course-mha --num-heads 2", "--num-heads 2: must divide d_model 3");
  expect_usage_error("course-mha --preset post --d-model 100 --num-heads 8", "choose --num-heads dividing 100");
  expect_usage_error("course-mha --d-model 4", "--d-model 4");
  expect_usage_error("course-mha --qkv-bias", "bias=False");
  const std::string inputs = write_file(temp_dir(), "in.json", "[[1, 2], [3, 4]]");
  expect_usage_error("course-mha --preset post --inputs " + inputs, "--preset post draws its own input");
  expect_usage_error("course-mha --preset big", "--preset");
}

TEST_CASE("course-mha: both presets run and print the head comparison") {
  const CliResult small = run_cli("course-mha --color never");
  REQUIRE(small.exit_code == 0);
  for (const char* line : {"\n0 True 0.0\n", "\n1 True 0.0\n", "\n2 True 0.0\n", "torch.Size([2, 6, 3])",
                           "tensor([[-0.2354,  0.0191, -0.2867]], requires_grad=True)"})
    CHECK(small.out.find(line) != std::string::npos);
  CHECK(small.out.find("3 True") == std::string::npos);

  const CliResult post = run_cli("course-mha --preset post --color never");
  REQUIRE(post.exit_code == 0);
  check_contains(post.out, {"\n7 True 0.0\n",
                            "1049088",  // 4 x 512^2 + 512 parameters
                            "8.0 8.0",  // math.sqrt(64), k.shape[-1]**0.5
                            "..."});    // summarised like PyTorch
  CHECK(post.out.find(" False ") == std::string::npos);

  const CliResult one = run_cli("course-mha --num-heads 1 --dropout 0 --seed -5 --color never");
  REQUIRE(one.exit_code == 0);
  check_contains(one.out, {"\n0 True 0.0\n", "dropout = 0.0"});
}

TEST_CASE("course-mha: json records the course's names and the module output three times") {
  const CliResult r = run_cli("course-mha --json -");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("lesson") == "course-mha");
  CHECK(doc.at("sections") == nlohmann::json::array({"course"}));
  CHECK(doc.at("config").at("preset") == "small");
  std::vector<const nlohmann::json*> outs;
  int weights = 0, out_course = 0, out_book = 0;
  for (const auto& t : doc.at("tensors")) {
    if (t.at("name") == "out") outs.push_back(&t);
    weights += t.at("name") == "weights";
    out_course += t.at("name") == "out_course";
    out_book += t.at("name") == "out_book";
    if (t.at("name") == "self.mask[:T, :T] == 0") CHECK(t.at("dtype") == "bool");
    if (t.at("name") == "head_outputs") CHECK(t.at("shape") == nlohmann::json::array({2, 6, 3}));
  }
  CHECK(weights == 4);  // scaled, masked, softmax, dropout
  CHECK(out_course == 3);
  CHECK(out_book == 3);
  REQUIRE(outs.size() == 3);  // mha(x), projection_layer, dropout
  CHECK(outs[0]->at("data") == outs[2]->at("data"));
  CHECK(outs[0]->at("data") != outs[1]->at("data"));  // the second dropout changed something
}

TEST_CASE("course-mha: listed with its seed and described in --help") {
  const CliResult list = run_cli("");
  CHECK(list.out.find("course-mha") != std::string::npos);
  const CliResult help = run_cli("course-mha --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--preset") != std::string::npos);
  CHECK(help.out.find("--d-model") != std::string::npos);
}
