#include "notebook/text_width.h"

#include <vector>

namespace attn {
namespace {

struct Glyph {
  std::string bytes;
  char32_t code = 0;
};

// UTF-8 into characters; a stray or truncated byte is one character of its own.
std::vector<Glyph> glyphs_of(const std::string& s) {
  std::vector<Glyph> out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    if (i + len > s.size()) len = 1;
    char32_t c = len == 1 ? b : b & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back({s.substr(i, len), c});
    i += len;
  }
  return out;
}

// East Asian wide characters take two columns (CJK, Hangul, full-width forms, emoji).
bool is_wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1FAFF) || (c >= 0x20000 && c <= 0x3FFFD);
}

// Punctuation that must not start a line: ，。；：、！？）」』》 and their full-width kin.
bool no_break_before(char32_t c) {
  switch (c) {
    case 0xFF0C:
    case 0x3002:
    case 0xFF1B:
    case 0xFF1A:
    case 0x3001:
    case 0xFF01:
    case 0xFF1F:
    case 0xFF09:
    case 0x300D:
    case 0x300F:
    case 0x300B:
    case 0x201D:
    case 0x2019:
      return true;
    default:
      return false;
  }
}

// Opening brackets: a line may break right before one.
bool opens(char32_t c) {
  return c == 0xFF08 || c == 0x300C || c == 0x300E || c == 0x300A || c == 0x201C || c == 0x2018;
}

// Punctuation a line may break right after (besides a space): the CJK commas, stops and closing brackets.
bool break_after(char32_t c) { return no_break_before(c) && c != 0x201D && c != 0x2019; }

// A piece of text: `space_before` when a space separates it from the piece before.
struct Unit {
  std::string text;
  size_t width = 0;
  bool space_before = false;
};

// The pieces a line may break between: at spaces, after CJK punctuation and before an opening
// bracket. So an English word, a number (0.4419, -1.2e-05) or a run of Chinese between two
// punctuation marks stays whole, and so does an identifier written inside Chinese.
std::vector<Unit> pieces_of(const std::string& text) {
  std::vector<Unit> units;
  bool space = false, after_punct = false;
  for (const Glyph& g : glyphs_of(text)) {
    if (g.code == ' ' || g.code == '\n' || g.code == '\t') {
      space = true;
      continue;
    }
    const size_t w = is_wide(g.code) ? 2 : 1;
    const bool glue = !units.empty() && !space && (no_break_before(g.code) || (!after_punct && !opens(g.code)));
    if (glue) {
      units.back().text += g.bytes;
      units.back().width += w;
    } else {
      units.push_back({g.bytes, w, space});
    }
    after_punct = break_after(g.code);
    space = false;
  }
  return units;
}

// The fallback for a piece wider than a whole line: one CJK character (with the punctuation after
// it) or one ASCII run per unit, so a line breaks between Chinese characters but never inside an
// identifier or a number.
std::vector<Unit> characters_of(const Unit& piece) {
  std::vector<Unit> units;
  bool in_word = false;
  for (const Glyph& g : glyphs_of(piece.text)) {
    const bool wide = is_wide(g.code);
    if (!units.empty() && (no_break_before(g.code) || (in_word && !wide))) {
      units.back().text += g.bytes;
      units.back().width += wide ? 2 : 1;
    } else {
      units.push_back({g.bytes, static_cast<size_t>(wide ? 2 : 1), units.empty() && piece.space_before});
    }
    in_word = !wide;
  }
  return units;
}

}  // namespace

std::vector<std::pair<std::string, size_t>> display_characters(const std::string& utf8) {
  std::vector<std::pair<std::string, size_t>> out;
  for (const Glyph& g : glyphs_of(utf8)) out.push_back({g.bytes, is_wide(g.code) ? 2 : 1});
  return out;
}

size_t display_width(const std::string& utf8) {
  size_t w = 0;
  for (const Glyph& g : glyphs_of(utf8)) w += is_wide(g.code) ? 2 : 1;
  return w;
}

std::string wrap_text(const std::string& text, const std::string& prefix, size_t width) {
  std::string out, line;
  size_t line_width = 0;
  const size_t room = width > display_width(prefix) ? width - display_width(prefix) : 1;
  auto place = [&](const Unit& u) {
    const size_t gap = line.empty() || !u.space_before ? 0 : 1;
    if (!line.empty() && line_width + gap + u.width > room) {
      out += prefix + line + "\n";
      line.clear();
      line_width = 0;
    }
    if (!line.empty() && u.space_before) {
      line += " ";
      ++line_width;
    }
    line += u.text;
    line_width += u.width;
  };
  for (const Unit& piece : pieces_of(text)) {
    const size_t gap = line.empty() || !piece.space_before ? 0 : 1;
    if (piece.width <= room || line_width + gap + piece.width <= room) {
      place(piece);
      continue;
    }
    for (const Unit& u : characters_of(piece)) place(u);  // wider than a line: break between characters
  }
  if (!line.empty()) out += prefix + line + "\n";
  return out;
}

std::string strip_escapes(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b') {
      while (i < line.size() && line[i] != 'm') ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

size_t visible_width(const std::string& line) { return display_width(strip_escapes(line)); }

}  // namespace attn
