#pragma once
// Learner-facing prose kept apart from the code that computes: a lesson records a key into its text
// table and the values the sentence quotes; the language is chosen when the notebook is rendered.
//
// A text table is plain UTF-8 text, one entry per key:
//   [key]
//   en = Survivors are multiplied by 1/(1-p) = {1}.
//   zh = 幸存的元素乘以 1/(1-p) = {1}。
// {1}, {2}, ... are the recorded values ({{ and }} are literal braces); "\n" is a line break.
#include <map>
#include <string>
#include <vector>

namespace attn {

enum class Lang { En, Zh };

// One sentence to show: a key with its values, or (key empty) a value as it is.
struct Prose {
  std::string key;
  std::vector<Prose> args;
  std::string literal;

  Prose() = default;
  Prose(std::string value) : literal(std::move(value)) {}  // NOLINT: values convert implicitly
  Prose(const char* value) : literal(value) {}              // NOLINT
};

// A keyed sentence: text("dropout.kept", {kept, total}).
Prose text(std::string key, std::vector<Prose> args = {});

class TextTable {
 public:
  // Parses `source` (named `origin` in error messages); keys missing here are looked up in `fallback`.
  TextTable(const std::string& origin, const std::string& source, const TextTable* fallback = nullptr);

  // The sentence in `lang` with its values filled in; "[no text: key]" when the key is unknown.
  std::string render(const Prose& prose, Lang lang) const;
  bool has(const std::string& key) const;
  // Every key with a missing or empty language, as "origin: [key] zh".
  std::vector<std::string> incomplete() const;
  const std::string& origin() const { return origin_; }
  std::vector<std::string> keys() const;

 private:
  struct Entry {
    std::string en, zh;
  };
  const Entry* find(const std::string& key) const;

  std::string origin_;
  std::map<std::string, Entry> entries_;
  const TextTable* fallback_ = nullptr;
};

}  // namespace attn
