#pragma once
// One sentence for the learner, kept as data until it is shown: a key of a text table with its values
// (each a plain value or, nested, another keyed sentence), or (key empty) a value as it is. The
// lessons' notes (notebook/prose.h, `Prose`) and the errors (core/usage_error.h, `ErrorText`) are
// this one type; the language is chosen where it is rendered.
#include <string>
#include <utility>
#include <vector>

namespace attn {

struct Prose {
  std::string key;        // empty: `literal` as it is
  std::string case_name;  // one case of an entry with cases (en[case] = ...); empty: its plain en/zh
  std::vector<Prose> args;
  std::string literal;

  Prose() = default;
  Prose(std::string value) : literal(std::move(value)) {}  // NOLINT: values convert implicitly
  Prose(const char* value) : literal(value) {}             // NOLINT
  bool empty() const { return key.empty() && literal.empty(); }
};

}  // namespace attn
