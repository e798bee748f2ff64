#include "core/inputs.h"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/bounded_read.h"
#include "core/generator.h"
#include "core/random_ops.h"
#include "core/safe_json.h"
#include "core/safe_text.h"
#include "core/usage_error.h"

namespace attn {

Inputs book_inputs() {
  // The chapter's embeddings (§3.3), one row per token.
  return {{"Your", "journey", "starts", "with", "one", "step"},
          Tensor({6, 3}, {0.43f, 0.15f, 0.89f,    // Your     (x^1)
                          0.55f, 0.87f, 0.66f,    // journey  (x^2)
                          0.57f, 0.85f, 0.64f,    // starts   (x^3)
                          0.22f, 0.58f, 0.33f,    // with     (x^4)
                          0.77f, 0.25f, 0.10f,    // one      (x^5)
                          0.05f, 0.80f, 0.55f})}; // step     (x^6)
}

namespace {

// 16 tokens of 16 numbers take a few KiB; the limits only stop hostile files early.
constexpr std::size_t kMaxInputsBytes = 1 * kMiB;
constexpr int kMaxInputsDepth = 64;

// `label` is how the caller names the file in messages (the CLI: "--inputs x.json").
[[noreturn]] void fail(const std::string& label, const std::string& what) {
  throw UsageError(label + ": " + what);
}

}  // namespace

Inputs parse_inputs(const std::string& json_text, const std::string& source, int min_rows) {  // source: the label
  JsonRules rules;
  rules.source = source;
  rules.fix = "write an array of number rows like [[0.43, 0.15], [0.55, 0.87]]";
  rules.nonfinite_fix = "every embedding value must be an ordinary finite number";
  rules.depth_fix = "an inputs file nests 2 levels, [[0.43, 0.15], [0.55, 0.87]], or 3 with {\"inputs\": ...}";
  rules.max_depth = kMaxInputsDepth;
  const nlohmann::json doc = parse_json_safely(json_text, rules);
  nlohmann::json rows;
  std::vector<std::string> tokens;
  if (doc.is_object()) {
    if (!doc.contains("inputs"))
      fail(source, "the object has no \"inputs\" key; write {\"tokens\": [...], \"inputs\": [[...], ...]}");
    rows = doc["inputs"];
    if (doc.contains("tokens")) {
      if (!doc["tokens"].is_array()) fail(source, "\"tokens\" must be an array of strings");
      for (const auto& t : doc["tokens"]) {
          if (!t.is_string()) fail(source, "\"tokens\" must be an array of strings");
        tokens.push_back(t.get<std::string>());
        if (!is_printable_utf8(tokens.back()))
          fail(source, "token " + std::to_string(tokens.size()) + " \"" + echo(tokens.back()) + "\" holds a control "
                       "character; give every token a plain printable label");
      }
    }
  } else {
    rows = doc;
  }
  if (!rows.is_array()) fail(source, "the inputs must be an array of rows, like [[0.43, 0.15], [0.55, 0.87]]");
  if (static_cast<int>(rows.size()) < min_rows)
    fail(source, "has " + std::to_string(rows.size()) + " row(s); attention needs at least " +
                     std::to_string(min_rows) + " tokens, one row each");
  size_t cols = 0;
  std::vector<float> values;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (!row.is_array() || row.empty())
      fail(source, "row " + std::to_string(i + 1) + " is not a non-empty array of numbers");
    if (i == 0) cols = row.size();
    if (row.size() != cols)
      fail(source, "row " + std::to_string(i + 1) + " has " + std::to_string(row.size()) + " numbers but row 1 has " +
                       std::to_string(cols) + "; every token needs an embedding of the same length");
    for (size_t j = 0; j < row.size(); ++j) {
      if (!row[j].is_number())
        fail(source, "row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1) +
                         " is not a number (NaN and Infinity are not allowed either)");
      const double d = row[j].get<double>();
      const float f = static_cast<float>(d);
      if (!std::isfinite(d) || !std::isfinite(f))
        fail(source, "row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1) +
                         " is not a finite float32 number; use values well inside +-3.4e38");
      values.push_back(f);
    }
  }
  if (tokens.empty()) {
    for (size_t i = 0; i < rows.size(); ++i) tokens.push_back("x" + std::to_string(i + 1));
  } else if (tokens.size() != rows.size()) {
    fail(source, "has " + std::to_string(tokens.size()) + " tokens but " + std::to_string(rows.size()) +
                     " rows; give one token label per row");
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  return {tokens, Tensor({n, static_cast<int64_t>(cols)}, std::move(values))};
}

Inputs load_inputs(const std::string& path, const std::string& label, int min_rows) {
  const BoundedRead file = read_bounded(path, kMaxInputsBytes);
  switch (file.problem) {
    case BoundedRead::kNone: break;
    case BoundedRead::kIsDirectory: fail(label, "is a directory; give the path of a JSON file");
    case BoundedRead::kCannotOpen:
      fail(label, "cannot open the file (" + file.reason + "); check the path and that it is readable");
    case BoundedRead::kTooLarge:
      fail(label, read_problem_text(file, kMaxInputsBytes) + "; at most 16 tokens of 16 numbers each fit in a few KiB");
    default: fail(label, read_problem_text(file, kMaxInputsBytes) + "; give the path of a regular JSON file");
  }
  return parse_inputs(file.text, label, min_rows);
}

Inputs sentence_inputs(const std::string& sentence, int64_t d_in, uint64_t seed, const std::string& label) {
  std::istringstream words(sentence);
  std::vector<std::string> tokens;
  for (std::string w; words >> w;) tokens.push_back(w);
  for (const std::string& t : tokens)
    if (!is_printable_utf8(t))
      throw UsageError(label + ": the word \"" + echo(t) + "\" holds a control character or bytes that are not UTF-8; "
                       "write the sentence in plain UTF-8 text");
  if (tokens.size() < 2)
    throw UsageError(label + " \"" + echo(sentence) + "\": " + (tokens.empty() ? "no words" : "only one word") +
                     "; attention needs at least 2 tokens, e.g. \"Your journey starts\"");
  Generator gen;
  gen.manual_seed(seed);
  const int64_t n = static_cast<int64_t>(tokens.size());
  return {tokens, Tensor({n, d_in}, rand_values(gen, n * d_in))};
}

}  // namespace attn
