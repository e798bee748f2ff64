#pragma once
// Which shown tensors are attention matrices, and what a heatmap of one needs: its 2-D grids (one per
// batch/head index), a colour scale, axis labels and cell text. Shared by the terminal heatmap and
// the HTML report.
//
// The rule: a float or bool tensor whose last two dims are equal (2..16) and whose name (the book's
// variable or printed expression) contains "score", "weights", "mask" or "dropout(", or which is a
// product with a transpose (`a @ b.T`, `q @ k.transpose(...)`) by its name or by the line that
// assigns it (first_res = first_head @ first_head.T).
#include <string>
#include <vector>

#include "notebook/notebook.h"

namespace attn {

constexpr int64_t kMaxHeatmapSide = 16;  // the most tokens the tool accepts

bool is_attention_matrix(const NamedTensor& t);

// One 2-D slice: `caption` names its leading index ("batch 0, head 1"), empty for a 2-D tensor.
struct AttentionGrid {
  std::string caption;
  int64_t side = 0;
  std::vector<float> values;  // side * side, row-major
};
std::vector<AttentionGrid> attention_grids(const Tensor& t);

// Where colours go. Scores: min to max of the finite values. Weights and masks (every value finite
// and in [0, 1]): fixed 0 to 1, so rows are comparable across tensors. Dropout results with values
// above 1 (kept weights scaled by 1/(1-p)): 0 to their maximum, so a dropped cell is still 0.
struct HeatScale {
  enum class Kind { Fixed01, ZeroToMax, MinMax } kind = Kind::Fixed01;
  float lo = 0, hi = 1;
  bool has_masked = false;  // some value is -inf (masked_fill)
  double position(float v) const;  // 0..1 for a finite v
  std::string describe() const;     // "fixed 0…1", "min–max -0.0511…0.4656"
};
HeatScale heat_scale(const NamedTensor& t);

// Token labels when there is one row per token, else the row numbers; control characters replaced.
std::vector<std::string> axis_labels(int64_t side, const std::vector<std::string>& tokens);

// A cell's text: 4 decimals ("0.2098", "-inf", "True").
std::string cell_text(float v, DType dtype);

// The colour ramp (viridis-like) at 0..1, and whether dark text reads on it.
struct Rgb {
  int r, g, b;
};
Rgb heat_color(double position);
bool dark_text_on(Rgb c);

}  // namespace attn
