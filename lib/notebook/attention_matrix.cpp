#include "notebook/attention_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

}  // namespace

bool is_attention_matrix(const NamedTensor& t) {
  const Tensor& x = t.tensor;
  if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64 && x.dtype() != DType::Bool) return false;
  if (x.dim() < 2) return false;
  const int64_t side = x.size(-1);
  if (x.size(-2) != side || side < 2 || side > kMaxHeatmapSide) return false;
  const std::string& n = t.name;
  return is_score_like(t) || contains(n, "weights") || contains(n, "mask") || contains(n, "dropout(");
}

std::vector<AttentionGrid> attention_grids(const Tensor& t) {
  const int64_t side = t.size(-1);
  const std::vector<float> all = t.values();
  const size_t per = static_cast<size_t>(side * side);
  std::vector<AttentionGrid> grids;
  for (size_t start = 0; start + per <= all.size(); start += per) {
    AttentionGrid g;
    g.side = side;
    g.values.assign(all.begin() + start, all.begin() + start + per);
    const int64_t index = static_cast<int64_t>(start / per);
    if (t.dim() == 3) g.caption = "batch " + std::to_string(index);
    if (t.dim() == 4)
      g.caption = "batch " + std::to_string(index / t.size(1)) + ", head " + std::to_string(index % t.size(1));
    grids.push_back(std::move(g));
  }
  return grids;
}

double HeatScale::position(float v) const {
  if (hi <= lo) return kind == Kind::MinMax ? 0.5 : (v > lo ? 1.0 : 0.0);
  return std::clamp((static_cast<double>(v) - lo) / (static_cast<double>(hi) - lo), 0.0, 1.0);
}

std::string HeatScale::describe() const {
  switch (kind) {
    case Kind::Fixed01: return "fixed 0…1";
    case Kind::ZeroToMax: return "0…" + cell_text(hi, DType::Float32) + " (dropout scale)";
    case Kind::MinMax: break;
  }
  return "min–max " + cell_text(lo, DType::Float32) + "…" + cell_text(hi, DType::Float32);
}

HeatScale heat_scale(const NamedTensor& t) {
  HeatScale s;
  bool all_finite = true, any = false;
  float lo = 0, hi = 0;
  for (float v : t.tensor.values()) {
    if (v == -INFINITY) s.has_masked = true;
    if (!std::isfinite(v)) {
      all_finite = false;
      continue;
    }
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  const bool dropout = contains(t.name, "dropout") || contains(t.code, "dropout");
  if (!is_score_like(t) && all_finite && lo >= 0 && hi <= 1) return s;  // Fixed01
  if (!is_score_like(t) && all_finite && lo >= 0 && dropout) {
    s.kind = HeatScale::Kind::ZeroToMax;
    s.hi = hi;
    return s;
  }
  s.kind = HeatScale::Kind::MinMax;
  s.lo = lo;
  s.hi = hi;
  return s;
}

std::vector<std::string> axis_labels(int64_t side, const std::vector<std::string>& tokens) {
  std::vector<std::string> labels;
  for (int64_t i = 0; i < side; ++i) {
    std::string label = static_cast<int64_t>(tokens.size()) == side ? tokens[i] : std::to_string(i);
    for (char& c : label)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    labels.push_back(label);
  }
  return labels;
}

std::string cell_text(float v, DType dtype) {
  if (dtype == DType::Bool) return v != 0 ? "True" : "False";
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) < 1e5f ? "%.4f" : "%.3e", static_cast<double>(v));
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
