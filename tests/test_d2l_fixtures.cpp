// `attn-tutor d2l-mha --json -` against values computed by real PyTorch 1.13 for random options
// (tests/fixtures/d2l_pytorch.json, made by tools/gen_d2l_fixtures.py): d2l's masked_softmax demo, the
// attention weights, the dropout output (same zeros) and the module's output within 1e-6.
// The tests never need torch.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

using nlohmann::json;

const json& d2l_fixture() {
  static const json f = [] {
    const std::string path = std::string(ATTN_TEST_FIXTURE_DIR) + "/d2l_pytorch.json";
    const std::string text = read_text_file(path);
    REQUIRE_MESSAGE(!text.empty(), "missing fixture " << path);
    return json::parse(text);
  }();
  return f;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void flat(const json& j, std::vector<double>& out) {
  if (j.is_array())
    for (const auto& e : j) flat(e, out);
  else
    out.push_back(j.is_number() ? j.get<double>() : std::nan(""));
}

// The mismatches between a case's expected tensors (every occurrence of each stored name, in order)
// and the CLI's recorded tensors; `max_diff` receives the largest |cli - torch|.
std::vector<std::string> mismatches(const json& expected, const json& actual, double& max_diff) {
  const std::set<std::string> zero_pattern = d2l_fixture().at("zero_pattern").get<std::set<std::string>>();
  const double tol = d2l_fixture().at("tolerance").get<double>();
  std::map<std::string, std::vector<const json*>> by_name;
  for (const auto& t : actual) by_name[t.at("name").get<std::string>()].push_back(&t);
  std::map<std::string, size_t> want_count, seen;
  for (const auto& e : expected) ++want_count[e.at("name").get<std::string>()];
  std::vector<std::string> bad;
  for (const auto& [name, n] : want_count)
    if (by_name[name].size() != n)
      bad.push_back(name + ": recorded " + std::to_string(by_name[name].size()) + " time(s), PyTorch " + std::to_string(n));
  for (const auto& e : expected) {
    const std::string name = e.at("name").get<std::string>();
    const size_t k = seen[name]++;
    const std::string label = name + " #" + std::to_string(k + 1);
    if (k >= by_name[name].size()) continue;
    const json& a = *by_name[name][k];
    if (a.at("shape") != e.at("shape") || a.at("dtype") != "float32") {
      bad.push_back(label + ": shape " + a.at("shape").dump() + ", PyTorch " + e.at("shape").dump());
      continue;
    }
    std::vector<double> got, want;
    flat(a.at("data"), got);
    flat(e.at("data"), want);
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      const float g = static_cast<float>(got[i]), w = static_cast<float>(want[i]);
      const double d = std::fabs(static_cast<double>(g) - static_cast<double>(w));
      if (!(d <= max_diff)) max_diff = d;
      if (!(d <= tol)) bad.push_back(label + "[" + std::to_string(i) + "]: " + std::to_string(g) + ", PyTorch " + std::to_string(w));
      if (zero_pattern.count(name) && (g == 0.0f) != (w == 0.0f)) bad.push_back(label + "[" + std::to_string(i) + "]: zero pattern");
    }
  }
  return bad;
}

json run_case(const json& kase, const std::string& dir) {
  std::string args = "d2l-mha --json -";
  for (const auto& a : kase.at("argv")) args += " " + quote(a.get<std::string>());
  if (!kase.at("inputs_file").is_null()) {
    const std::string path = dir + "/d2l_case" + std::to_string(kase.at("id").get<int>()) + ".json";
    std::ofstream(path) << kase.at("inputs_file").dump();
    args += " --inputs " + quote(path);
  }
  const CliResult r = run_cli(args);
  INFO("attn-tutor " << args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  json doc = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(doc.is_discarded());
  return doc;
}

}  // namespace

TEST_CASE("d2l-mha matches PyTorch 1.13 within 1e-6 with identical dropout masks") {
  const json& cases = d2l_fixture().at("cases");
  REQUIRE(cases.size() > 0);
  const std::string dir = temp_dir();
  size_t checked = 0, tensors = 0, train_mode = 0;
  double max_diff = 0;
  for (const auto& kase : cases) {
    CAPTURE(kase.at("id").get<int>());
    CAPTURE(kase.at("argv").dump());
    const json doc = run_case(kase, dir);
    const std::vector<std::string> bad = mismatches(kase.at("expected"), doc.at("tensors"), max_diff);
    std::string first;
    for (size_t i = 0; i < bad.size() && i < 6; ++i) first += "\n  " + bad[i];
    CHECK_MESSAGE(bad.empty(), bad.size() << " mismatch(es) with PyTorch:" << first);
    tensors += kase.at("expected").size();
    for (const auto& e : kase.at("expected")) train_mode += e.at("name") == "self.dropout(self.attention_weights)";
    checked += bad.empty();
  }
  MESSAGE("d2l-mha: " << checked << " cases, " << tensors << " tensors (" << train_mode
                      << " in train mode), max abs diff " << max_diff);
  CHECK(train_mode > 0);
  REQUIRE(checked == cases.size());
}

TEST_CASE("d2l fixture comparison catches a wrong weight or a moved mask") {
  // The fixed case 3: --dropout 0.5, so it has a dropout output with zeros.
  const json& kase = d2l_fixture().at("cases").at(3);
  const json doc = run_case(kase, temp_dir());
  double max_diff = 0;
  REQUIRE(mismatches(kase.at("expected"), doc.at("tensors"), max_diff).empty());
  json expected = kase.at("expected");
  json* dropped = nullptr;
  for (auto& e : expected)
    if (e.at("name") == "self.dropout(self.attention_weights)") dropped = &e;
  REQUIRE(dropped != nullptr);
  json* first = &dropped->at("data");
  while (first->is_array()) first = &first->at(0);

  SUBCASE("2e-6 off") {
    *first = first->get<double>() + 2e-6;
    CHECK(mismatches(expected, doc.at("tensors"), max_diff).size() >= 1);
  }
  SUBCASE("a zero where PyTorch kept the weight or the reverse") {
    *first = first->get<double>() == 0.0 ? 1e-9 : 0.0;
    CHECK(mismatches(expected, doc.at("tensors"), max_diff).size() >= 1);
  }
}
