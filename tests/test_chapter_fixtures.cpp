// `attn-tutor causal-mask|dropout|wrapper|mha --json -` against values computed by real PyTorch 1.13 for
// random options (tests/fixtures/chapter_pytorch.json, made by tools/gen_chapter_fixtures.py):
// attn_weights, context_vec(s), the dropout outputs and the wrapper's heads within 1e-6, dropout(ones)
// exactly and the dropout masks (zero patterns) identical. The --bernoulli mkl cases are compared with an
// independent model of the MKL path (shared/spec/torch-rng.md 7.2), as torch cannot run it here.
// The tests never need torch.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

using nlohmann::json;

constexpr double kTolerance = 1e-6;

std::string fixture_path() { return std::string(ATTN_TEST_FIXTURE_DIR) + "/chapter_pytorch.json"; }

const json& fixture() {
  static const json f = [] {
    const std::string text = read_text_file(fixture_path());
    REQUIRE_MESSAGE(!text.empty(), "missing fixture " << fixture_path());
    return json::parse(text);
  }();
  return f;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void flatten(const json& j, std::vector<const json*>& out) {
  if (j.is_array())
    for (const auto& e : j) flatten(e, out);
  else
    out.push_back(&j);
}

struct Rules {
  std::set<std::string> exact;         // compared as float32, equal
  std::set<std::string> zero_pattern;  // 0 in the CLI iff 0 in torch (dropout masks)
};

Rules rules_of(const json& f) {
  return {f.at("exact").get<std::set<std::string>>(), f.at("zero_pattern").get<std::set<std::string>>()};
}

struct Comparison {
  std::vector<std::string> mismatches;
  size_t values = 0, tensors = 0, zero_entries = 0;
  size_t zero_sign = 0;  // zeros whose sign differs from torch's (-0.0 vs 0.0): equal, but printed differently
  double max_abs_diff = 0.0;
  std::string max_where;
};

// Compares a fixture case's "expected" (a subset of the lesson's tensors, every occurrence of each
// stored name, in order) with the CLI's "tensors": the k-th tensor of a name with the k-th of that name.
Comparison compare_tensors(const json& expected, const json& actual, const Rules& rules, double tol) {
  Comparison c;
  auto fail = [&](const std::string& what) { c.mismatches.push_back(what); };
  std::map<std::string, std::vector<const json*>> by_name;
  for (const auto& t : actual) by_name[t.at("name").get<std::string>()].push_back(&t);
  std::map<std::string, size_t> expected_count;
  for (const auto& e : expected) ++expected_count[e.at("name").get<std::string>()];
  for (const auto& [name, n] : expected_count)
    if (by_name[name].size() != n)
      fail(name + ": the CLI records it " + std::to_string(by_name[name].size()) + " time(s), PyTorch " +
           std::to_string(n));

  std::map<std::string, size_t> seen;
  for (const auto& e : expected) {
    const std::string name = e.at("name").get<std::string>();
    const size_t k = seen[name]++;
    const std::string label = name + " #" + std::to_string(k + 1);
    if (k >= by_name[name].size()) {
      fail(label + " is missing from the CLI output");
      continue;
    }
    const json& a = *by_name[name][k];
    if (a.at("dtype") != "float32" || a.at("shape") != e.at("shape")) {
      fail(label + ": shape " + a.at("shape").dump() + " " + a.at("dtype").dump() + ", PyTorch " +
           e.at("shape").dump() + " float32");
      continue;
    }
    std::vector<const json*> av, ev;
    flatten(a.at("data"), av);
    flatten(e.at("data"), ev);
    if (av.size() != ev.size()) {
      fail(label + ": " + std::to_string(av.size()) + " values, PyTorch " + std::to_string(ev.size()));
      continue;
    }
    ++c.tensors;
    const bool exact = rules.exact.count(name) > 0;
    const bool zero_pattern = rules.zero_pattern.count(name) > 0;
    for (size_t i = 0; i < av.size(); ++i) {
      const std::string at = label + "[" + std::to_string(i) + "]";
      if (!av[i]->is_number() || !ev[i]->is_number()) {
        fail(at + ": not a number: " + av[i]->dump());
        continue;
      }
      // Both sides are float32 values written as text that reads back (via double) as the same float32.
      const float got = static_cast<float>(av[i]->get<double>());
      const float want = static_cast<float>(ev[i]->get<double>());
      const double diff = std::fabs(static_cast<double>(got) - static_cast<double>(want));
      ++c.values;
      std::ostringstream s;
      s.precision(9);
      s << at << ": " << got << ", PyTorch " << want << " (diff " << diff << ")";
      if (exact ? !(got == want) : !(diff <= tol)) fail(s.str() + (exact ? " must be exact" : ""));
      if (zero_pattern && ((got == 0.0f) != (want == 0.0f))) fail(s.str() + ": the dropout mask differs");
      if (zero_pattern && want == 0.0f) ++c.zero_entries;
      if (got == 0.0f && want == 0.0f && std::signbit(got) != std::signbit(want)) ++c.zero_sign;
      if (!(diff <= c.max_abs_diff)) {
        c.max_abs_diff = diff;
        c.max_where = at;
      }
    }
  }
  return c;
}

// Runs the case's command line; returns the parsed JSON document (null on failure, reported).
json run_case(const json& kase, const std::string& dir) {
  const std::string inputs = dir + "/case" + std::to_string(kase.at("id").get<int>()) + ".json";
  std::ofstream(inputs) << kase.at("inputs_file").dump();
  std::string args = kase.at("lesson").get<std::string>() + " --json - --inputs " + shell_quote(inputs);
  for (const auto& a : kase.at("argv")) args += " " + shell_quote(a.get<std::string>());
  const CliResult r = run_cli(args);
  INFO("attn-tutor " << args);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  if (r.exit_code != 0) return json();
  json doc = json::parse(r.out, nullptr, false);
  CHECK_FALSE(doc.is_discarded());
  if (doc.is_discarded() || !doc.contains("tensors")) return json();
  return doc;
}

std::string first_mismatches(const Comparison& c, size_t n = 8) {
  std::string s;
  for (size_t i = 0; i < c.mismatches.size() && i < n; ++i) s += "\n  " + c.mismatches[i];
  if (c.mismatches.size() > n) s += "\n  ... " + std::to_string(c.mismatches.size() - n) + " more";
  return s;
}

// Replays every case of `list` whose lesson is `lesson` ("" = all); returns how many were checked.
size_t replay(const json& list, const std::string& lesson, size_t* expected_cases) {
  const Rules rules = rules_of(fixture());
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
    const json doc = run_case(kase, dir);
    if (doc.is_null()) continue;
    const Comparison c = compare_tensors(kase.at("expected"), doc.at("tensors"), rules, kTolerance);
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
  // 001 In [38]-[39]), and wrapper/mha cases where each head's mask seed is the draw after the last.
  const json& list = fixture().at("mkl_cases");
  size_t cases = 0, dropout_cases = 0;
  for (const auto& kase : list) {
    bool mkl = false;
    for (const auto& a : kase.at("argv")) mkl = mkl || a == "mkl";
    CHECK(mkl);
    dropout_cases += kase.at("lesson") == "dropout";
  }
  CHECK(dropout_cases >= 3);
  const size_t checked = replay(list, "", &cases);
  REQUIRE(cases > 0);
  REQUIRE(checked == list.size());
}

TEST_CASE("chapter fixture comparison reports a wrong value or mask") {
  const Rules rules = rules_of(fixture());
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
  const json doc = run_case(kase, temp_dir());
  REQUIRE(doc.contains("tensors"));
  const json& actual = doc.at("tensors");
  REQUIRE(compare_tensors(kase.at("expected"), actual, rules, kTolerance).mismatches.empty());

  auto first_value = [](json& e) -> json& {
    json* v = &e.at("data");
    while (v->is_array()) v = &v->at(0);
    return *v;
  };
  auto entry = [](json& expected, const std::string& name, int occurrence) -> json& {
    int seen = 0;
    for (auto& e : expected)
      if (e.at("name") == name && ++seen == occurrence) return e;
    FAIL("no " << name << " #" << occurrence);
    return expected;
  };

  SUBCASE("context_vecs off by 2e-6") {
    json expected = kase.at("expected");
    json& v = first_value(entry(expected, "context_vecs", 1));
    v = v.get<double>() + 2e-6;
    const Comparison c = compare_tensors(expected, actual, rules, kTolerance);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("context_vecs #1[0]") != std::string::npos);
  }
  SUBCASE("the second attn_weights off by 2e-6") {
    json expected = kase.at("expected");
    json& v = first_value(entry(expected, "attn_weights", 2));
    v = v.get<double>() + 2e-6;
    const Comparison c = compare_tensors(expected, actual, rules, kTolerance);
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
    const Comparison c = compare_tensors(expected, actual, rules, kTolerance);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("must be exact") != std::string::npos);
  }
  SUBCASE("a dropped entry of dropout(attn_weights) kept by a tiny value") {
    json expected = kase.at("expected");
    json& e = entry(expected, "dropout(attn_weights)", 1);
    json& next = e.at("data").at(0).at(1);  // row 0: every entry but (0, 0) is masked by the causal mask
    REQUIRE(next.get<double>() == 0.0);
    next = 1e-9;  // within the tolerance, but no longer a zero: the mask differs
    const Comparison c = compare_tensors(expected, actual, rules, kTolerance);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("mask differs") != std::string::npos);
  }
  SUBCASE("a tensor missing from the output") {
    json fewer = json::array();
    for (const auto& t : actual)
      if (t.at("name") != "dropout(attn_weights)") fewer.push_back(t);
    CHECK_FALSE(compare_tensors(kase.at("expected"), fewer, rules, kTolerance).mismatches.empty());
  }
}
