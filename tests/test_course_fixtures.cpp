// `attn-tutor course-mha --json -` against values computed by real PyTorch 1.13 running the post's code
// (tests/fixtures/course_pytorch.json, made by tools/gen_course_fixtures.py): within 1e-6, -inf exactly,
// the weights bit for bit and the zeros of every dropout output in the same places. Never needs torch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
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

const json& fixture() {
  static const json f = [] {
    const std::string path = std::string(ATTN_TEST_FIXTURE_DIR) + "/course_pytorch.json";
    const std::string text = read_text_file(path);
    REQUIRE_MESSAGE(!text.empty(), "missing fixture " << path);
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

struct Comparison {
  std::vector<std::string> mismatches;
  size_t values = 0, zeros = 0;
  double max_diff = 0.0;
};

// Each expected entry against the CLI's occurrence-th tensor of that name.
Comparison compare(const json& expected, const json& actual) {
  const std::set<std::string> exact = fixture().at("exact").get<std::set<std::string>>();
  const std::set<std::string> zero_pattern = fixture().at("zero_pattern").get<std::set<std::string>>();
  std::map<std::string, std::vector<const json*>> by_name;
  for (const auto& t : actual) by_name[t.at("name").get<std::string>()].push_back(&t);
  Comparison c;
  for (const auto& e : expected) {
    const std::string name = e.at("name").get<std::string>();
    const size_t k = e.at("occurrence").get<size_t>();
    const std::string label = name + " #" + std::to_string(k);
    if (k == 0 || by_name[name].size() < k) {
      c.mismatches.push_back(label + " is missing from the CLI output");
      continue;
    }
    const json& a = *by_name[name][k - 1];
    if (a.at("dtype") != "float32" || a.at("shape") != e.at("shape")) {
      c.mismatches.push_back(label + ": shape " + a.at("shape").dump() + ", PyTorch " + e.at("shape").dump());
      continue;
    }
    std::vector<const json*> av, ev;
    flatten(a.at("data"), av);
    flatten(e.at("data"), ev);
    if (av.size() != ev.size()) {
      c.mismatches.push_back(label + ": value count differs");
      continue;
    }
    for (size_t i = 0; i < av.size(); ++i) {
      const std::string at = label + "[" + std::to_string(i) + "]";
      ++c.values;
      if (ev[i]->is_string() || av[i]->is_string()) {  // -inf of the masked scores
        if (*ev[i] != *av[i]) c.mismatches.push_back(at + ": " + av[i]->dump() + ", PyTorch " + ev[i]->dump());
        continue;
      }
      const float got = static_cast<float>(av[i]->get<double>());
      const float want = static_cast<float>(ev[i]->get<double>());
      const double diff = std::fabs(static_cast<double>(got) - static_cast<double>(want));
      std::ostringstream s;
      s.precision(9);
      s << at << ": " << got << ", PyTorch " << want << " (diff " << diff << ")";
      if (exact.count(name) ? !(got == want) : !(diff <= kTolerance)) c.mismatches.push_back(s.str());
      if (zero_pattern.count(name) && (got == 0.0f) != (want == 0.0f))
        c.mismatches.push_back(s.str() + ": the dropout mask differs");
      c.zeros += zero_pattern.count(name) && want == 0.0f;
      if (diff > c.max_diff) c.max_diff = diff;
    }
  }
  return c;
}

json run_case(const json& kase, const std::string& dir) {
  std::string args = "course-mha --json -";
  if (!kase.at("inputs_file").is_null()) {
    const std::string path = dir + "/course" + std::to_string(kase.at("id").get<int>()) + ".json";
    std::ofstream(path) << kase.at("inputs_file").dump();
    args += " --inputs " + shell_quote(path);
  }
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

}  // namespace

TEST_CASE("course-mha matches PyTorch 1.13 within 1e-6 with identical dropout masks") {
  const json& cases = fixture().at("cases");
  const std::string dir = temp_dir();
  size_t checked = 0, values = 0, zeros = 0, post = 0;
  double max_diff = 0.0;
  for (const auto& kase : cases) {
    CAPTURE(kase.at("id").get<int>());
    CAPTURE(kase.at("argv").dump());
    const json doc = run_case(kase, dir);
    if (doc.is_null()) continue;
    REQUIRE(kase.at("expected").size() > 0);
    const Comparison c = compare(kase.at("expected"), doc.at("tensors"));
    std::string first;
    for (size_t i = 0; i < c.mismatches.size() && i < 8; ++i) first += "\n  " + c.mismatches[i];
    CHECK_MESSAGE(c.mismatches.empty(), c.mismatches.size() << " mismatch(es) with PyTorch:" << first);
    values += c.values;
    zeros += c.zeros;
    max_diff = std::max(max_diff, c.max_diff);
    for (const auto& a : kase.at("argv")) post += a == "post";
    if (c.mismatches.empty() && c.values > 0) ++checked;
  }
  MESSAGE("course-mha: " << checked << " cases (" << post << " --preset post), " << values << " values, " << zeros
                         << " zeros of dropout outputs, max abs diff " << max_diff);
  REQUIRE(cases.size() > 0);
  CHECK(post > 0);
  REQUIRE(checked == cases.size());
}

TEST_CASE("course fixture comparison catches a value off by 2e-6 and a moved dropout zero") {
  const json& kase = fixture().at("cases").at(0);  // the lesson's defaults: dropout 0.1 on the chapter's inputs
  const json doc = run_case(kase, temp_dir());
  REQUIRE(doc.contains("tensors"));
  const json& actual = doc.at("tensors");
  REQUIRE(compare(kase.at("expected"), actual).mismatches.empty());

  auto entry = [](json& expected, const std::string& name, int occurrence) -> json& {
    for (auto& e : expected)
      if (e.at("name") == name && e.at("occurrence") == occurrence) return e;
    FAIL("no " << name << " #" << occurrence);
    return expected;
  };
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
