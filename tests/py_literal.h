#pragma once
// A reader of one Python string literal as py_str (lib/core/py_repr.h) writes them: '...' or "...",
// with \\ \' \" \n \r \t \xNN \uNNNN \UNNNNNNNN and characters as UTF-8. It returns the bytes that
// `literal` read by Python and encoded with .encode("utf-8", "surrogateescape") gives, or nothing
// when the literal is not one well-formed literal of that kind (an unknown escape, a raw quote, line
// break or control character, a surrogate that no byte stands for). The tests and the escapers'
// fuzz target read py_str's output back with it; tests/check_exports.py asks Python itself.
#include <cstdint>
#include <optional>
#include <string>

namespace attn_test {

inline void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

inline std::optional<std::string> read_py_literal(const std::string& literal) {
  if (literal.size() < 2) return std::nullopt;
  const char quote = literal.front();
  if ((quote != '\'' && quote != '"') || literal.back() != quote) return std::nullopt;
  std::string out;
  const size_t end = literal.size() - 1;
  for (size_t i = 1; i < end;) {
    const unsigned char c = static_cast<unsigned char>(literal[i]);
    if (c == static_cast<unsigned char>(quote) || c == '\n' || c == '\r' || c < 0x20 || c == 0x7F) return std::nullopt;
    if (c != '\\') {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (i + 1 >= end) return std::nullopt;
    const char e = literal[i + 1];
    i += 2;
    int digits = 0;
    switch (e) {
      case '\\':
        out += '\\';
        continue;
      case '\'':
        out += '\'';
        continue;
      case '"':
        out += '"';
        continue;
      case 'n':
        out += '\n';
        continue;
      case 'r':
        out += '\r';
        continue;
      case 't':
        out += '\t';
        continue;
      case 'x':
        digits = 2;
        break;
      case 'u':
        digits = 4;
        break;
      case 'U':
        digits = 8;
        break;
      default:
        return std::nullopt;
    }
    if (i + digits > end) return std::nullopt;
    uint32_t v = 0;
    for (int k = 0; k < digits; ++k) {
      const char h = literal[i + static_cast<size_t>(k)];
      const int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (d < 0) return std::nullopt;
      v = v * 16 + static_cast<uint32_t>(d);
    }
    i += static_cast<size_t>(digits);
    if (v > 0x10FFFF) return std::nullopt;
    if (v >= 0xDC80 && v <= 0xDCFF)
      out += static_cast<char>(v - 0xDC00);  // surrogateescape: the byte
    else if (v >= 0xD800 && v <= 0xDFFF)
      return std::nullopt;  // no byte stands for it
    else
      append_utf8(out, v);
  }
  return out;
}

}  // namespace attn_test
