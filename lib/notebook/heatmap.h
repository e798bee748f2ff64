#pragma once
// Attention matrices as grids in the terminal: token labels on rows (queries) and columns (keys), the
// value in each cell with a shade (or its colour), masked and dropped cells marked apart, a legend
// in the reader's language; 1-D weights as bars. Every line fits 80 columns: when four decimals do not
// fit, the grid shows each value to two decimals (".08") with numbered columns, and when those do not
// fit either, shading only, on a ramp over the values shown. One grid per batch/head index.
#include <string>
#include <vector>

#include "notebook/attention_matrix.h"

namespace attn {

// None: plain text with shading characters; Ansi256: xterm-256 backgrounds; TrueColor: 24-bit.
enum class Palette { None, Ansi256, TrueColor };

// The palette for a colour terminal: TrueColor when COLORTERM is "truecolor" or "24bit".
Palette palette_for(bool color, const char* colorterm);

// The legend, then each grid (caption first when there are leading dims); ends with "\n". `title`
// replaces the legend's first line (notebook_maps.h's map_title; empty: the tensor's).
// `undropped`: a dropout result's weights before dropout (attention_matrix.h's cell_marks).
std::string heatmap_text(const NamedTensor& t, const std::vector<std::string>& tokens, Palette palette,
                         Lang lang = Lang::En, const std::string& title = "", const Tensor* undropped = nullptr);

// The pictures that follow an output item of `nb` (notebook_maps.h), drawn; "" for none.
std::string output_heatmaps(const Notebook& nb, const NotebookItem& item, Palette palette, Lang lang);

}  // namespace attn
