#include "core/py_repr.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <system_error>

namespace attn {

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // 1. The shortest round-trip digits, in scientific form: "-1.4285714285714286e+00".
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string s(buf, res.ptr);
  const size_t e_at = s.find('e');
  const int exp = std::atoi(s.c_str() + e_at + 1);
  const bool neg = s[0] == '-';
  std::string digits;
  for (size_t i = neg ? 1 : 0; i < e_at; ++i)
    if (s[i] != '.') digits += s[i];
  // 2. Python writes positional notation for 1e-4 <= |v| < 1e16, else d.ddde±XX.
  std::string out;
  if (exp >= -4 && exp < 16) {
    const size_t point = static_cast<size_t>(exp + 1);
    if (exp < 0) {
      out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else {
      if (digits.size() < point) digits += std::string(point - digits.size(), '0');
      out = digits.substr(0, point) + "." + (digits.size() > point ? digits.substr(point) : "0");
    }
  } else {
    const std::string e = std::to_string(std::abs(exp));
    out = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + "e" + (exp < 0 ? "-" : "+") +
          (e.size() < 2 ? "0" : "") + e;
  }
  return (neg ? "-" : "") + out;
}

std::string float32_text(float v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

}  // namespace attn
