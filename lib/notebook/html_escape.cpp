#include "notebook/html_escape.h"

#include "core/py_repr.h"
#include "core/safe_text.h"

namespace attn {

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto [c, n] = decode_utf8(text, i);
    switch (n == 0 ? U'\ufffd' : c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters, bytes that are not UTF-8 and the bidi embeddings, overrides and isolates
        // (which would reorder the text after them on screen) become U+FFFD.
        if (n == 0 || (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c < 0xa0) || (c >= 0x202a && c <= 0x202e) ||
            (c >= 0x2066 && c <= 0x2069))
          out += "\ufffd";
        else
          out.append(text, i, n);
    }
    i += n == 0 ? 1 : n;
  }
  return out;
}

}  // namespace attn
