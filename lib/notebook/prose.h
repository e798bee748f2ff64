#pragma once
// Learner-facing prose kept apart from the code that computes: a lesson records a key into its text
// table and the values the sentence quotes; the language is chosen when the notebook is rendered.
//
// A text table is plain UTF-8 text, one entry per key:
//   [key]
//   en = Survivors are multiplied by 1/(1-p) = {1}.
//   zh = 幸存的元素乘以 1/(1-p) = {1}。
// {1}, {2}, ... are the recorded values ({{ and }} are literal braces); "\n" is a line break.
//
// A sentence whose wording depends on a condition is still one entry, each case a whole sentence,
// the case named in brackets (no plain en/zh beside them):
//   [attn_weights.explain]
//   en[own_seed] = ... one block per text. In training ...
//   zh[own_seed] = ...
//   en[book_seeds] = ... one block per text (other numbers than in 3.5.1: ...). In training ...
//   zh[book_seeds] = ...
// The caller names the case: text_case("attn_weights.explain", "own_seed"), nb.explain_case(...).
// Every case needs both languages (incomplete() names the missing ones).
#include <map>
#include <string>
#include <vector>

#include "core/prose_value.h"

namespace attn {

enum class Lang { En, Zh };

// A keyed sentence: text("dropout.kept", {kept, total}).
Prose text(std::string key, std::vector<Prose> args = {});
// One case of a keyed sentence with cases: text_case("dropout_mask.confusion", "mkl").
Prose text_case(std::string key, std::string case_name, std::vector<Prose> args = {});

class TextTable {
 public:
  // Parses `source` (named `origin` in error messages); keys missing here are looked up in `fallback`.
  TextTable(const std::string& origin, const std::string& source, const TextTable* fallback = nullptr);

  // The sentence in `lang` with its values filled in; "[no text: key]" when the key is unknown,
  // "[no text: key[case]]" when the key has no such case (or has cases and none was named).
  std::string render(const Prose& prose, Lang lang) const;
  bool has(const std::string& key) const;
  // Every key (and every case of a key) with a missing or empty language, as "origin: [key] zh" or
  // "origin: [key] zh[case]".
  std::vector<std::string> incomplete() const;
  const std::string& origin() const { return origin_; }
  std::vector<std::string> keys() const;
  // The cases of `key` (en[case] = ...), in the table's order of names; empty for a plain entry.
  std::vector<std::string> cases(const std::string& key) const;

 private:
  struct Sentence {
    std::string en, zh;
  };
  struct Entry {
    std::string en, zh;
    std::map<std::string, Sentence> cases;
  };
  const Entry* find(const std::string& key) const;

  std::string origin_;
  std::map<std::string, Entry> entries_;
  const TextTable* fallback_ = nullptr;
};

}  // namespace attn
