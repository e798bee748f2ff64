#pragma once
// The PyTorch fixture tests' shared pieces (tests only): loading a fixture of tests/fixtures, running one
// of its cases through the CLI, and comparing the CLI's recorded tensors with the case's "expected" ones.
#include <nlohmann/json.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace fixtures {

using nlohmann::json;

std::string shell_quote(const std::string& s);  // one shell word, in single quotes

// The leaves of a nested JSON array, row-major.
void flatten(const json& j, std::vector<const json*>& out);

// tests/fixtures/<file_name>, parsed once per test run; REQUIREs that it exists.
const json& load(const std::string& file_name);

// How the CLI's tensor names must relate to the expected ones (besides every expected tensor being found).
enum class NameCheck {
  same_sequence,  // exactly the expected names, in the same order
  same_counts,    // each expected name recorded as many times as expected (other names may appear)
  none,           // only the expected tensors are looked up
};

struct Rules {
  std::set<std::string> exact;         // compared as float32, equal
  std::set<std::string> zero_pattern;  // 0 in the CLI iff 0 in torch (dropout masks)
  double tolerance = 1e-6;             // |cli - torch| of the other floats
  NameCheck names = NameCheck::same_counts;
  // The CLI's tensor must be float32. Otherwise int64/bool tensors are allowed and compared exactly.
  bool float32_only = true;
};

// The fixture's "exact" and "zero_pattern" lists (absent = none).
Rules rules_of(const json& fixture, double tolerance, NameCheck names, bool float32_only = true);

struct Comparison {
  std::vector<std::string> mismatches;
  size_t values = 0, tensors = 0, zero_entries = 0;
  size_t zero_sign = 0;  // zeros whose sign differs from torch's (-0.0 vs 0.0): equal, but printed differently
  double max_abs_diff = 0.0;
  std::string max_where;
};

// Compares a fixture case's "expected" with the CLI's "tensors": each expected entry with the CLI's k-th
// tensor of its name, k = its "occurrence" (from 1) when it has one, else its rank among the expected
// entries of that name. Shapes equal, every value within rules.tolerance (the names in rules.exact:
// equal as float32), the zeros of rules.zero_pattern in the same places; "-inf"/"inf"/"nan" strings and
// booleans must be equal.
Comparison compare_tensors(const json& expected, const json& actual, const Rules& rules);

// Runs `attn-tutor LESSON --json - [--inputs FILE] ARGV...` for a fixture case (FILE written in `dir`
// from the case's "inputs_file" unless it is null); returns the parsed JSON document, null on failure
// (reported: exit status, invalid JSON, no "tensors").
json run_case(const std::string& lesson, const json& kase, const std::string& dir);

// Every case of `cases` through run_case(lesson, ...) (CAPTUREd by id and argv), its "expected" compared
// with the CLI's tensors under `rules` and CHECKed to match (naming the first `shown` mismatches); `each`
// then sees the case and its comparison. A case the CLI could not run is skipped (run_case reported it).
void compare_cases(const std::string& lesson, const json& cases, const Rules& rules, size_t shown,
                   const std::function<void(const json& kase, const Comparison& c)>& each);

// The first `n` mismatches, one per line, for a failure message.
std::string first_mismatches(const Comparison& c, size_t n = 8);

// The entry of `expected` for the occurrence-th tensor of `name` (by its "occurrence" when entries carry
// one, else by rank); FAILs if there is none.
json& entry(json& expected, const std::string& name, int occurrence);

// The first number of an entry's data (data[0][0]...).
json& first_value(json& entry);

}  // namespace fixtures
