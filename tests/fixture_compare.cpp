#include "fixture_compare.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "run_cli.h"

namespace fixtures {

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

const json& load(const std::string& file_name) {
  static std::map<std::string, json> loaded;
  const auto it = loaded.find(file_name);
  if (it != loaded.end()) return it->second;
  const std::string path = std::string(ATTN_TEST_FIXTURE_DIR) + "/" + file_name;
  const std::string text = read_text_file(path);
  REQUIRE_MESSAGE(!text.empty(), "missing fixture " << path);
  return loaded.emplace(file_name, json::parse(text)).first->second;
}

Rules rules_of(const json& fixture, double tolerance, NameCheck names, bool float32_only) {
  Rules r;
  if (fixture.contains("exact")) r.exact = fixture.at("exact").get<std::set<std::string>>();
  if (fixture.contains("zero_pattern")) r.zero_pattern = fixture.at("zero_pattern").get<std::set<std::string>>();
  r.tolerance = tolerance;
  r.names = names;
  r.float32_only = float32_only;
  return r;
}

namespace {

std::string names_text(const std::vector<std::string>& names) { return json(names).dump(); }

// -inf/inf/nan (written as strings) and booleans: compared as they are written.
bool is_token(const json& v) { return v.is_string() || v.is_boolean(); }

}  // namespace

Comparison compare_tensors(const json& expected, const json& actual, const Rules& rules) {
  Comparison c;
  auto fail = [&](const std::string& what) { c.mismatches.push_back(what); };
  std::map<std::string, std::vector<const json*>> by_name;
  std::vector<std::string> actual_names, expected_names;
  for (const auto& t : actual) {
    by_name[t.at("name").get<std::string>()].push_back(&t);
    actual_names.push_back(t.at("name").get<std::string>());
  }
  for (const auto& e : expected) expected_names.push_back(e.at("name").get<std::string>());

  if (rules.names == NameCheck::same_sequence && actual_names != expected_names)
    fail("tensor names differ: CLI has " + names_text(actual_names) + ", PyTorch " + names_text(expected_names));
  if (rules.names == NameCheck::same_counts) {
    std::map<std::string, size_t> expected_count;
    for (const auto& name : expected_names) ++expected_count[name];
    for (const auto& [name, n] : expected_count)
      if (by_name[name].size() != n)
        fail(name + ": the CLI records it " + std::to_string(by_name[name].size()) + " time(s), PyTorch " +
             std::to_string(n));
  }

  std::map<std::string, size_t> seen;
  for (const auto& e : expected) {
    const std::string name = e.at("name").get<std::string>();
    const size_t rank = ++seen[name];
    const size_t k = e.contains("occurrence") ? e.at("occurrence").get<size_t>() : rank;  // from 1
    const std::string label = name + " #" + std::to_string(k);
    if (k == 0 || k > by_name[name].size()) {
      fail(label + " is missing from the CLI output");
      continue;
    }
    const json& a = *by_name[name][k - 1];
    const bool is_float = a.at("dtype") == "float32";
    if ((rules.float32_only && !is_float) || a.at("shape") != e.at("shape")) {
      fail(label + ": shape " + a.at("shape").dump() + " " + a.at("dtype").dump() + ", PyTorch " +
           e.at("shape").dump() + (rules.float32_only ? " float32" : ""));
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
    const bool exact = rules.exact.count(name) > 0 || !is_float;  // int64 and bool tensors: exactly
    const bool zero_pattern = rules.zero_pattern.count(name) > 0;
    for (size_t i = 0; i < av.size(); ++i) {
      const std::string at = label + "[" + std::to_string(i) + "]";
      ++c.values;
      if (!av[i]->is_number() || !ev[i]->is_number()) {
        if (!is_token(*av[i]) || !is_token(*ev[i]))
          fail(at + ": not a number: " + av[i]->dump() + ", PyTorch " + ev[i]->dump());
        else if (*av[i] != *ev[i])
          fail(at + ": " + av[i]->dump() + ", PyTorch " + ev[i]->dump());
        continue;
      }
      // Both sides are float32 values written as text that reads back (via double) as the same float32.
      const double got_double = av[i]->get<double>(), want_double = ev[i]->get<double>();
      const float got = static_cast<float>(got_double);
      const float want = static_cast<float>(want_double);
      const double diff = std::fabs(static_cast<double>(got) - static_cast<double>(want));
      const bool equal = is_float ? got == want : got_double == want_double;
      std::ostringstream s;
      s.precision(9);
      s << at << ": " << got << ", PyTorch " << want << " (diff " << diff << ")";
      if (exact ? !equal : !(diff <= rules.tolerance))
        fail(s.str() + (exact ? " must be exact (bit-exact float32)" : ""));
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

json run_case(const std::string& lesson, const json& kase, const std::string& dir) {
  std::string args = lesson + " --json -";
  if (!kase.at("inputs_file").is_null()) {
    const std::string inputs = dir + "/case" + std::to_string(kase.at("id").get<int>()) + ".json";
    std::ofstream(inputs) << kase.at("inputs_file").dump();
    args += " --inputs " + shell_quote(inputs);
  }
  for (const auto& a : kase.at("argv")) args += " " + shell_quote(a.get<std::string>());
  const CliResult r = run_cli(args);
  INFO("attn-tutor " << args);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  if (r.exit_code != 0) return json();
  json doc = json::parse(r.out, nullptr, false);
  CHECK_FALSE(doc.is_discarded());
  if (doc.is_discarded()) return json();
  CHECK(doc.contains("tensors"));
  if (!doc.contains("tensors")) return json();
  return doc;
}

void compare_cases(const std::string& lesson, const json& cases, const Rules& rules, size_t shown,
                   const std::function<void(const json& kase, const Comparison& c)>& each) {
  const std::string dir = temp_dir();
  for (const auto& kase : cases) {
    CAPTURE(kase.at("id").get<int>());
    CAPTURE(kase.at("argv").dump());
    const json doc = run_case(lesson, kase, dir);
    if (doc.is_null()) continue;
    const Comparison c = compare_tensors(kase.at("expected"), doc.at("tensors"), rules);
    CHECK_MESSAGE(c.mismatches.empty(), c.mismatches.size()
                                            << " mismatch(es) with PyTorch:" << first_mismatches(c, shown));
    each(kase, c);
  }
}

std::string first_mismatches(const Comparison& c, size_t n) {
  std::string s;
  for (size_t i = 0; i < c.mismatches.size() && i < n; ++i) s += "\n  " + c.mismatches[i];
  if (c.mismatches.size() > n) s += "\n  ... " + std::to_string(c.mismatches.size() - n) + " more";
  return s;
}

json& entry(json& expected, const std::string& name, int occurrence) {
  int seen = 0;
  for (auto& e : expected) {
    if (e.at("name") != name) continue;
    const int k = e.contains("occurrence") ? e.at("occurrence").get<int>() : ++seen;
    if (k == occurrence) return e;
  }
  FAIL("no " << name << " #" << occurrence << " in the fixture case");
  return expected;
}

json& first_value(json& entry) {
  json* v = &entry.at("data");
  while (v->is_array()) v = &v->at(0);
  return *v;
}

}  // namespace fixtures
