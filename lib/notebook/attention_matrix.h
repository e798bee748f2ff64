#pragma once
// Which tensors are attention matrices, and what a picture of one needs: its 2-D grids (one per
// batch/head index), which cells are masked or dropped, a colour scale, axis labels and cell text.
// Shared by the terminal heatmap and the HTML report.
//
// The rule: a float or bool tensor with at most 16 rows and 2..16 columns in its last two dims whose
// name (the book's variable or printed expression) contains "score", "weights", "softmax", "mask"
// or "dropout(", or which is a product with a transpose (`a @ b.T`, `q @ k.transpose(...)`) by its
// name or by the line that assigns it (first_res = first_head @ first_head.T). Rows need not equal
// columns (d2l's 4 queries over 6 keys). A 1-D tensor of 2..16 attention weights (attn_weights_2)
// is drawn as bars, one per token.
#include <optional>
#include <string>
#include <vector>

#include "notebook/notebook.h"

namespace attn {

constexpr int64_t kMaxHeatmapSide = 16;  // the most tokens the tool accepts

bool is_attention_matrix(const NamedTensor& t);
bool is_weight_vector(const NamedTensor& t);  // 1-D weights: bars
inline bool has_picture(const NamedTensor& t) { return is_attention_matrix(t) || is_weight_vector(t); }

// One 2-D slice (a 1-D tensor is one row): `index` holds its leading indices (empty for 2-D).
struct AttentionGrid {
  std::vector<int64_t> index;
  int64_t rows = 0, cols = 0;
  std::vector<float> values;  // rows * cols, row-major
};
std::vector<AttentionGrid> attention_grids(const Tensor& t);
// "batch 0, head 1" for (b, h, T, T); "[3]" for three dims (d2l's batch*heads, a batch); "" for 2-D.
std::string grid_caption(const AttentionGrid& g, Lang lang);

// Masked: never attended (-inf, d2l's -1e6, or a 0 of weights where the mask removed the key: every
// 0 of weights that no dropout touched, the upper triangle of a causal dropout result). Dropped: a
// 0 that dropout made. A mask itself has no marks: its 0s and 1s are its values. With the same grid
// of the weights before dropout (`undropped`), a dropout result's 0 is masked exactly where that is 0.
enum class CellMark { None, Masked, Dropped };
std::vector<CellMark> cell_marks(const NamedTensor& t, const AttentionGrid& g,
                                 const AttentionGrid* undropped = nullptr);

// Where colours go, over the cells without a mark. Scores: min to max. Weights in [0, 1]: fixed 0…1
// when they spread over half of it or more, else automatic (their own min to max, so near-uniform
// weights still differ). Masks: fixed 0…1. Dropout results above 1: 0 to their maximum.
struct HeatScale {
  // Quartiles: the four shades each take a quarter of the values shown (a shading-only picture of many
  // tokens, whose weights crowd near 0), split at `cuts`.
  enum class Kind { Fixed01, Auto, ZeroToMax, MinMax, Quartiles } kind = Kind::Fixed01;
  float lo = 0, hi = 1;
  std::vector<float> cuts;                // Quartiles: the values at a quarter, a half and three quarters
  bool mask = false;                      // a mask (or bool): fixed 0…1, no marks
  bool has_masked = false;                // some cell is masked
  bool has_dropped = false;               // some cell was dropped
  double position(float v) const;         // 0..1 for a finite v
  std::string describe(Lang lang) const;  // the legend's words for the scale
};
HeatScale heat_scale(const NamedTensor& t, const Tensor* undropped = nullptr);
// The grids of `undropped` (none when it is null or of another shape), to pair with attention_grids(t).
std::vector<AttentionGrid> undropped_grids(const Tensor& t, const Tensor* undropped);
// The weights a dropout result `t` was made from, among `candidates`: same shape, not a dropout result,
// a 0 wherever t has one that is not dropout's, and t = w / (1 - p) with one p > 0 elsewhere.
std::optional<Tensor> find_undropped(const NamedTensor& t, const std::vector<NamedTensor>& candidates);

// How a token is named in pictures, headings and notes: at most kLabelChars characters (a longer
// token keeps its start and end around "…"), control characters, bidi and zero-width format
// characters and undecodable bytes escaped (\n, \u202e, \xff), so a label can neither grow a page
// nor reorder or hide the text around it. The full token appears once, in the input cell.
constexpr size_t kLabelChars = 24;
std::string label_text(const std::string& token);

// Token labels (label_text) when there is one row per token, else the row numbers.
std::vector<std::string> axis_labels(int64_t side, const std::vector<std::string>& tokens);

// A cell's text: 4 decimals ("0.2098", "-inf", "True").
std::string cell_text(float v, DType dtype);

// The colour ramp (viridis-like) at 0..1, and whether dark text reads on it.
struct Rgb {
  int r, g, b;
};
Rgb heat_color(double position);
bool dark_text_on(Rgb c);
// Masked and dropped cells: greys and a red that the ramp never takes.
constexpr Rgb kMaskedBg{58, 58, 58}, kMaskedFg{188, 188, 188}, kDroppedBg{178, 34, 52}, kDroppedFg{255, 255, 255};

}  // namespace attn
