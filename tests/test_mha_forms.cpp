// mha-forms: the bonus material's nine forms of multi-head attention (lib/nn/mha_forms) against the
// chapter's MultiHeadAttention, and the lesson against real PyTorch 1.13 (tests/fixtures/mha_forms_pytorch.json,
// made by tools/gen_mha_forms_fixtures.py: forms 1-4, 7 and 8 as PyTorch's own classes, 5, 6 and 9 as the
// documented SDPA math). The tests never need torch.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/inputs.h"
#include "core/ops_shape.h"
#include "fixture_compare.h"
#include "nn/causal_attention.h"
#include "nn/mha_forms.h"
#include "nn/multihead_attention.h"
#include "run_cli.h"

using namespace attn;

namespace {

float max_diff(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.values(), y = b.values();
  REQUIRE(x.size() == y.size());
  float m = 0.0f;
  for (size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(x[i] - y[i]));
  return m;
}

Tensor not_mask(const Tensor& mask) {
  std::vector<float> v = mask.values();
  for (float& f : v) f = f != 0.0f ? 0.0f : 1.0f;
  return to_bool(Tensor(mask.shape(), v));
}

struct FormOutputs {
  Tensor full;
  std::vector<std::pair<std::string, Tensor>> forms;
};

// The chapter's module on x (b, T, d_in), then every form with its weights copied in.
FormOutputs all_forms(const Tensor& x, int64_t d_out, int64_t heads, uint64_t seed, bool qkv_bias = false) {
  Generator gen;
  gen.manual_seed(seed);
  const int64_t n = x.size(1);
  const MultiHeadAttention mha = MultiHeadAttention::init(gen, x.size(2), d_out, n, 0.0, heads, qkv_bias);
  FormOutputs o;
  o.full = mha.forward(x, gen, BernoulliPath::Default);
  o.forms.push_back({"1 wrapper", WrapperForm::copied_from(mha).forward(x)});
  o.forms.push_back({"2 Ch03_MHA", mha.forward(x, gen, BernoulliPath::Default)});
  const CombinedForm combined = CombinedForm::copied_from(mha);
  CombinedTrace t;
  o.forms.push_back({"3 combined QKV", combined.forward(x, &t)});
  o.forms.push_back({"4 einsum", EinsumForm::copied_from(mha).forward(x)});
  CombinedTrace s = t;
  o.forms.push_back({"5 SDPA is_causal", combined.merge(sdpa_math(t.queries, t.keys, t.values, nullptr, true), s)});
  const Tensor keep = not_mask(causal_mask_bool(mha.mask, n));
  o.forms.push_back({"6 SDPA ~mask", combined.merge(sdpa_math(t.queries, t.keys, t.values, &keep, false), s)});
  if (!qkv_bias) {
    const TorchMhaForm torch_mha = TorchMhaForm::copied_from(mha);
    o.forms.push_back({"7 nn.MultiheadAttention", torch_mha.forward(x, true)});
    o.forms.push_back({"8 need_weights=False", torch_mha.forward(x, false)});
  }
  o.forms.push_back(
      {"9 FlexAttention mask_mod", combined.merge(sdpa_math(t.queries, t.keys, t.values, &keep, false), s)});
  return o;
}

Tensor book_batch() {  // torch.stack((inputs, inputs), dim=0), as the chapter's 3.6 does
  const Tensor e = book_inputs().embeddings;
  return stack({e, e}, 0);
}

// Uniform numbers in [-1, 1) from a fixed LCG: inputs of any size without torch's generator.
Tensor lcg_tensor(const Shape& shape, uint32_t state) {
  std::vector<float> v(static_cast<size_t>(numel_of(shape)));
  for (float& f : v) {
    state = state * 1664525u + 1013904223u;
    f = static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
  }
  return Tensor(shape, v);
}

}  // namespace

TEST_CASE("mha-forms: every form equals the chapter's within 1e-6 at the book's sizes (d_in 3, d_out 2, 2 heads)") {
  // The Python classes of forms 3, 7 and 8 need d_out = d_in; their arithmetic here does not.
  for (uint64_t seed : {123ULL, 7ULL, 789ULL}) {
    const FormOutputs o = all_forms(book_batch(), 2, 2, seed);
    CHECK(o.forms.size() == 9);
    for (const auto& form : o.forms) {  // not a structured binding: clang 14 cannot capture one
      const std::string& name = form.first;
      const Tensor& out = form.second;
      CAPTURE(name);
      CAPTURE(seed);
      CHECK(out.shape() == o.full.shape());
      CHECK(max_diff(out, o.full) <= 1e-6f);
    }
  }
}

TEST_CASE("mha-forms: the lesson's sizes (d_in = d_out = 3, 1 or 3 heads, --qkv-bias for forms 1-6) within 1e-6") {
  for (int64_t heads : {1, 3})
    for (bool bias : {false, true}) {
      const FormOutputs o = all_forms(book_batch(), 3, heads, 123, bias);
      for (const auto& form : o.forms) {  // not a structured binding: clang 14 cannot capture one
        const std::string& name = form.first;
        const Tensor& out = form.second;
        CAPTURE(name);
        CAPTURE(heads);
        CHECK(max_diff(out, o.full) <= 1e-6f);
      }
    }
}

