#pragma once
// The token embeddings a lesson runs on: the book's six 3-d embeddings of
// "Your journey starts with one step", or the learner's own (--inputs FILE).
#include <string>
#include <vector>

#include <cstdint>

#include "core/tensor.h"
#include "core/usage_error.h"

namespace attn {

struct Inputs {
  std::vector<std::string> tokens;  // one label per row
  Tensor embeddings;                // (num_tokens, d_in)
};

Inputs book_inputs();

// A token is a label: at most this many characters (code points), so that sixteen of them cannot make
// a page, a picture or a heading grow without bound (pictures shorten them further: label_text).
// --tokens, --inputs and check's exports share it: a lesson's own export always passes check.
constexpr std::size_t kMaxTokenChars = 1000;
// The characters (UTF-8 code points; a stray byte counts as one) of `token`.
std::size_t token_characters(const std::string& token);

// Parses `[[...], ...]` or `{"tokens": [...], "inputs": [[...], ...]}`. Throws UsageError with one
// line naming the problem and the fix: malformed JSON, ragged rows, non-numbers, NaN/inf
// (including numbers too large for float32), fewer than `min_rows` rows.
// `source` / `label`: how messages name the input (the CLI passes "--inputs x.json", "--tokens").
Inputs parse_inputs(const std::string& json_text, const std::string& source, int min_rows = 2);
Inputs load_inputs(const std::string& path, const std::string& label, int min_rows = 2);

// --tokens: one row per whitespace-separated word, torch.rand(num_words, d_in) after
// torch.manual_seed(seed). Throws UsageError for fewer than 2 words, a word with a control character or
// bytes that are not UTF-8, and a word over 1000 characters (tokens of a file: the same two rules).
Inputs sentence_inputs(const std::string& sentence, int64_t d_in, uint64_t seed, const ErrorText& label);

}  // namespace attn
