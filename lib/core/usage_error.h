#pragma once
// Bad input from the learner: one line naming the problem and the fix; the CLI exits 2.
#include <stdexcept>
#include <string>

namespace attn {

struct UsageError : std::runtime_error {
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace attn
