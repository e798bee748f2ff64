#include "notebook/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "notebook/attention_matrix.h"

namespace attn {
namespace {

const char* kStyle = R"css(
body { font-family: "DejaVu Sans", sans-serif; max-width: 1150px; margin: 1.5em auto; padding: 0 1em;
       color: #1d1d1f; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.25em; border-bottom: 2px solid #7b3fa0; padding-bottom: .2em; margin-top: 2em; }
.meta { color: #555; font-size: .9em; overflow-wrap: anywhere; }
pre { font-family: "DejaVu Sans Mono", monospace; font-size: 13px; padding: .6em .8em; overflow-x: auto;
      border-radius: 4px; margin: .4em 0; }
pre.code { background: #eef6fb; border-left: 4px solid #2b7bb9; }
pre.out { background: #f7f7f7; border-left: 4px solid #bbb; }
.prompt { color: #2b7bb9; font-weight: bold; }
.shape { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; color: #777; margin: .2em 0; }
.note { color: #22663a; margin: .3em 0 .8em; }
figure.heatmap { margin: .6em 0 1em; }
figure.heatmap figcaption { font-size: .9em; color: #333; margin-bottom: .3em; }
.grids { display: flex; flex-wrap: wrap; gap: 1.2em; }
.grid-caption { font-size: .85em; color: #555; }
svg text { font-family: "DejaVu Sans Mono", monospace; font-size: 11px; }
svg .label { fill: #333; }
.legend { font-size: .85em; color: #444; margin-top: .3em; }
.ramp { display: inline-block; width: 160px; height: 12px; vertical-align: middle; margin: 0 .4em;
        background: linear-gradient(to right, #440154, #3b528b, #21918c, #5ec962, #fde725); }
.masked-key { display: inline-block; padding: 0 .4em; background: #3a3a3a; color: #bcbcbc;
              font-family: "DejaVu Sans Mono", monospace; margin-left: 1em; }
)css";

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

// One grid: side*side <rect>s (no other rect), the value in each, tokens left and on top.
std::string grid_svg(const NamedTensor& t, const AttentionGrid& g, const HeatScale& scale,
                     const std::vector<std::string>& labels) {
  size_t longest = 0;
  for (const std::string& l : labels) longest = std::max(longest, shorten(l, 12).size());
  const double cell_w = 62, cell_h = 26, left = std::min<double>(110, 16 + 7.0 * longest), top = 24;
  const double w = left + cell_w * g.side + 4, h = top + cell_h * g.side + 4;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(w) + "\" height=\"" + num(h) +
                    "\" viewBox=\"0 0 " + num(w) + " " + num(h) + "\" role=\"img\" aria-label=\"heatmap of " +
                    html_escape(t.name) + (g.caption.empty() ? "" : ", " + g.caption) + "\" data-side=\"" +
                    std::to_string(g.side) + "\">\n";
  for (int64_t j = 0; j < g.side; ++j)
    out += "<text class=\"label col\" x=\"" + num(left + cell_w * (j + 0.5)) + "\" y=\"" + num(top - 8) +
           "\" text-anchor=\"middle\">" + html_escape(shorten(labels[j], 8)) + "</text>\n";
  for (int64_t i = 0; i < g.side; ++i) {
    out += "<text class=\"label row\" x=\"" + num(left - 6) + "\" y=\"" + num(top + cell_h * (i + 0.5) + 4) +
           "\" text-anchor=\"end\">" + html_escape(shorten(labels[i], 12)) + "</text>\n";
    for (int64_t j = 0; j < g.side; ++j) {
      const float v = g.values[i * g.side + j];
      const bool finite = std::isfinite(v);
      const Rgb bg = finite ? heat_color(scale.position(v)) : Rgb{58, 58, 58};
      const std::string ink = !finite ? "#bcbcbc" : dark_text_on(bg) ? "#000000" : "#ffffff";
      const std::string text = cell_text(v, t.tensor.dtype());
      const double x = left + cell_w * j, y = top + cell_h * i;
      out += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(cell_w) + "\" height=\"" + num(cell_h) +
             "\" fill=\"" + hex(bg) + "\" stroke=\"#ffffff\"><title>" + html_escape(labels[i] + " \u2192 " + labels[j] +
             ": " + text) + "</title></rect>";
      out += "<text x=\"" + num(x + cell_w / 2) + "\" y=\"" + num(y + cell_h / 2 + 4) + "\" text-anchor=\"middle\" fill=\"" +
             ink + "\">" + html_escape(text) + "</text>\n";
    }
  }
  return out + "</svg>";
}

std::string heatmap_figure(const NamedTensor& t, const std::vector<std::string>& tokens) {
  const HeatScale scale = heat_scale(t);
  const std::vector<AttentionGrid> grids = attention_grids(t.tensor);
  if (grids.empty()) return "";
  const std::vector<std::string> labels = axis_labels(grids.front().side, tokens);
  std::string out = "<figure class=\"heatmap\">\n<figcaption>Heatmap of <code>" + html_escape(t.name) +
                    "</code>: rows are queries, columns keys; " + html_escape(scale.describe()) +
                    "</figcaption>\n<div class=\"grids\">\n";
  for (const AttentionGrid& g : grids) {
    out += "<div class=\"grid\">";
    if (!g.caption.empty()) out += "<div class=\"grid-caption\">" + html_escape(g.caption) + "</div>";
    out += grid_svg(t, g, scale, labels) + "</div>\n";
  }
  const bool minmax = scale.kind == HeatScale::Kind::MinMax;
  out += "</div>\n<div class=\"legend\">" + html_escape(cell_text(minmax ? scale.lo : 0, DType::Float32)) +
         "<span class=\"ramp\"></span>" +
         html_escape(cell_text(scale.kind == HeatScale::Kind::Fixed01 ? 1 : scale.hi, DType::Float32)) +
         (scale.has_masked ? "<span class=\"masked-key\">-inf</span> masked (never attended)" : "") + "</div>\n";
  return out + "</figure>\n";
}

std::string joined(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) out += "\ufffd";
        else out += c;
    }
  }
  return out;
}

std::string html_report(const Notebook& nb, Lang lang, bool explain) {
  const std::string title = "attn-tutor: " + nb.lesson();
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    html_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(title) + "</h1>\n<p class=\"meta\">Sections " + html_escape(joined(nb.sections(), ", ")) +
         " &middot; tokens: " + html_escape(joined(nb.tokens(), " ")) + " &middot; attn-tutor " ATTN_TUTOR_VERSION
         "</p>\n<p class=\"meta\">Options: <code>" + html_escape(nb.config().dump()) + "</code></p>\n";
  for (const NotebookItem& item : nb.items()) {
    switch (item.kind) {
      case NotebookItem::Kind::Heading:
        out += "<h2>" + html_escape(item_text(item, lang)) + "</h2>\n";
        break;
      case NotebookItem::Kind::Code:
        out += "<pre class=\"code\"><span class=\"prompt\">In [" + std::to_string(item.cell) + "]:</span>\n" +
               html_escape(item.text) + "</pre>\n";
        break;
      case NotebookItem::Kind::Output:
        out += "<pre class=\"out\">" + html_escape(item.text) + "</pre>\n";
        if (item.tensor >= 0 && is_attention_matrix(nb.tensors()[item.tensor]))
          out += heatmap_figure(nb.tensors()[item.tensor], nb.tokens());
        break;
      case NotebookItem::Kind::Shape:
        out += "<p class=\"shape\"># " + html_escape(item.text) + "</p>\n";
        break;
      case NotebookItem::Kind::Explanation:
        if (!explain) break;
        [[fallthrough]];
      case NotebookItem::Kind::Note:
      case NotebookItem::Kind::Confusion:
        out += "<p class=\"note\">" + html_escape(item_text(item, lang)) + "</p>\n";
        break;
    }
  }
  return out + "</body>\n</html>\n";
}

}  // namespace attn
