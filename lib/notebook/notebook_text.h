#pragma once
// The notebook as terminal text: code as a Python session (>>>), PyTorch's output verbatim,
// then the shape and the annotation as comments; with `heatmap`, each attention matrix as a grid
// right after its output.
#include <string>

#include "notebook/heatmap.h"
#include "notebook/notebook.h"

namespace attn {

struct TextOptions {
  bool color = false;                // ANSI styles for headings, code, shapes, notes
  bool heatmap = false;              // draw attention matrices (lib/attention_matrix.h's rule)
  Palette palette = Palette::None;   // the heatmaps' colours
  Lang lang = Lang::En;              // the language of titles and notes
  bool explain = false;              // show the longer explanation of each cell
};

std::string render_text(const Notebook& nb, const TextOptions& options);

}  // namespace attn
