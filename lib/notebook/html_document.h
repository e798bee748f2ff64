#pragma once
// A command's report as one self-contained HTML document (check, verify, kv-memory): inline CSS, no
// scripts, no external files, <html lang> in the report's language. The page of the WebAssembly build
// takes the <body>'s content and leaves the <style> out, so everything the report means is in its
// elements and class names, not in the CSS.
#include <string>

#include "notebook/prose.h"

namespace attn {

// `title` is text (escaped here with html_escape); `css` is added after the common rules (fonts, pre,
// tables, .verdict); `body` is HTML, every piece of it escaped by the caller.
std::string html_document(Lang lang, const std::string& title, const std::string& css, const std::string& body);

// The shell every HTML output shares (the commands' reports above and a lesson's report,
// notebook/html_report.h): doctype, <html lang>, charset, viewport, title, the one <style>, the body.
std::string html_shell(Lang lang, const std::string& title, const std::string& css, const std::string& body);

}  // namespace attn
