#pragma once
// Terminal columns of UTF-8 text, and line wrapping that also works for Chinese (which has no
// spaces between words and whose characters take two columns).
#include <string>
#include <utility>
#include <vector>

namespace attn {

// The one measure of terminal columns: wide (CJK) characters take two, every other character one.
size_t display_width(const std::string& utf8);
// `line` without its ANSI colour sequences (ESC ... m).
std::string strip_escapes(const std::string& line);
// Columns of a line on the terminal, ANSI colour sequences not counted.
size_t visible_width(const std::string& line);
// The characters of `utf8` with their columns.
std::vector<std::pair<std::string, size_t>> display_characters(const std::string& utf8);

// Wraps `text` at `width` columns, each line starting with `prefix`; every line ends with '\n'.
// Breaks at spaces, after CJK punctuation (，。；：、） and the like) and before an opening bracket,
// so no word, number or Chinese word is split; only a run with no such point that is wider than a
// whole line breaks between its Chinese characters (never inside an ASCII run, never before ，。).
std::string wrap_text(const std::string& text, const std::string& prefix, size_t width);

}  // namespace attn
