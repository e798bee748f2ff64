#pragma once
// Bad input from the learner: one line naming the problem and the fix; the CLI exits 2.
//
// lib/, lessons/ and features/ raise an error as a *key* of a text table with its values
// (ErrorText); the app renders it in the learner's language where it prints it
// (error_message in lessons/ui_text.h). The prose is in the tables (lib/core/text.txt,
// lessons/errors.txt, features/NAME/text.txt), en and zh, never here.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/prose_value.h"

namespace attn {

// A key with its values (core/prose_value.h): the error's sentence.
using ErrorText = Prose;

inline ErrorText error_text(std::string key, std::vector<ErrorText> args = {}) {
  ErrorText t;
  t.key = std::move(key);
  t.args = std::move(args);
  return t;
}

struct UsageError : std::runtime_error {
  // A message already in the learner's language (the app's own, from app/text.txt).
  explicit UsageError(const std::string& message) : std::runtime_error(message), text_(message) {}
  // A keyed message; what() is only its key (for logs): render it with error_message().
  explicit UsageError(ErrorText text) : std::runtime_error("[" + text.key + "]"), text_(std::move(text)) {}
  const ErrorText& text() const { return text_; }

 private:
  ErrorText text_;
};

}  // namespace attn
