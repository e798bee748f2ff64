// `attn-tutor causal-mask|dropout|wrapper|mha --json -` against values computed by real PyTorch 1.13 for
// random options (tests/fixtures/chapter_pytorch.json, made by tools/gen_chapter_fixtures.py):
// attn_weights, context_vec(s), the dropout outputs and the wrapper's heads within 1e-6, dropout(ones)
// exactly and the dropout masks (zero patterns) identical. The --bernoulli mkl cases are compared with an
// independent model of the MKL path (docs/spec/torch-rng.md 7.2), as torch cannot run it here.
// The tests never need torch.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fixture_compare.h"
#include "run_cli.h"

namespace {

using namespace fixtures;

constexpr double kTolerance = 1e-6;

const json& fixture() { return load("chapter_pytorch.json"); }

// Every occurrence of each stored name recorded as often by the CLI, within 1e-6, the fixture's "exact"
// equal and its "zero_pattern" (the dropout masks) identical.
Rules chapter_rules() { return rules_of(fixture(), kTolerance, NameCheck::same_counts); }

// Replays every case of `list` whose lesson is `lesson` ("" = all); returns how many were checked.
size_t replay(const json& list, const std::string& lesson, size_t* expected_cases) {
  const Rules rules = chapter_rules();
  const std::string dir = temp_dir();
  size_t checked = 0, values = 0, zeros = 0, zero_sign = 0;
  *expected_cases = 0;
  double max_diff = 0.0;
  std::string max_where;
  for (const auto& kase : list) {
    if (!lesson.empty() && kase.at("lesson") != lesson) continue;
    ++*expected_cases;
    CAPTURE(kase.at("id").get<int>());
    CAPTURE(kase.at("lesson").get<std::string>());
    CAPTURE(kase.at("argv").dump());
    const json doc = run_case(kase.at("lesson").get<std::string>(), kase, dir);
    if (doc.is_null()) continue;
    const Comparison c = compare_tensors(kase.at("expected"), doc.at("tensors"), rules);
    CHECK_MESSAGE(c.mismatches.empty(), c.mismatches.size() << " mismatch(es) with PyTorch:" << first_mismatches(c));
    CHECK(c.tensors == kase.at("expected").size());
    CHECK(c.values > 0);
    values += c.values;
    zeros += c.zero_entries;
    zero_sign += c.zero_sign;
    if (c.max_abs_diff > max_diff) {
      max_diff = c.max_abs_diff;
      max_where = "case " + std::to_string(kase.at("id").get<int>()) + " " + c.max_where;
    }
    if (c.mismatches.empty()) ++checked;
  }
  MESSAGE((lesson.empty() ? "all" : lesson) << ": " << checked << " cases, " << values << " values (" << zeros
                                            << " zero entries of dropout outputs and attention weights), max abs diff "
                                            << max_diff << " " << max_where << " (zeros of another sign than "
                                            << "torch's: " << zero_sign << ")");
  return checked;
}

void check_lesson(const std::string& lesson) {
  size_t cases = 0;
  const size_t checked = replay(fixture().at("cases"), lesson, &cases);
  REQUIRE(cases > 0);
  REQUIRE(checked == cases);
}

}  // namespace

TEST_CASE("chapter fixture holds the four lessons and the MKL cases") {
  const json& f = fixture();
  std::map<std::string, size_t> per_lesson;
  for (const auto& kase : f.at("cases")) ++per_lesson[kase.at("lesson").get<std::string>()];
  CHECK(per_lesson.size() == 4);
  for (const char* lesson : {"causal-mask", "dropout", "wrapper", "mha"}) CHECK(per_lesson[lesson] > 0);
  REQUIRE(f.at("mkl_cases").size() > 0);
  CHECK(f.at("zero_pattern").size() > 0);
}

TEST_CASE("causal-mask matches PyTorch 1.13 within 1e-6") { check_lesson("causal-mask"); }

TEST_CASE("dropout matches PyTorch 1.13 within 1e-6 with identical masks") { check_lesson("dropout"); }

TEST_CASE("wrapper matches PyTorch 1.13 within 1e-6") { check_lesson("wrapper"); }

TEST_CASE("mha matches PyTorch 1.13 within 1e-6 with identical masks") { check_lesson("mha"); }

