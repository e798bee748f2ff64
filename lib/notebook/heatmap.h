#pragma once
// Attention matrices as coloured grids in the terminal: token labels on rows (queries) and columns
// (keys), the value in each cell, a one-line legend. One grid per batch/head index.
#include <string>
#include <vector>

#include "notebook/attention_matrix.h"

namespace attn {

// None: plain text with shading characters; Ansi256: xterm-256 backgrounds; TrueColor: 24-bit.
enum class Palette { None, Ansi256, TrueColor };

// The palette for a colour terminal: TrueColor when COLORTERM is "truecolor" or "24bit".
Palette palette_for(bool color, const char* colorterm);

// The legend line, then each grid (caption first when there are leading dims); ends with "\n".
std::string heatmap_text(const NamedTensor& t, const std::vector<std::string>& tokens, Palette palette);

}  // namespace attn
