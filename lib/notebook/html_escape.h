#pragma once
// The one way text reaches the HTML report (tokens, settings, the command, prose, captions).
#include <string>

namespace attn {

// Text for HTML content and attribute values: & < > " ' escaped; control characters (C0 but \n and
// \t, DEL, C1), bytes that are not UTF-8 and bidi embeddings/overrides/isolates replaced by U+FFFD.
std::string html_escape(const std::string& text);

}  // namespace attn
