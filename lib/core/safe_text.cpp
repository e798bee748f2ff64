#include "core/safe_text.h"

#include <cstdio>
#include <vector>

namespace attn {

std::pair<char32_t, std::size_t> decode_utf8(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return byte(k) >= lo && byte(k) <= hi;
  };
  const unsigned c = byte(i);
  if (c < 0x80) return {c, 1};
  std::size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF)
    n = cont(i + 1) ? 2 : 0;
  else if (c == 0xE0)
    n = cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
  else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
    n = cont(i + 1) && cont(i + 2) ? 3 : 0;
  else if (c == 0xED)
    n = cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
  else if (c == 0xF0)
    n = cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  else if (c >= 0xF1 && c <= 0xF3)
    n = cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  else if (c == 0xF4)
    n = cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (n == 0) return {0, 0};
  char32_t v = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < n; ++k) v = (v << 6) | (byte(i + k) & 0x3F);
  return {v, n};
}

namespace {

std::string hex_escape(unsigned char c) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02x", c);
  return text;
}

std::string code_point_escape(char32_t c) {
  char text[16];
  std::snprintf(text, sizeof text, "\\u%04x", static_cast<unsigned>(c));
  return text;
}

// U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069: the bidi marks, embeddings, overrides and isolates,
// which reorder how the rest of a terminal line reads.
bool is_bidi_control(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

// The characters of `s`, each as it is to be shown: itself, or an escape; `escape_bidi`: the bidi
// controls too (\u202e).
std::vector<std::string> shown_characters(const std::string& s, bool escape_bidi = true) {
  std::vector<std::string> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto [c, n] = decode_utf8(s, i);
    if (n == 0) {
      out.push_back(hex_escape(static_cast<unsigned char>(s[i])));
      ++i;
      continue;
    }
    if (c < 0x20 || c == 0x7F) {
      out.push_back(c == '\n'   ? "\\n"
                    : c == '\t' ? "\\t"
                    : c == '\r' ? "\\r"
                    : c == 0x1B ? "\\e"
                                : hex_escape(static_cast<unsigned char>(c)));
    } else if ((c >= 0x80 && c < 0xA0) || (escape_bidi && is_bidi_control(c))) {
      out.push_back(code_point_escape(c));  // C1 controls (some terminals obey them), bidi controls
    } else {
      out.push_back(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string join(const std::vector<std::string>& chars, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) out += chars[i];
  return out;
}

// At most `max_chars` characters: the first and last parts around "…".
std::string shorten(const std::vector<std::string>& chars, std::size_t max_chars) {
  if (chars.size() <= max_chars) return join(chars, 0, chars.size());
  const std::size_t keep = max_chars > 1 ? max_chars - 1 : 1;
  const std::size_t head = (keep + 1) / 2, tail = keep - head;
  return join(chars, 0, head) + "\u2026" + join(chars, chars.size() - tail, chars.size());
}

}  // namespace

std::string echo(const std::string& value, std::size_t max_chars) {
  // A long value is cut to its two ends first, on character boundaries (at least max_chars characters
  // each), so that showing 8 MiB of it costs no more than showing 1 KiB; what is shown is the same.
  const std::size_t keep = 4 * max_chars + 8;
  if (value.size() <= 2 * keep) return shorten(shown_characters(value), max_chars);
  const auto boundary = [&](std::size_t at) {
    while (at > 0 && (static_cast<unsigned char>(value[at]) & 0xC0) == 0x80) --at;
    return at;
  };
  return shorten(shown_characters(value.substr(0, boundary(keep)) + value.substr(boundary(value.size() - keep))),
                 max_chars);
}

std::string clean_message(const std::string& message) {
  constexpr std::size_t kLongestWord = 64, kShortWord = 49, kLongestMessage = 1000;
  const std::vector<std::string> chars = shown_characters(message);
  std::vector<std::string> out;
  out.reserve(chars.size());
  std::size_t word_start = 0;
  const auto end_word = [&](std::size_t end) {
    std::vector<std::string> word(chars.begin() + static_cast<std::ptrdiff_t>(word_start),
                                  chars.begin() + static_cast<std::ptrdiff_t>(end));
    if (word.size() > kLongestWord)
      out.push_back(shorten(word, kShortWord));
    else
      out.insert(out.end(), word.begin(), word.end());
  };
  // A word ends at a space, and at a character of U+0800 or above (3 or 4 UTF-8 bytes: Chinese,
  // its punctuation), which stands as its own word: Chinese puts no space between a path and "：".
  for (std::size_t i = 0; i < chars.size(); ++i)
    if (chars[i] == " " || (chars[i].size() >= 3 && static_cast<unsigned char>(chars[i][0]) >= 0xE0)) {
      end_word(i);
      out.push_back(chars[i]);
      word_start = i + 1;
    }
  end_word(chars.size());
  if (out.size() <= kLongestMessage) return join(out, 0, out.size());
  return join(out, 0, 600) + " \u2026 " + join(out, out.size() - 390, out.size());
}

bool is_printable_utf8(const std::string& text) {
  for (const std::string& c : shown_characters(text, false))
    if (c.size() > 1 && c[0] == '\\') return false;
  return true;
}

}  // namespace attn
