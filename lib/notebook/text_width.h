#pragma once
// Terminal columns of UTF-8 text, and line wrapping that also works for Chinese (which has no
// spaces between words and whose characters take two columns).
#include <string>

namespace attn {

size_t display_width(const std::string& utf8);

// Wraps `text` at `width` columns, each line starting with `prefix`; every line ends with '\n'.
// Breaks at spaces and between CJK characters, never right before CJK punctuation.
std::string wrap_text(const std::string& text, const std::string& prefix, size_t width);

}  // namespace attn
