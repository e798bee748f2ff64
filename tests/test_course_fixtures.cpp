// `attn-tutor course-mha --json -` against values computed by real PyTorch 1.13 running the course's code
// (tests/fixtures/course_pytorch.json, made by tools/gen_course_fixtures.py): within 1e-6, -inf exactly,
// the weights bit for bit and the zeros of every dropout output in the same places. Never needs torch.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "fixture_compare.h"
#include "run_cli.h"

namespace {

using namespace fixtures;

constexpr double kTolerance = 1e-6;

const json& fixture() { return load("course_pytorch.json"); }

// Each expected entry against the CLI's occurrence-th tensor of that name: within 1e-6, the fixture's
// "exact" equal, -inf exactly and the zeros of its "zero_pattern" (the dropout outputs) in the same places.
Rules rules() { return rules_of(fixture(), kTolerance, NameCheck::none); }
Comparison compare(const json& expected, const json& actual) { return compare_tensors(expected, actual, rules()); }

}  // namespace

TEST_CASE("course-mha matches PyTorch 1.13 within 1e-6 with identical dropout masks") {
  const json& cases = fixture().at("cases");
  size_t checked = 0, values = 0, zeros = 0, post = 0;
  double max_diff = 0.0;
  compare_cases("course-mha", cases, rules(), 8, [&](const json& kase, const Comparison& c) {
    REQUIRE(kase.at("expected").size() > 0);
    values += c.values;
    zeros += c.zero_entries;
    max_diff = std::max(max_diff, c.max_abs_diff);
    for (const auto& a : kase.at("argv")) post += a == "post";
    if (c.mismatches.empty() && c.values > 0) ++checked;
  });
  MESSAGE("course-mha: " << checked << " cases (" << post << " --preset post), " << values << " values, " << zeros
                         << " zeros of dropout outputs, max abs diff " << max_diff);
  REQUIRE(cases.size() > 0);
  CHECK(post > 0);
  REQUIRE(checked == cases.size());
}

TEST_CASE("course fixture comparison catches a value off by 2e-6 and a moved dropout zero") {
  const json& kase = fixture().at("cases").at(0);  // the lesson's defaults: dropout 0.1 on the chapter's inputs
  const json doc = run_case("course-mha", kase, temp_dir());
  REQUIRE(doc.contains("tensors"));
  const json& actual = doc.at("tensors");
  REQUIRE(compare(kase.at("expected"), actual).mismatches.empty());

  SUBCASE("the module's output off by 2e-6") {
    json expected = kase.at("expected");
    json& v = entry(expected, "out", 3).at("data").at(0).at(0).at(1);  // out[0][0][1]
    v = v.get<double>() + 2e-6;
    const Comparison c = compare(expected, actual);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("out #3[1]") != std::string::npos);
  }
  SUBCASE("a weight dropped by torch is kept by a tiny value") {
    json expected = kase.at("expected");
    json& w = entry(expected, "weights", 4).at("data").at(0).at(0).at(1);  // row 0: only (0, 0) is unmasked
    REQUIRE(w.get<double>() == 0.0);
    w = 1e-9;
    const Comparison c = compare(expected, actual);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("mask differs") != std::string::npos);
  }
  SUBCASE("-inf in the masked scores replaced by a number") {
    json expected = kase.at("expected");
    json& w = entry(expected, "weights", 2).at("data").at(0).at(0).at(1);
    REQUIRE(w == "-inf");
    w = -1e30;
    CHECK(compare(expected, actual).mismatches.size() == 1);
  }
}
