#pragma once
// The notebook as terminal text: code as a Python session (>>>), PyTorch's output verbatim,
// then the shape and the annotation as comments; with `heatmap`, each attention matrix as a grid
// right after its output.
#include <string>
#include <vector>

#include "notebook/heatmap.h"
#include "notebook/notebook.h"

namespace attn {

struct TextOptions {
  bool color = false;               // ANSI styles for headings, code, shapes, notes
  bool heatmap = false;             // draw attention matrices (lib/attention_matrix.h's rule)
  Palette palette = Palette::None;  // the heatmaps' colours
  Lang lang = Lang::En;             // the language of titles and notes
  bool explain = false;             // show the longer explanation of each cell
  std::string from;                 // start at this section heading ("3.5.2") or cell ("7"); empty: the start
};

// Throws std::invalid_argument when options.from names no section or cell of the notebook.
std::string render_text(const Notebook& nb, const TextOptions& options);

// Where the text starts for `from` (a section as its headings name it, "3.5.2" or "§3.5.2", or the
// first section under a prefix, "3.5"; or a cell number, "7" = In [7], with the heading right before
// it): the index into nb.items(), or -1 when there is no such section or cell. "" is 0.
int start_item(const Notebook& nb, const std::string& from);
// The sections of the notebook's headings, each once, in order, and its number of cells.
std::vector<std::string> start_sections(const Notebook& nb);
int cell_count(const Notebook& nb);
// Where a line of Python's comment starts: its first '#' outside a string literal; npos when it has none.
size_t python_comment_start(const std::string& line);

}  // namespace attn