TEST_CASE("bernoulli mkl matches the independent MKL model") {
  // dropout --bernoulli mkl --seed S for several seeds and rates (the first is the reader's notebook,
  // a reader's run on Intel/Windows, §3.5.2), and wrapper/mha cases where each head's mask seed is the draw after the last.
  const json& list = fixture().at("mkl_cases");
  size_t cases = 0, dropout_cases = 0;
  for (const auto& kase : list) {
    // mkl in every case, except at a rate of 0 or 1: no mask is drawn, and attn-tutor refuses
    // --bernoulli there as an option without effect (the same numbers then show it had none).
    bool mkl = false, no_mask = false;
    const json& argv = kase.at("argv");
    for (size_t i = 0; i < argv.size(); ++i) {
      mkl = mkl || argv[i] == "mkl";
      no_mask =
          no_mask || (argv[i] == "--dropout" && i + 1 < argv.size() && (argv[i + 1] == "1.0" || argv[i + 1] == "0.0"));
    }
    CHECK(mkl != no_mask);
    dropout_cases += kase.at("lesson") == "dropout";
  }
  CHECK(dropout_cases >= 3);
  const size_t checked = replay(list, "", &cases);
  REQUIRE(cases > 0);
  REQUIRE(checked == list.size());
}

TEST_CASE("chapter fixture comparison reports a wrong value or mask") {
  const Rules rules = chapter_rules();
  // The first dropout case that drops something: its dropout(example) holds zeros and 1/(1-p).
  const json* found = nullptr;
  for (const auto& kase : fixture().at("cases")) {
    if (kase.at("lesson") != "dropout") continue;
    for (const auto& e : kase.at("expected"))
      if (e.at("name") == "dropout(example)" && !found) {
        std::vector<const json*> v;
        flatten(e.at("data"), v);
        bool zero = false, nonzero = false;
        for (const json* x : v) (x->get<double>() == 0.0 ? zero : nonzero) = true;
        if (zero && nonzero) found = &kase;
      }
  }
  REQUIRE(found != nullptr);
  const json& kase = *found;
  const json doc = run_case(kase.at("lesson").get<std::string>(), kase, temp_dir());
  REQUIRE(doc.contains("tensors"));
  const json& actual = doc.at("tensors");
  REQUIRE(compare_tensors(kase.at("expected"), actual, rules).mismatches.empty());

  // The expected values with the first number of the occurrence-th `name` off by 2e-6.
  auto nudged = [&](const std::string& name, int occurrence) {
    json expected = kase.at("expected");
    json& v = first_value(entry(expected, name, occurrence));
    v = v.get<double>() + 2e-6;
    return compare_tensors(expected, actual, rules);
  };

  SUBCASE("context_vecs off by 2e-6") {
    const Comparison c = nudged("context_vecs", 1);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("context_vecs #1[0]") != std::string::npos);
  }
  SUBCASE("the second attn_weights off by 2e-6") {
    const Comparison c = nudged("attn_weights", 2);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("attn_weights #2[0]") != std::string::npos);
  }
  SUBCASE("dropout(example) one float32 ulp off") {
    json expected = kase.at("expected");
    json& e = entry(expected, "dropout(example)", 1);
    std::vector<const json*> v;
    flatten(e.at("data"), v);
    size_t i = 0;
    while (v[i]->get<double>() == 0.0) ++i;
    json* target = &e.at("data");
    const int64_t cols = e.at("shape").at(1).get<int64_t>();
    target = &target->at(i / cols).at(i % cols);
    *target = static_cast<double>(std::nextafter(static_cast<float>(target->get<double>()), 100.0f));
    const Comparison c = compare_tensors(expected, actual, rules);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("must be exact") != std::string::npos);
  }
  SUBCASE("a dropped entry of dropout(attn_weights) kept by a tiny value") {
    json expected = kase.at("expected");
    json& e = entry(expected, "dropout(attn_weights)", 1);
    json& next = e.at("data").at(0).at(1);  // row 0: every entry but (0, 0) is masked by the causal mask
    REQUIRE(next.get<double>() == 0.0);
    next = 1e-9;  // within the tolerance, but no longer a zero: the mask differs
    const Comparison c = compare_tensors(expected, actual, rules);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("mask differs") != std::string::npos);
  }
  SUBCASE("a tensor missing from the output") {
    json fewer = json::array();
    for (const auto& t : actual)
      if (t.at("name") != "dropout(attn_weights)") fewer.push_back(t);
    CHECK_FALSE(compare_tensors(kase.at("expected"), fewer, rules).mismatches.empty());
  }
}
