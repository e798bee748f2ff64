#include "notebook/attention_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/py_repr.h"
#include "core/safe_text.h"
#include "notebook/picture_text.h"

namespace attn {
namespace {

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// `x @ y.T` or `x @ y.transpose(...)`: a matrix of dot products between tokens.
bool product_with_transpose(const std::string& expr) {
  const size_t at = expr.find('@');
  if (at == std::string::npos) return false;
  const std::string rhs = expr.substr(at);
  return contains(rhs, ".T") || contains(rhs, ".transpose(");
}

// The right-hand side when `code` assigns `name` ("name = ..."), else "".
std::string assigned_expr(const NamedTensor& t) {
  if (t.code.rfind(t.name + " =", 0) != 0) return "";
  return t.code.substr(t.name.size() + 2);
}

bool is_score_like(const NamedTensor& t) {
  return contains(t.name, "score") || product_with_transpose(t.name) || product_with_transpose(assigned_expr(t));
}

bool is_weight_name(const std::string& n) { return contains(n, "weights") || contains(n, "softmax"); }

// A mask itself (mask, mask_bool, self.mask[:T, :T] == 0), not a tensor a mask was applied to.
bool is_mask(const NamedTensor& t) {
  return t.tensor.dtype() == DType::Bool || (contains(t.name, "mask") && !contains(t.name, "masked"));
}

bool is_dropout_result(const NamedTensor& t) { return contains(t.name, "dropout") || contains(t.code, "dropout"); }

bool float_or_bool(const Tensor& x) {
  return x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::Bool;
}

// Not a matrix of attention, whatever it names: row sums of weights, a product that is a context.
bool drawable_name(const NamedTensor& t) {
  for (const char* reduced : {".sum(", ".max(", ".min(", ".mean("})
    if (contains(t.name, reduced)) return false;                    // dropout(attn_weights).sum(dim=-1)
  return !contains(t.name, "@") || product_with_transpose(t.name);  // attn_weights @ values
}

constexpr float kMaskedFill = -1e5f;  // d2l fills with -1e6; no score comes near

}  // namespace

bool is_attention_matrix(const NamedTensor& t) {
  const Tensor& x = t.tensor;
  if (!float_or_bool(x) || x.dim() < 2) return false;
  const int64_t rows = x.size(-2), cols = x.size(-1);
  if (cols < 2 || cols > kMaxHeatmapSide || rows < 1 || rows > kMaxHeatmapSide) return false;
  const std::string& n = t.name;
  if (!drawable_name(t)) return false;
  return is_score_like(t) || is_weight_name(n) || contains(n, "mask") || contains(n, "dropout(");
}

bool is_weight_vector(const NamedTensor& t) {
  const Tensor& x = t.tensor;
  return float_or_bool(x) && x.dtype() != DType::Bool && x.dim() == 1 && x.size(0) >= 2 &&
         x.size(0) <= kMaxHeatmapSide && is_weight_name(t.name) && !is_score_like(t) && drawable_name(t);
}

std::vector<AttentionGrid> attention_grids(const Tensor& t) {
  const int64_t cols = t.size(-1), rows = t.dim() >= 2 ? t.size(-2) : 1;
  const std::vector<float> all = t.values();
  const size_t per = static_cast<size_t>(rows * cols);
  std::vector<AttentionGrid> grids;
  for (size_t start = 0; per > 0 && start + per <= all.size(); start += per) {
    AttentionGrid g;
    g.rows = rows;
    g.cols = cols;
    g.values.assign(all.begin() + start, all.begin() + start + per);
    int64_t flat = static_cast<int64_t>(start / per);
    for (int64_t d = t.dim() - 3; d >= 0; --d) {
      g.index.insert(g.index.begin(), flat % t.size(d));
      flat /= t.size(d);
    }
    grids.push_back(std::move(g));
  }
  return grids;
}

std::string grid_caption(const AttentionGrid& g, Lang lang) {
  if (g.index.size() == 2)
    return picture_say("map.batch_head", lang, {std::to_string(g.index[0]), std::to_string(g.index[1])});
  std::string out;
  for (size_t i = 0; i < g.index.size(); ++i) out += (i ? ", " : "") + std::to_string(g.index[i]);
  return out.empty() ? "" : "[" + out + "]";
}

std::vector<CellMark> cell_marks(const NamedTensor& t, const AttentionGrid& g, const AttentionGrid* undropped) {
  std::vector<CellMark> marks(g.values.size(), CellMark::None);
  if (is_mask(t)) return marks;
  bool non_negative = true, causal_zeros = g.rows == g.cols && g.rows > 1;
  for (int64_t i = 0; i < g.rows; ++i)
    for (int64_t j = 0; j < g.cols; ++j) {
      const float v = g.values[static_cast<size_t>(i * g.cols + j)];
      if (std::isfinite(v) && v > kMaskedFill && v < 0) non_negative = false;
      if (j > i && !(v == 0 || v <= kMaskedFill)) causal_zeros = false;
    }
  const bool dropout = is_dropout_result(t);
  for (int64_t i = 0; i < g.rows; ++i)
    for (int64_t j = 0; j < g.cols; ++j) {
      const size_t k = static_cast<size_t>(i * g.cols + j);
      const float v = g.values[k];
      if (v <= kMaskedFill)
        marks[k] = CellMark::Masked;  // -inf, -1e6
      else if (v == 0 && non_negative && !is_score_like(t) && undropped && dropout)
        marks[k] = undropped->values[k] == 0 ? CellMark::Masked : CellMark::Dropped;
      else if (v == 0 && non_negative && !is_score_like(t))
        marks[k] = !dropout || (causal_zeros && j > i) ? CellMark::Masked : CellMark::Dropped;
    }
  return marks;
}

double HeatScale::position(float v) const {
  if (kind == Kind::Quartiles) {  // the middle of its quarter: 1/8, 3/8, 5/8, 7/8
    const auto below = std::upper_bound(cuts.begin(), cuts.end(), v) - cuts.begin();
    return (static_cast<double>(below) + 0.5) / 4.0;
  }
  if (hi <= lo) return kind == Kind::Fixed01 ? (v > lo ? 1.0 : 0.0) : 0.5;
  return std::clamp((static_cast<double>(v) - lo) / (static_cast<double>(hi) - lo), 0.0, 1.0);
}

std::string HeatScale::describe(Lang lang) const {
  const std::string l = cell_text(lo, DType::Float32), h = cell_text(hi, DType::Float32);
  switch (kind) {
    case Kind::Fixed01:
      return picture_say(mask ? "map.scale_mask" : "map.scale_fixed", lang);
    case Kind::Auto:
      return picture_say("map.scale_auto", lang, {l, h});
    case Kind::ZeroToMax:
      return picture_say("map.scale_dropout", lang, {h});
    case Kind::MinMax:
      break;
    case Kind::Quartiles:
      return picture_say("map.scale_quartiles", lang, {l, h});
  }
  return picture_say("map.scale_minmax", lang, {l, h});
}

std::vector<AttentionGrid> undropped_grids(const Tensor& t, const Tensor* undropped) {
  if (!undropped || undropped->shape() != t.shape()) return {};
  return attention_grids(*undropped);
}

std::optional<Tensor> find_undropped(const NamedTensor& t, const std::vector<NamedTensor>& candidates) {
  if (!is_dropout_result(t)) return std::nullopt;
  const std::vector<float> v = t.tensor.values();
  for (const NamedTensor& c : candidates) {
    if (c.tensor.shape() != t.tensor.shape() || is_dropout_result(c) || !is_weight_name(c.name)) continue;
    const std::vector<float> w = c.tensor.values();
    double scale = 0;
    bool fits = true;
    for (size_t k = 0; k < v.size() && fits; ++k) {
      if (v[k] == 0) continue;
      if (w[k] == 0)
        fits = false;  // kept where the weights were 0: not these weights
      else if (scale == 0)
        scale = static_cast<double>(v[k]) / w[k];
      else
        fits = std::fabs(static_cast<double>(v[k]) / w[k] - scale) <= 1e-4 * scale;
    }
    if (fits && scale > 1 + 1e-6) return c.tensor;  // kept values grow by 1/(1-p): not t itself
  }
  return std::nullopt;
}

HeatScale heat_scale(const NamedTensor& t, const Tensor* undropped) {
  HeatScale s;
  bool any = false;
  float lo = 0, hi = 0;
  const std::vector<AttentionGrid> before = undropped_grids(t.tensor, undropped);
  size_t index = 0;
  for (const AttentionGrid& g : attention_grids(t.tensor)) {
    const std::vector<CellMark> marks = cell_marks(t, g, before.empty() ? nullptr : &before[index++]);
    for (size_t k = 0; k < g.values.size(); ++k) {
      const float v = g.values[k];
      if (marks[k] == CellMark::Masked) s.has_masked = true;
      if (marks[k] == CellMark::Dropped) s.has_dropped = true;
      if (marks[k] != CellMark::None || !std::isfinite(v)) continue;
      lo = any ? std::min(lo, v) : v;
      hi = any ? std::max(hi, v) : v;
      any = true;
    }
  }
  if (is_mask(t)) {
    s.mask = true;
    return s;  // Fixed01
  }
  if (!any) return s;   // every cell masked or dropped (dropout 1.0): nothing to scale
  bool filled = false;  // -inf or -1e6 in it: scores with a mask applied, never weights
  for (float v : t.tensor.values()) filled = filled || v <= kMaskedFill;
  const bool score = is_score_like(t) || filled;
  if (!score && lo >= 0 && hi <= 1) {
    if (hi - lo >= 0.5f) return s;  // Fixed01 reads well
    s.kind = HeatScale::Kind::Auto;
  } else if (!score && lo >= 0 && is_dropout_result(t)) {
    s.kind = HeatScale::Kind::ZeroToMax;
    s.hi = hi;
    return s;
  } else {
    s.kind = HeatScale::Kind::MinMax;
  }
  s.lo = lo;
  s.hi = hi;
  return s;
}

std::string label_text(const std::string& token) { return py_comment(echo(token, kLabelChars)); }

std::vector<std::string> axis_labels(int64_t side, const std::vector<std::string>& tokens) {
  std::vector<std::string> labels;
  for (int64_t i = 0; i < side; ++i) {
    labels.push_back(static_cast<int64_t>(tokens.size()) == side ? label_text(tokens[static_cast<size_t>(i)])
                                                                 : std::to_string(i));
  }
  return labels;
}

std::string cell_text(float v, DType dtype) {
  if (dtype == DType::Bool) return v != 0 ? "True" : "False";
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) < 1e5f ? "%.4f" : "%.0e", static_cast<double>(v));
  return buf;
}

Rgb heat_color(double position) {
  static const Rgb stops[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  const double x = std::clamp(position, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(x));
  const double f = x - i;
  auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return {mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b)};
}

bool dark_text_on(Rgb c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 140; }

}  // namespace attn