TEST_CASE(
    "mha-forms: every form equals the chapter's within 1e-5 at GPT-2's width (batch 2, 24 tokens, d 768, 12 heads)") {
  const Tensor x = lcg_tensor({2, 24, 768}, 123);
  const FormOutputs o = all_forms(x, 768, 12, 123);
  CHECK(o.forms.size() == 9);
  for (const auto& form : o.forms) {  // not a structured binding: clang 14 cannot capture one
    const std::string& name = form.first;
    const Tensor& out = form.second;
    CAPTURE(name);
    CHECK(max_diff(out, o.full) <= 1e-5f);
  }
}

TEST_CASE("mha-forms: the bonus test's own sizes (768/768, 768/1536, 1024/512, batch 2, 4 tokens) within 1e-5") {
  // tests/test_mha_implementations.py compares MHAEinsum with the chapter's class at these sizes (atol 1e-5).
  const struct {
    int64_t d_in, d_out, heads;
    uint32_t seed;
  } sizes[] = {{768, 768, 12, 123}, {768, 1536, 12, 456}, {1024, 512, 8, 789}};
  for (const auto& z : sizes) {
    const FormOutputs o = all_forms(lcg_tensor({2, 4, z.d_in}, z.seed), z.d_out, z.heads, z.seed);
    for (const auto& form : o.forms) {  // not a structured binding: clang 14 cannot capture one
      const std::string& name = form.first;
      const Tensor& out = form.second;
      CAPTURE(name);
      CAPTURE(z.d_out);
      CHECK(out.shape() == o.full.shape());
      CHECK(max_diff(out, o.full) <= 1e-5f);
    }
  }
}

TEST_CASE("mha-forms: form 6 with the bonus's mask as written attends to the future, its last row nan") {
  Generator gen;
  gen.manual_seed(123);
  const Tensor x = book_batch();
  const MultiHeadAttention mha = MultiHeadAttention::init(gen, 3, 3, 6, 0.0, 3, false);
  const CombinedForm combined = CombinedForm::copied_from(mha);
  CombinedTrace t;
  combined.forward(x, &t);
  const Tensor as_written = causal_mask_bool(mha.mask, 6);  // triu(diagonal=1): True above the diagonal
  SdpaTrace st;
  const Tensor ctx = sdpa_math(t.queries, t.keys, t.values, &as_written, false, &st);
  const std::vector<float> v = ctx.values();
  const int64_t hd = 1, per_row = hd;
  for (int64_t i = 0; i < 6; ++i) CHECK(std::isnan(v[static_cast<size_t>(i * per_row)]) == (i == 5));
  CHECK(st.attn_weight.at({0, 0, 0, 0}) == 0.0f);  // token 0 does not see itself
}

TEST_CASE("mha-forms: the lesson against real PyTorch 1.13, bit for bit (tests/fixtures/mha_forms_pytorch.json)") {
  const fixtures::json& fx = fixtures::load("mha_forms_pytorch.json");
  // Bit for bit (float32 equal), nn.MultiheadAttention's head-averaged weights included (PyTorch 1.13's AVX2 sum
  // over the heads, lib/nn/mha_forms.h's sum_over_heads).
  fixtures::Rules rules = fixtures::rules_of(fx, 0.0, fixtures::NameCheck::same_counts, false);
  for (const auto& kase : fx.at("cases"))
    for (const auto& e : kase.at("expected")) rules.exact.insert(e.at("name").get<std::string>());
  size_t cases = 0, matched = 0;
  fixtures::compare_cases("mha-forms", fx.at("cases"), rules, 8,
                          [&](const fixtures::json& kase, const fixtures::Comparison& c) {
                            ++cases;
                            matched += c.mismatches.empty();
                            CHECK(c.tensors == kase.at("expected").size());
                          });
  CHECK(cases >= 30);
  CHECK(matched == cases);
}

TEST_CASE("mha-forms: the summary's max|diff| lines and the version notes, in English and Chinese") {
  const CliResult en = run_cli("mha-forms --color never");
  REQUIRE(en.exit_code == 0);
  check_contains(en.out, {"7 MHAPyTorchClass                      0\n",
                          "MHAPyTorchScaledDotProduct needs PyTorch 2.0 or newer", "[    nan,     nan,     nan]"});
  const CliResult zh = run_cli("mha-forms --lang zh --color never");
  REQUIRE(zh.exit_code == 0);
  check_contains(zh.out, {"写法 7", "9 MHAPyTorchFlexAttention"});
}

TEST_CASE("mha-forms: refused settings give one line and exit 2") {
  for (const char* args :
       {"mha-forms --d-out 2", "mha-forms --d-out 6", "mha-forms --qkv-bias", "mha-forms --num-heads 2",
        "mha-forms --tokens 'a b c' --d-in 4", "mha-forms --d-out 2 --lang zh"}) {
    CAPTURE(args);
    const CliResult r = run_cli(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  CHECK(run_cli("mha-forms --d-out 6").err.find("error: --d-out 6: mha-forms needs d_out equal to") !=
        std::string::npos);
  CHECK(run_cli("mha-forms --qkv-bias").err.find("error: --qkv-bias: mha-forms runs without it") != std::string::npos);
}

TEST_CASE(
    "mha-forms: the input cell's note says the tokens go in all at once, not one at a time as in the cache lessons") {
  for (const char* lang : {"en", "zh"}) {
    CAPTURE(lang);
    const CliResult r = run_cli_wide(std::string("mha-forms --explain --color never --lang ") + lang);
    REQUIRE(r.exit_code == 0);
    const std::string head = r.out.substr(0, r.out.find("In [2]"));
    CHECK(head.find(lang == std::string("en") ? "all at once" : "一次全部输入") != std::string::npos);
    CHECK(head.find(lang == std::string("en") ? "one at a time" : "逐个输入") == std::string::npos);
  }
}
