#include "strict_integer.h"

#include <cctype>
#include <charconv>

namespace attn {

namespace {

// Decimal digits with an optional leading '-'.
bool digits(const std::string& text) {
  const size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == sign) return false;
  for (size_t i = sign; i < text.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  return true;
}

}  // namespace

bool strict_integer(const std::string& text, int64_t& value) {
  if (!digits(text)) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, 10);
  return ec == std::errc() && ptr == end;
}

namespace {

// A transform, not a check: the text it passes on is the number's canonical spelling, so that CLI11,
// which reads "016" as octal 14, reads 16.
CLI::Validator check(const std::string& range) {
  return CLI::Validator(
      [range](std::string& text) -> std::string {
        int64_t v = 0;
        if (strict_integer(text, v)) {
          text = std::to_string(v);
          return "";
        }
        if (!range.empty()) return "Value " + text + " not in range " + range;
        return digits(text) ? "too many digits" : "not a whole number";
      },
      "", "strict integer");  // no description: --help stays as it was
}

}  // namespace

CLI::Validator strict_integer_check() { return check(""); }

CLI::Validator strict_integer_check(int64_t min, int64_t max) {
  return check(std::to_string(min) + " to " + std::to_string(max));
}

}  // namespace attn
