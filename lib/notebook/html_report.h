#pragma once
// The notebook as one self-contained HTML page: inline CSS and SVG, no scripts, no external files.
// A table of contents (sections and cells, linked), the settings as a table and the command that
// makes the page, then each cell's code, output, shape and annotation, and the pictures of
// notebook_maps.h (html_maps.h). Everything the page says is in `lang` (<html lang="zh"> in Chinese).
#include <string>

#include "notebook/html_maps.h"
#include "notebook/notebook.h"

namespace attn {

// In `lang`, with the longer explanations when `explain`. `command` is the command line that makes
// the page (the caller knows the CLI; empty: not shown).
std::string html_report(const Notebook& nb, Lang lang = Lang::En, bool explain = false,
                        const std::string& command = "");

}  // namespace attn
