// `attn-tutor kv-cache|gqa|mla|swa --json -` against values computed by real PyTorch 1.13 with the bonus
// material's modules (tests/fixtures/bonus_pytorch.json, made by tools/gen_bonus_fixtures.py): for random
// seeds, inputs and sizes, every tensor each lesson records, in the same order, float32 within 1e-6 and
// the bool masks and int64 positions exactly. The tests never need torch.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "fixture_compare.h"
#include "run_cli.h"

namespace {

using namespace fixtures;

const json& bonus_fixture() { return load("bonus_pytorch.json"); }

Rules bonus_rules() {
  return rules_of(bonus_fixture(), bonus_fixture().at("tolerance").get<double>(), NameCheck::same_sequence, false);
}

// Replays every case of `lesson`; returns how many matched.
void check_lesson(const std::string& lesson) {
  const Rules rules = bonus_rules();
  const std::string dir = temp_dir();
  size_t cases = 0, matched = 0, values = 0;
  double max_diff = 0.0;
  std::string max_where;
  for (const auto& kase : bonus_fixture().at("cases")) {
    if (kase.at("lesson") != lesson) continue;
    ++cases;
    CAPTURE(kase.at("id").get<int>());
    CAPTURE(kase.at("argv").dump());
    const json doc = run_case(lesson, kase, dir);
    if (doc.is_null()) continue;
    const Comparison c = compare_tensors(kase.at("expected"), doc.at("tensors"), rules);
    CHECK_MESSAGE(c.mismatches.empty(), c.mismatches.size() << " mismatch(es) with PyTorch:" << first_mismatches(c));
    CHECK(c.tensors == kase.at("expected").size());
    values += c.values;
    if (c.max_abs_diff > max_diff) {
      max_diff = c.max_abs_diff;
      max_where = "case " + std::to_string(kase.at("id").get<int>()) + " " + c.max_where;
    }
    matched += c.mismatches.empty();
  }
  MESSAGE(lesson << ": " << matched << " of " << cases << " cases, " << values << " values, max abs diff " << max_diff
                 << " " << max_where);
  REQUIRE(cases >= 20);
  REQUIRE(matched == cases);
}

}  // namespace

TEST_CASE("bonus fixture holds the four lessons") {
  std::map<std::string, size_t> per_lesson;
  for (const auto& kase : bonus_fixture().at("cases")) ++per_lesson[kase.at("lesson").get<std::string>()];
  CHECK(per_lesson.size() == 4);
  for (const char* lesson : {"kv-cache", "gqa", "mla", "swa"}) CHECK(per_lesson[lesson] >= 20);
}

TEST_CASE("kv-cache matches PyTorch 1.13 within 1e-6, every step and cache") { check_lesson("kv-cache"); }

TEST_CASE("gqa matches PyTorch 1.13 within 1e-6: weights in the class's order, repeat_interleave, the cache") {
  check_lesson("gqa");
}

TEST_CASE("mla matches PyTorch 1.13 within 1e-6: the latent, the up-projections, the latent cache") {
  check_lesson("mla");
}

TEST_CASE("swa matches PyTorch 1.13 within 1e-6: the band mask, the positions, the bounded cache") {
  check_lesson("swa");
}

TEST_CASE("bonus fixture comparison reports a value 2e-6 off and a flipped mask") {
  const json* found = nullptr;
  for (const auto& kase : bonus_fixture().at("cases"))
    if (kase.at("lesson") == "kv-cache" && !found) found = &kase;
  REQUIRE(found != nullptr);
  const json doc = run_case("kv-cache", *found, temp_dir());
  REQUIRE(doc.contains("tensors"));
  const Rules rules = bonus_rules();
  REQUIRE(compare_tensors(found->at("expected"), doc.at("tensors"), rules).mismatches.empty());
  SUBCASE("the third out") {
    json expected = found->at("expected");
    json& v = first_value(entry(expected, "out", 3));
    v = v.get<double>() + 2e-6;
    const Comparison c = compare_tensors(expected, doc.at("tensors"), rules);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("out #3[0]") != std::string::npos);
  }
  SUBCASE("the chunk's mask") {
    json expected = found->at("expected");
    json& v = first_value(entry(expected, "mask_bool", 7));
    v = !v.get<bool>();
    CHECK(compare_tensors(expected, doc.at("tensors"), rules).mismatches.size() == 1);
  }
}
