#include "notebook/html_maps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "notebook/attention_matrix.h"
#include "notebook/picture_text.h"

namespace attn {
namespace {

std::string hex(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

// At most `max` characters (UTF-8 code points), "…" marking a cut.
std::string shorten(const std::string& s, size_t max) {
  size_t chars = 0, cut = s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (chars == max - 1) cut = i;
    if (++chars > max) return s.substr(0, cut) + "\u2026";
  }
  return s;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string svg_open(double w, double h, const std::string& label, int64_t rows, int64_t cols) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" + num(h) + "\" viewBox=\"0 0 " +
         num(w) + " " + num(h) + "\" role=\"img\" aria-label=\"" + html_escape(label) + "\" data-side=\"" +
         std::to_string(cols) + "\" data-rows=\"" + std::to_string(rows) + "\">\n";
}

double left_margin(const std::vector<std::string>& labels) {
  size_t longest = 0;
  for (const std::string& l : labels) longest = std::max(longest, shorten(l, 12).size());
  return std::min<double>(110, 16 + 7.0 * longest);
}

// One grid: rows*cols <rect>s (no other rect), the value in each, tokens left and on top.
std::string grid_svg(const NamedTensor& t, const AttentionGrid& g, const AttentionGrid* before, const HeatScale& scale,
                     const std::vector<std::string>& row_labels, const std::vector<std::string>& col_labels,
                     const std::string& label) {
  const double cell_w = 62, cell_h = 26, left = left_margin(row_labels), top = 24;
  const double w = left + cell_w * g.cols + 4, h = top + cell_h * g.rows + 4;
  std::string out = svg_open(w, h, label, g.rows, g.cols);
  for (int64_t j = 0; j < g.cols; ++j)
    out += "<text class=\"label col\" x=\"" + num(left + cell_w * (j + 0.5)) + "\" y=\"" + num(top - 8) +
           "\" text-anchor=\"middle\">" + html_escape(shorten(col_labels[j], 8)) + "</text>\n";
  const std::vector<CellMark> marks = cell_marks(t, g, before);
  for (int64_t i = 0; i < g.rows; ++i) {
    out += "<text class=\"label row\" x=\"" + num(left - 6) + "\" y=\"" + num(top + cell_h * (i + 0.5) + 4) +
           "\" text-anchor=\"end\">" + html_escape(shorten(row_labels[i], 12)) + "</text>\n";
    for (int64_t j = 0; j < g.cols; ++j) {
      const size_t k = static_cast<size_t>(i * g.cols + j);
      const float v = g.values[k];
      const bool masked = marks[k] == CellMark::Masked || !std::isfinite(v), dropped = marks[k] == CellMark::Dropped;
      const Rgb bg = masked ? kMaskedBg : dropped ? kDroppedBg : heat_color(scale.position(v));
      const Rgb ink = masked ? kMaskedFg : dropped ? kDroppedFg : dark_text_on(bg) ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
      const std::string text = cell_text(v, t.tensor.dtype());
      const std::string mark = masked ? "masked" : dropped ? "dropped" : "value";
      const double x = left + cell_w * j, y = top + cell_h * i;
      // data-*: what the page's hover box reads (query token, key token, the value, masked/dropped/kept).
      out += "<rect class=\"" + mark + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(cell_w) +
             "\" height=\"" + num(cell_h) + "\" fill=\"" + hex(bg) + "\" stroke=\"#ffffff\" data-q=\"" +
             html_escape(row_labels[i]) + "\" data-k=\"" + html_escape(col_labels[j]) + "\" data-v=\"" +
             html_escape(text) + "\" data-state=\"" +
             (masked    ? "masked"
              : dropped ? "dropped"
                        : "kept") +
             "\"><title>" + html_escape(row_labels[i] + " \u2192 " + col_labels[j] + ": " + text) + "</title></rect>";
      const std::string shown = (masked ? "\u00b7 " : dropped ? "\u00d7 " : "") + text;
      out += "<text x=\"" + num(x + cell_w / 2) + "\" y=\"" + num(y + cell_h / 2 + 4) +
             "\" text-anchor=\"middle\" fill=\"" + hex(ink) + "\">" + html_escape(shown) + "</text>\n";
    }
  }
  return out + "</svg>";
}

// 1-D weights: one bar per token, 0 to the largest value.
std::string bars_svg(const NamedTensor& t, const std::vector<std::string>& labels, float hi, const std::string& label) {
  const std::vector<float> v = t.tensor.values();
  const double left = left_margin(labels), bar_h = 20, full = 320, value_w = 60;
  const double w = left + value_w + full + 8, h = bar_h * v.size() + 4;
  std::string out = svg_open(w, h, label, 1, static_cast<int64_t>(v.size()));
  for (size_t i = 0; i < v.size(); ++i) {
    const double y = bar_h * i,
                 len = hi > 0 && std::isfinite(v[i]) ? std::max(0.0, v[i] / static_cast<double>(hi)) * full : 0;
    out += "<text class=\"label row\" x=\"" + num(left - 6) + "\" y=\"" + num(y + 14) + "\" text-anchor=\"end\">" +
           html_escape(shorten(labels[i], 12)) + "</text>";
    const std::string value = cell_text(v[i], DType::Float32);
    out += "<text x=\"" + num(left + value_w - 6) + "\" y=\"" + num(y + 14) + "\" text-anchor=\"end\">" +
           html_escape(value) + "</text>";
    out += "<rect class=\"bar\" x=\"" + num(left + value_w) + "\" y=\"" + num(y + 3) + "\" width=\"" + num(len) +
           "\" height=\"" + num(bar_h - 6) + "\" fill=\"" + hex(heat_color(hi > 0 ? v[i] / hi : 0)) + "\" data-k=\"" +
           html_escape(labels[i]) + "\" data-v=\"" + html_escape(value) + "\"><title>" +
           html_escape(labels[i] + ": " + value) + "</title></rect>\n";
  }
  return out + "</svg>";
}

std::string legend_html(const HeatScale& scale, Lang lang) {
  const bool minmax = scale.kind == HeatScale::Kind::MinMax || scale.kind == HeatScale::Kind::Auto;
  std::string out = "<div class=\"legend\">" + html_escape(cell_text(minmax ? scale.lo : 0, DType::Float32)) +
                    "<span class=\"ramp\"></span>" +
                    html_escape(cell_text(scale.kind == HeatScale::Kind::Fixed01 ? 1 : scale.hi, DType::Float32));
  if (scale.has_masked)
    out += "<span class=\"masked-key\">\u00b7</span> " + html_escape(picture_say("map.masked", lang));
  if (scale.has_dropped)
    out += "<span class=\"dropped-key\">\u00d7</span> " + html_escape(picture_say("map.dropped", lang));
  return out + "</div>\n";
}

}  // namespace

std::string html_map_figure(const MapSource& m, const std::vector<std::string>& tokens, Lang lang) {
  const NamedTensor& t = m.tensor;
  const std::string title = map_title(m, lang);
  if (is_weight_vector(t)) {
    float hi = 0;
    for (float x : t.tensor.values())
      if (std::isfinite(x)) hi = std::max(hi, x);
    return "<figure class=\"heatmap bars\">\n<figcaption>" + html_escape(title) + "<br>" +
           html_escape(picture_say("map.bar_scale", lang, {cell_text(hi, DType::Float32)})) + "</figcaption>\n" +
           bars_svg(t, axis_labels(t.tensor.size(0), tokens), hi, title) + "\n</figure>\n";
  }
  const Tensor* undropped = m.undropped ? &*m.undropped : nullptr;
  const HeatScale scale = heat_scale(t, undropped);
  const std::vector<AttentionGrid> grids = attention_grids(t.tensor), before = undropped_grids(t.tensor, undropped);
  if (grids.empty()) return "";
  const std::vector<std::string> rows = axis_labels(grids.front().rows, tokens),
                                 cols = axis_labels(grids.front().cols, tokens);
  std::string out = "<figure class=\"heatmap\">\n<figcaption>" + html_escape(title) + "<br>" +
                    html_escape(scale.describe(lang)) + "</figcaption>\n<div class=\"grids\">\n";
  for (size_t gi = 0; gi < grids.size(); ++gi) {
    const AttentionGrid& g = grids[gi];
    const std::string caption = grid_caption(g, lang);
    out += "<div class=\"grid\">";
    if (!caption.empty()) out += "<div class=\"grid-caption\">" + html_escape(caption) + "</div>";
    out += grid_svg(t, g, before.empty() ? nullptr : &before[gi], scale, rows, cols,
                    caption.empty() ? title : title + ", " + caption) +
           "</div>\n";
  }
  return out + "</div>\n" + legend_html(scale, lang) + "</figure>\n";
}

}  // namespace attn
