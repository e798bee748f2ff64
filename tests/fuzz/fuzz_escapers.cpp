// libFuzzer target: the Python and HTML escapers (make fuzz). Any bytes in:
//  - py_str writes one Python literal that reads back (tests/py_literal.h) to exactly the bytes given,
//    on one line, without a raw control character or a byte that is not UTF-8;
//  - py_comment writes no control character, line or paragraph separator, bidi control or bad byte;
//  - html_escape writes valid UTF-8 with no raw < > " ', no & but of its own entities, and no control
//    character but \n and \t;
//  - the first 4 (8) bytes as a float (double): float32_text (py_float) reads back as the same value,
//    with both shortest-digit methods of core/shortest_decimal agreeing.
// A failed property aborts (a finding); so do sanitizer reports.
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/py_repr.h"
#include "core/shortest_decimal.h"
#include "core/safe_text.h"
#include "notebook/html_escape.h"
#include "py_literal.h"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

// Valid UTF-8 without C0/C1 controls (but those `allowed`), DEL, bidi controls, and unless
// `separators`, U+2028/U+2029 (which end a line for some editors; harmless in HTML).
void require_clean_utf8(const std::string& s, const std::string& allowed = "", bool separators = false) {
  for (size_t i = 0; i < s.size();) {
    const auto [c, n] = attn::decode_utf8(s, i);
    require(n != 0);
    const bool control = c < 0x20 || (c >= 0x7F && c < 0xA0);
    require(!control || allowed.find(static_cast<char>(c)) != std::string::npos);
    require(separators || (c != 0x2028 && c != 0x2029));
    require(!(c >= 0x202A && c <= 0x202E) && !(c >= 0x2066 && c <= 0x2069));
    i += n;
  }
}

// The first sizeof(T) bytes as a T: when finite, `text` of it reads back (`read`) as the same value and
// sign; for a float the exact and the trial shortest digits agree.
template <class T, class Text, class Read>
void require_reads_back(const uint8_t* data, size_t size, Text text, Read read) {
  if (size < sizeof(T)) return;
  T v;
  std::memcpy(&v, data, sizeof v);
  if (!std::isfinite(v)) return;
  const T back = read(text(v).c_str());
  require(back == v && std::signbit(back) == std::signbit(v));
  if constexpr (sizeof(T) == sizeof(float)) {
    if (v == 0) return;
    const attn::ShortestDecimal a = attn::shortest_decimal(std::fabs(v)),
                                b = attn::shortest_decimal_by_trial(std::fabs(v));
    require(a.digits == b.digits && a.exponent == b.exponent);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  const std::string literal = attn::py_str(text);
  require_clean_utf8(literal);
  const auto back = attn_test::read_py_literal(literal);
  require(back.has_value() && *back == text);

  require_clean_utf8(attn::py_comment(text));

  require_reads_back<float>(data, size, attn::float32_text, [](const char* t) { return std::strtof(t, nullptr); });
  require_reads_back<double>(data, size, attn::py_float, [](const char* t) { return std::strtod(t, nullptr); });

  const std::string html = attn::html_escape(text);
  require_clean_utf8(html, "\n\t", true);
  for (size_t i = 0; i < html.size(); ++i) {
    const char c = html[i];
    require(c != '<' && c != '>' && c != '"' && c != '\'');
    if (c == '&') {
      bool entity = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"})
        entity = entity || html.compare(i, std::char_traits<char>::length(e), e) == 0;
      require(entity);
    }
  }
  return 0;
}
