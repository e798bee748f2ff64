#include "core/py_repr.h"

#include "core/safe_text.h"
#include "core/shortest_decimal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <utility>

namespace attn {

namespace {

std::string digits_text(const ShortestDecimal& d) { return std::to_string(d.digits); }

// "1.5e+07", "3e-05": d.ddd, then the exponent with a sign and at least two digits.
std::string scientific_text(const std::string& digits, int exp) {
  const std::string e = std::to_string(std::abs(exp));
  return digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + "e" + (exp < 0 ? "-" : "+") +
         (e.size() < 2 ? "0" : "") + e;
}

}  // namespace

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // 1. The shortest round-trip digits, and the exponent of the first: 1.4285714285714286 is
  //    "14285714285714286" and 0.
  const ShortestDecimal d = shortest_decimal(std::fabs(v));
  std::string digits = digits_text(d);
  const int exp = d.exponent + static_cast<int>(digits.size()) - 1;
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
    out = scientific_text(digits, exp);
  }
  return (std::signbit(v) ? "-" : "") + out;
}

// What std::to_chars(float) writes: the shortest digits, in fixed or scientific notation, whichever is
// shorter (fixed on a tie); a whole number in fixed notation is written exactly ("67108872", not the
// shortest digits' "67108870"). Written into a buffer: the JSON export writes millions of these.
std::string float32_text(float v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char out[64];
  int len = 0;
  if (std::signbit(v)) out[len++] = '-';
  if (v == 0) return std::string(out, static_cast<size_t>(len)) + "0";
  const ShortestDecimal d = shortest_decimal(std::fabs(v));
  char digits[24];
  int n = 0;
  for (uint64_t x = d.digits; x != 0; x /= 10) digits[n++] = static_cast<char>('0' + x % 10);
  std::reverse(digits, digits + n);
  // 1. The two lengths: "d.ddde+XX" and the positional form.
  const int exp = d.exponent + n - 1, exp_digits = std::abs(exp) >= 100 ? 3 : 2;
  const int scientific = n + (n > 1 ? 1 : 0) + 2 + exp_digits;
  const int fixed = d.exponent >= 0 ? n + d.exponent : n + d.exponent > 0 ? n + 1 : 2 - d.exponent;
  // 2. The shorter one. A fixed whole number has at most 14 digits (longer ones are shorter in
  //    scientific form), so it is exact in a uint64_t.
  if (fixed <= scientific) {
    if (d.exponent >= 0) {
      const std::string whole = std::to_string(static_cast<uint64_t>(std::fabs(v)));
      return std::string(out, static_cast<size_t>(len)) + whole;
    }
    const int point = n + d.exponent;  // digits before the decimal point
    if (point > 0) {
      std::memcpy(out + len, digits, static_cast<size_t>(point));
      len += point;
      out[len++] = '.';
      std::memcpy(out + len, digits + point, static_cast<size_t>(n - point));
      len += n - point;
    } else {
      out[len++] = '0';
      out[len++] = '.';
      for (int i = 0; i < -point; ++i) out[len++] = '0';
      std::memcpy(out + len, digits, static_cast<size_t>(n));
      len += n;
    }
    return std::string(out, static_cast<size_t>(len));
  }
  out[len++] = digits[0];
  if (n > 1) {
    out[len++] = '.';
    std::memcpy(out + len, digits + 1, static_cast<size_t>(n - 1));
    len += n - 1;
  }
  len += std::snprintf(out + len, sizeof out - static_cast<size_t>(len), "e%c%0*d", exp < 0 ? '-' : '+', exp_digits,
                       std::abs(exp));
  return std::string(out, static_cast<size_t>(len));
}

}  // namespace attn

namespace attn {
namespace {

struct CodeRange {
  char32_t first, last;
};

constexpr CodeRange kNotPrintable[] = {
#include "core/py_printable.inc"
};

bool py_printable(char32_t c) {
  size_t lo = 0, hi = sizeof kNotPrintable / sizeof kNotPrintable[0];
  while (lo < hi) {  // the first range whose end is at or after c
    const size_t mid = (lo + hi) / 2;
    if (kNotPrintable[mid].last < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return !(lo < sizeof kNotPrintable / sizeof kNotPrintable[0] && kNotPrintable[lo].first <= c);
}

// Python's str.isspace() (what str.split() splits at).
bool py_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Unicode's space separators (Zs), which a comment keeps although repr() escapes all but U+0020.
bool space_separator(char32_t c) {
  return c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

}  // namespace

namespace {

// repr()'s escape of a character it does not show as itself.
std::string escape(char32_t c) {
  if (c == '\n') return "\\n";
  if (c == '\r') return "\\r";
  if (c == '\t') return "\\t";
  char buf[16];
  if (c <= 0xFF)
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
  else if (c <= 0xFFFF)
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  else
    std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(c));
  return buf;
}

// `text` character by character: each valid one with its bytes, each undecodable byte as a lone
// surrogate U+DC80..U+DCFF (Python's surrogateescape) with no bytes of its own.
template <class Visit>
void each_character(const std::string& text, Visit visit) {
  for (size_t i = 0; i < text.size();) {
    const auto [c, n] = decode_utf8(text, i);
    if (n == 0) {
      visit(static_cast<char32_t>(0xDC00 + static_cast<unsigned char>(text[i])), std::string());
      ++i;
    } else {
      visit(c, text.substr(i, n));
      i += n;
    }
  }
}

}  // namespace

std::string py_str(const std::string& text) {
  const bool has_single = text.find('\'') != std::string::npos, has_double = text.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  out.reserve(text.size() + 2);
  each_character(text, [&](char32_t c, const std::string& bytes) {
    if (c == static_cast<char32_t>(quote) || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c == ' ' || (!bytes.empty() && py_printable(c)))
      out += bytes;
    else
      out += escape(c);
  });
  return out + quote;
}

std::string py_comment(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  each_character(text, [&](char32_t c, const std::string& bytes) {
    if (!bytes.empty() && (py_printable(c) || space_separator(c)))
      out += bytes;
    else
      out += escape(c);
  });
  return out;
}

bool py_splits_back(const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    if (w.empty()) return false;
    bool space = false;
    each_character(w, [&](char32_t c, const std::string&) { space = space || py_space(c); });
    if (space) return false;
  }
  return true;
}

}  // namespace attn
