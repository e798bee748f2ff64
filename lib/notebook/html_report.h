#pragma once
// The notebook as one self-contained HTML page: inline CSS and SVG, no scripts, no external files.
// Each cell's code, output, shape and annotation, and an SVG heatmap for every attention matrix
// (lib/attention_matrix.h's rule) with the tokens on both axes and the value in each cell.
#include <string>

#include "notebook/notebook.h"

namespace attn {

// In `lang`, with the longer explanations when `explain`.
std::string html_report(const Notebook& nb, Lang lang = Lang::En, bool explain = false);

// Text for HTML content and attribute values: & < > " ' escaped, control characters replaced.
std::string html_escape(const std::string& text);

}  // namespace attn
