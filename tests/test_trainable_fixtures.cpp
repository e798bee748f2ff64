// `attn-tutor trainable --json -` against values computed by real PyTorch 1.13 for random options
// (tests/fixtures/trainable_pytorch.json, made by tools/gen_trainable_fixtures.py): every tensor within
// 1e-6, the random weights bit-exact. The tests never need torch.
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

std::string fixture_path() { return std::string(ATTN_TEST_FIXTURE_DIR) + "/trainable_pytorch.json"; }

json load_fixture() {
  const std::string text = read_text_file(fixture_path());
  REQUIRE_MESSAGE(!text.empty(), "missing fixture " << fixture_path());
  return json::parse(text);
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

std::vector<int64_t> shape_of(const json& j) { return j.get<std::vector<int64_t>>(); }

struct Comparison {
  std::vector<std::string> mismatches;
  size_t values = 0;
  double max_abs_diff = 0.0;
  std::string max_where;
};

// Compares the CLI's "tensors" with a fixture case's "expected", by name (a repeated name in order of
// appearance): the same names in the same order, shapes, and every value within `tol` (the names in
// `exact`: equal as float32).
Comparison compare_tensors(const json& expected, const json& actual, const std::set<std::string>& exact,
                           double tol) {
  Comparison c;
  auto fail = [&](const std::string& what) { c.mismatches.push_back(what); };
  std::map<std::string, std::vector<const json*>> by_name;
  std::vector<std::string> actual_names, expected_names;
  for (const auto& t : actual) {
    by_name[t.at("name").get<std::string>()].push_back(&t);
    actual_names.push_back(t.at("name").get<std::string>());
  }
  for (const auto& e : expected) expected_names.push_back(e.at("name").get<std::string>());
  if (actual_names != expected_names) {
    std::ostringstream s;
    s << "tensor names differ: CLI has " << json(actual_names).dump() << ", PyTorch " << json(expected_names).dump();
    fail(s.str());
  }
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
    if (shape_of(a.at("shape")) != shape_of(e.at("shape"))) {
      fail(label + ": shape " + a.at("shape").dump() + ", PyTorch " + e.at("shape").dump());
      continue;
    }
    std::vector<const json*> av, ev;
    flatten(a.at("data"), av);
    flatten(e.at("data"), ev);
    if (av.size() != ev.size()) {
      fail(label + ": " + std::to_string(av.size()) + " values, PyTorch " + std::to_string(ev.size()));
      continue;
    }
    const bool bit_exact = exact.count(name) > 0;
    for (size_t i = 0; i < av.size(); ++i) {
      if (!av[i]->is_number() || !ev[i]->is_number()) {
        fail(label + "[" + std::to_string(i) + "]: not a number: " + av[i]->dump());
        continue;
      }
      // Both sides are float32 values written as text that reads back (via double) as the same float32.
      const float got = static_cast<float>(av[i]->get<double>());
      const float want = static_cast<float>(ev[i]->get<double>());
      const double diff = std::fabs(static_cast<double>(got) - static_cast<double>(want));
      ++c.values;
      const bool ok = bit_exact ? got == want : diff <= tol;  // NaN fails both
      if (!ok) {
        std::ostringstream s;
        s.precision(9);
        s << label << "[" << i << "]: " << got << ", PyTorch " << want << " (diff " << diff << ")"
          << (bit_exact ? " must be bit-exact" : "");
        fail(s.str());
      }
      if (!(diff <= c.max_abs_diff)) {
        c.max_abs_diff = diff;
        c.max_where = label + "[" + std::to_string(i) + "]";
      }
    }
  }
  return c;
}

std::set<std::string> exact_names(const json& fixture) {
  return fixture.at("exact").get<std::set<std::string>>();
}

