// `attn-tutor d2l-mha --json -` against values computed by real PyTorch 1.13 for random options
// (tests/fixtures/d2l_pytorch.json, made by tools/gen_d2l_fixtures.py): d2l's masked_softmax demo, the
// attention weights, the dropout output (same zeros) and the module's output within 1e-6.
// The tests never need torch.
#include <doctest/doctest.h>

#include <string>

#include "fixture_compare.h"
#include "run_cli.h"

namespace {

using namespace fixtures;

const json& d2l_fixture() { return load("d2l_pytorch.json"); }

// A case's expected tensors (every occurrence of each stored name, in order) against the CLI's recorded
// tensors: within the fixture's tolerance, the zeros of its "zero_pattern" in the same places.
Rules rules() { return rules_of(d2l_fixture(), d2l_fixture().at("tolerance").get<double>(), NameCheck::same_counts); }
Comparison compare(const json& expected, const json& actual) { return compare_tensors(expected, actual, rules()); }

}  // namespace

TEST_CASE("d2l-mha matches PyTorch 1.13 within 1e-6 with identical dropout masks") {
  const json& cases = d2l_fixture().at("cases");
  REQUIRE(cases.size() > 0);
  size_t checked = 0, tensors = 0, train_mode = 0;
  double max_diff = 0;
  compare_cases("d2l-mha", cases, rules(), 6, [&](const json& kase, const Comparison& c) {
    if (!(c.max_abs_diff <= max_diff)) max_diff = c.max_abs_diff;
    tensors += kase.at("expected").size();
    for (const auto& e : kase.at("expected")) train_mode += e.at("name") == "self.dropout(self.attention_weights)";
    checked += c.mismatches.empty();
  });
  MESSAGE("d2l-mha: " << checked << " cases, " << tensors << " tensors (" << train_mode
                      << " in train mode), max abs diff " << max_diff);
  CHECK(train_mode > 0);
  REQUIRE(checked == cases.size());
}

TEST_CASE("d2l fixture comparison catches a wrong weight or a moved mask") {
  // The fixed case 3: --dropout 0.5, so it has a dropout output with zeros.
  const json& kase = d2l_fixture().at("cases").at(3);
  const json doc = run_case("d2l-mha", kase, temp_dir());
  REQUIRE(doc.contains("tensors"));
  REQUIRE(compare(kase.at("expected"), doc.at("tensors")).mismatches.empty());
  json expected = kase.at("expected");
  json* first = &first_value(entry(expected, "self.dropout(self.attention_weights)", 1));

  SUBCASE("2e-6 off") {
    *first = first->get<double>() + 2e-6;
    CHECK(compare(expected, doc.at("tensors")).mismatches.size() >= 1);
  }
  SUBCASE("a zero where PyTorch kept the weight or the reverse") {
    *first = first->get<double>() == 0.0 ? 1e-9 : 0.0;
    CHECK(compare(expected, doc.at("tensors")).mismatches.size() >= 1);
  }
}
