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
          Tensor({6, 3}, {0.43f, 0.15f, 0.89f,     // Your     (x^1)
                          0.55f, 0.87f, 0.66f,     // journey  (x^2)
                          0.57f, 0.85f, 0.64f,     // starts   (x^3)
                          0.22f, 0.58f, 0.33f,     // with     (x^4)
                          0.77f, 0.25f, 0.10f,     // one      (x^5)
                          0.05f, 0.80f, 0.55f})};  // step     (x^6)
}

std::size_t token_characters(const std::string& token) {
  std::size_t n = 0;
  for (char c : token) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

namespace {

// 16 tokens of 16 numbers take a few KiB; the limits only stop hostile files early.
constexpr std::size_t kMaxInputsBytes = 1 * kMiB;
constexpr int kMaxInputsDepth = 64;

// `label` is how the caller names the file in messages (the CLI: "--inputs x.json").
[[noreturn]] void fail(const std::string& label, ErrorText what) {
  throw UsageError(error_text("core.fail", {label, std::move(what)}));
}

}  // namespace

Inputs parse_inputs(const std::string& json_text, const std::string& source, int min_rows) {  // source: the label
  JsonRules rules;
  rules.source = source;
  rules.fix = error_text("core.inputs.fix");
  rules.nonfinite_fix = error_text("core.inputs.nonfinite-fix");
  rules.depth_fix = error_text("core.inputs.depth-fix");
  rules.max_depth = kMaxInputsDepth;
  const nlohmann::json doc = parse_json_safely(json_text, rules);
  nlohmann::json rows;
  std::vector<std::string> tokens;
  if (doc.is_object()) {
    if (!doc.contains("inputs")) fail(source, error_text("core.inputs.no-inputs-key"));
    rows = doc["inputs"];
    if (doc.contains("tokens")) {
      if (!doc["tokens"].is_array()) fail(source, error_text("core.inputs.tokens-array"));
      for (const auto& t : doc["tokens"]) {
        if (!t.is_string()) fail(source, error_text("core.inputs.tokens-array"));
        tokens.push_back(t.get<std::string>());
        if (!is_printable_utf8(tokens.back()))
          fail(source, error_text("core.inputs.token-control", {std::to_string(tokens.size()), echo(tokens.back())}));
        if (token_characters(tokens.back()) > kMaxTokenChars)
          fail(source, error_text("core.inputs.token-long",
                                  {std::to_string(tokens.size()), echo(tokens.back()),
                                   std::to_string(token_characters(tokens.back())), std::to_string(kMaxTokenChars)}));
      }
    }
  } else {
    rows = doc;
  }
  if (!rows.is_array()) fail(source, error_text("core.inputs.not-array"));
  if (static_cast<int>(rows.size()) < min_rows)
    fail(source, error_text("core.inputs.few-rows", {std::to_string(rows.size()), std::to_string(min_rows)}));
  size_t cols = 0;
  std::vector<float> values;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (!row.is_array() || row.empty()) fail(source, error_text("core.inputs.row-empty", {std::to_string(i + 1)}));
    if (i == 0) cols = row.size();
    if (row.size() != cols)
      fail(source,
           error_text("core.inputs.ragged", {std::to_string(i + 1), std::to_string(row.size()), std::to_string(cols)}));
    for (size_t j = 0; j < row.size(); ++j) {
      if (!row[j].is_number())
        fail(source, error_text("core.inputs.not-number", {std::to_string(i + 1), std::to_string(j + 1)}));
      const double d = row[j].get<double>();
      const float f = static_cast<float>(d);
      if (!std::isfinite(d) || !std::isfinite(f))
        fail(source, error_text("core.inputs.not-finite", {std::to_string(i + 1), std::to_string(j + 1)}));
      values.push_back(f);
    }
  }
  if (tokens.empty()) {
    for (size_t i = 0; i < rows.size(); ++i) tokens.push_back("x" + std::to_string(i + 1));
  } else if (tokens.size() != rows.size()) {
    fail(source, error_text("core.inputs.token-count", {std::to_string(tokens.size()), std::to_string(rows.size())}));
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  return {tokens, Tensor({n, static_cast<int64_t>(cols)}, std::move(values))};
}

Inputs load_inputs(const std::string& path, const std::string& label, int min_rows) {
  const BoundedRead file = read_bounded(path, kMaxInputsBytes);
  switch (file.problem) {
    case BoundedRead::kNone:
      break;
    case BoundedRead::kIsDirectory:
      fail(label, error_text("core.inputs.directory"));
    case BoundedRead::kCannotOpen:
      fail(label, error_text("core.inputs.cannot-open", {file.reason}));
    case BoundedRead::kTooLarge:
      fail(label, error_text("core.inputs.too-large", {read_problem_text(file, kMaxInputsBytes)}));
    default:
      fail(label, error_text("core.inputs.unreadable", {read_problem_text(file, kMaxInputsBytes)}));
  }
  return parse_inputs(file.text, label, min_rows);
}

Inputs sentence_inputs(const std::string& sentence, int64_t d_in, uint64_t seed, const ErrorText& label) {
  std::istringstream words(sentence);
  std::vector<std::string> tokens;
  for (std::string w; words >> w;) tokens.push_back(w);
  for (const std::string& t : tokens) {
    if (!is_printable_utf8(t))
      throw UsageError(error_text("core.fail", {label, error_text("core.tokens.control", {echo(t)})}));
    if (token_characters(t) > kMaxTokenChars)
      throw UsageError(
          error_text("core.fail", {label, error_text("core.tokens.long", {echo(t), std::to_string(token_characters(t)),
                                                                          std::to_string(kMaxTokenChars)})}));
  }
  if (tokens.size() < 2)
    throw UsageError(error_text(tokens.empty() ? "core.tokens.none" : "core.tokens.one", {label, echo(sentence)}));
  Generator gen;
  gen.manual_seed(seed);
  const int64_t n = static_cast<int64_t>(tokens.size());
  return {tokens, Tensor({n, d_in}, rand_values(gen, n * d_in))};
}

}  // namespace attn