// Runs the case's command line; returns the parsed JSON document (null on failure, reported).
json run_case(const json& kase, const std::string& dir) {
  const std::string inputs = dir + "/case" + std::to_string(kase.at("id").get<int>()) + ".json";
  std::ofstream(inputs) << kase.at("inputs_file").dump();
  std::string args = "trainable --json - --inputs " + shell_quote(inputs);
  for (const auto& a : kase.at("argv")) args += " " + shell_quote(a.get<std::string>());
  const CliResult r = run_cli(args);
  INFO("attn-tutor " << args);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  if (r.exit_code != 0) return json();
  json doc = json::parse(r.out, nullptr, false);
  CHECK_FALSE(doc.is_discarded());
  if (doc.is_discarded()) return json();
  return doc;
}

std::string first_mismatches(const Comparison& c, size_t n = 8) {
  std::string s;
  for (size_t i = 0; i < c.mismatches.size() && i < n; ++i) s += "\n  " + c.mismatches[i];
  if (c.mismatches.size() > n) s += "\n  ... " + std::to_string(c.mismatches.size() - n) + " more";
  return s;
}

}  // namespace

TEST_CASE("trainable matches the PyTorch 1.13 fixtures within 1e-6 with bit-exact weights") {
  const json fixture = load_fixture();
  const json& cases = fixture.at("cases");
  const std::set<std::string> exact = exact_names(fixture);
  REQUIRE(exact.count("W_query") == 1);
  REQUIRE(exact.count("sa_v2.W_value.weight") == 1);
  const std::string dir = temp_dir();
  size_t checked = 0, values = 0;
  double max_diff = 0.0;
  std::string max_where;
  for (const auto& kase : cases) {
    const json doc = run_case(kase, dir);
    CAPTURE(kase.at("id").get<int>());
    CAPTURE(kase.at("argv").dump());
    if (doc.is_null()) continue;
    REQUIRE(doc.contains("tensors"));
    const Comparison c = compare_tensors(kase.at("expected"), doc.at("tensors"), exact, kTolerance);
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
  const json fixture = load_fixture();
  const std::set<std::string> exact = exact_names(fixture);
  REQUIRE_FALSE(fixture.at("cases").empty());
  const json& kase = fixture.at("cases").at(0);
  const json doc = run_case(kase, temp_dir());
  REQUIRE(doc.contains("tensors"));
  const json& actual = doc.at("tensors");
  REQUIRE(compare_tensors(kase.at("expected"), actual, exact, kTolerance).mismatches.empty());

  auto perturbed = [&](const std::string& name, auto&& change) {
    json expected = kase.at("expected");
    for (auto& e : expected)
      if (e.at("name") == name) {
        json* v = &e.at("data");
        while (v->is_array()) v = &v->at(0);
        *v = change(v->get<double>());
        return expected;
      }
    FAIL("no tensor " << name << " in fixture case 0");
    return expected;
  };

  SUBCASE("a computed value off by 2e-6") {
    const json expected = perturbed("context_vec_2", [](double x) { return x + 2e-6; });
    const Comparison c = compare_tensors(expected, actual, exact, kTolerance);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("context_vec_2 #1[0]") != std::string::npos);
    CHECK(c.max_abs_diff > 1e-6);
  }
  SUBCASE("the second sa_v1(inputs) off by 2e-6") {
    json expected = kase.at("expected");
    int seen = 0;
    for (auto& e : expected)
      if (e.at("name") == "sa_v1(inputs)" && ++seen == 2) e.at("data").at(0).at(0) = e.at("data").at(0).at(0).get<double>() + 2e-6;
    REQUIRE(seen == 2);
    const Comparison c = compare_tensors(expected, actual, exact, kTolerance);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("sa_v1(inputs) #2[0]") != std::string::npos);
  }
  SUBCASE("a weight one float32 ulp off") {
    const json expected = perturbed("W_query", [](double x) {
      return static_cast<double>(std::nextafter(static_cast<float>(x), 2.0f));
    });
    const Comparison c = compare_tensors(expected, actual, exact, kTolerance);
    REQUIRE(c.mismatches.size() == 1);
    CHECK(c.mismatches[0].find("bit-exact") != std::string::npos);
  }
  SUBCASE("a tensor missing from the output") {
    json fewer = actual;
    fewer.erase(fewer.begin() + 2);
    CHECK_FALSE(compare_tensors(kase.at("expected"), fewer, exact, kTolerance).mismatches.empty());
  }
}
