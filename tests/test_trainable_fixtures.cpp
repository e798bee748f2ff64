// `attn-tutor trainable --json -` against values computed by real PyTorch 1.13 for random options
// (tests/fixtures/trainable_pytorch.json, made by tools/gen_trainable_fixtures.py): every tensor within
// 1e-6, the random weights bit-exact. The tests never need torch.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "fixture_compare.h"
#include "run_cli.h"

namespace {

using namespace fixtures;

constexpr double kTolerance = 1e-6;

const json& load_fixture() { return load("trainable_pytorch.json"); }

// The same names in the same order, shapes, and every value within 1e-6 (the fixture's "exact": equal
// as float32); d_k is an int64.
Rules trainable_rules(const json& fixture) {
  return rules_of(fixture, kTolerance, NameCheck::same_sequence, /*float32_only=*/false);
}

}  // namespace

TEST_CASE("trainable matches the PyTorch 1.13 fixtures within 1e-6 with bit-exact weights") {
  const json& fixture = load_fixture();
  const json& cases = fixture.at("cases");
  const Rules rules = trainable_rules(fixture);
  REQUIRE(rules.exact.count("W_query") == 1);
  REQUIRE(rules.exact.count("sa_v2.W_value.weight") == 1);
  const std::string dir = temp_dir();
  size_t checked = 0, values = 0;
  double max_diff = 0.0;
  std::string max_where;
  for (const auto& kase : cases) {
    const json doc = run_case("trainable", kase, dir);
    CAPTURE(kase.at("id").get<int>());
    CAPTURE(kase.at("argv").dump());
    if (doc.is_null()) continue;
    REQUIRE(doc.contains("tensors"));
    const Comparison c = compare_tensors(kase.at("expected"), doc.at("tensors"), rules);
    CHECK_MESSAGE(c.mismatches.empty(), c.mismatches.size() << " mismatch(es) with PyTorch:" << first_mismatches(c));
    CHECK(c.values > 0);
    values += c.values;
    if (c.max_abs_diff > max_diff) {
      max_diff = c.max_abs_diff;
      max_where = "case " + std::to_string(kase.at("id").get<int>()) + " " + c.max_where;
    }
    ++checked;
  }
  MESSAGE(checked << " cases, " << values << " values, max abs diff " << max_diff << " (" << max_where << ")");
  REQUIRE(checked > 0);
  REQUIRE(checked == cases.size());
}

TEST_CASE("trainable fixture comparison reports a value perturbed by 2e-6") {
  const json& fixture = load_fixture();
  const Rules rules = trainable_rules(fixture);
  REQUIRE_FALSE(fixture.at("cases").empty());
  const json& kase = fixture.at("cases").at(0);
  const json doc = run_case("trainable", kase, temp_dir());
  REQUIRE(doc.contains("tensors"));
  const json& actual = doc.at("tensors");
  REQUIRE(compare_tensors(kase.at("expected"), actual, rules).mismatches.empty());

  // The expected values with the first number of the occurrence-th `name` changed.
  auto perturbed = [&](const std::string& name, int occurrence, auto&& change) {
    json expected = kase.at("expected");
    json& v = first_value(entry(expected, name, occurrence));
    v = change(v.get<double>());
    return expected;
  };

  SUBCASE("a computed value off by 2e-6") {
    const json expected = perturbed("context_vec_2", 1, [](double x) { return x + 2e-6; });
    const Comparison c = compare_tensors(expected, actual, rules);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("context_vec_2 #1[0]") != std::string::npos);
    CHECK(c.max_abs_diff > 1e-6);
  }
  SUBCASE("the second sa_v1(inputs) off by 2e-6") {
    const json expected = perturbed("sa_v1(inputs)", 2, [](double x) { return x + 2e-6; });
    const Comparison c = compare_tensors(expected, actual, rules);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("sa_v1(inputs) #2[0]") != std::string::npos);
  }
  SUBCASE("a weight one float32 ulp off") {
    const json expected = perturbed(
        "W_query", 1, [](double x) { return static_cast<double>(std::nextafter(static_cast<float>(x), 2.0f)); });
    const Comparison c = compare_tensors(expected, actual, rules);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("bit-exact") != std::string::npos);
  }
  SUBCASE("a tensor missing from the output") {
    json fewer = actual;
    fewer.erase(fewer.begin() + 2);
    CHECK_FALSE(compare_tensors(kase.at("expected"), fewer, rules).mismatches.empty());
  }
}
