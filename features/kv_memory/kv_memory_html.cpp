// `attn-tutor kv-memory --html`: the estimate as an HTML document. The text's blocks (config, totals, how
// the estimators count) as they print, the table as <table class="kv-memory">, and the plot as an SVG line
// chart: the text plot's series over its context lengths, x on a log2 scale (the text's columns double),
// y linear in GB from 0, with ticks, axis titles, a legend and a <circle> per point.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "features/kv_memory/kv_memory.h"
#include "features/kv_memory/kv_memory_parts.h"
#include "lessons/ui_text.h"
#include "notebook/html_document.h"
#include "notebook/html_escape.h"

namespace attn {

namespace {

using kv_text::Series;

const char* kKvStyle = R"css(
pre.estimate { background: #f7f7f7; border-left: 4px solid #bbb; }
.table-box { overflow-x: auto; }
table.kv-memory { border-collapse: collapse; font-size: .9em; }
table.kv-memory th, table.kv-memory td { border: 1px solid #ddd; padding: .2em .7em; text-align: right;
  font-family: "DejaVu Sans Mono", monospace; }
table.kv-memory tr.current { background: #f4f0f8; font-weight: bold; }
figure.kv-chart { margin: .6em 0 1em; max-width: 760px; }
figure.kv-chart svg { width: 100%; height: auto; }
svg.kv-chart text { font-family: "DejaVu Sans", "Noto Sans CJK SC", sans-serif; font-size: 12px; fill: #333; }
svg.kv-chart .grid { stroke: #e4e4e4; }
svg.kv-chart .axis { stroke: #555; }
svg.kv-chart .current { stroke: #7b3fa0; stroke-dasharray: 4 3; }
svg.kv-chart polyline { fill: none; stroke-width: 2; }
)css";

constexpr double kWidth = 720, kHeight = 430, kLeft = 70, kRight = 24, kTop = 20, kBottom = 64;

// A colour and a dash pattern per estimator (told apart without colour too).
struct Look {
  const char* colour;
  const char* dash;
};
Look look_of(char mark) {
  switch (mark) {
    case 'M':
      return {"#1f77b4", ""};
    case 'G':
      return {"#d95f02", "8 4"};
    case 'S':
      return {"#2ca02c", "2 3"};
    case 'W':
      return {"#d62728", "10 3 2 3"};
    case 'L':
      return {"#7b3fa0", "5 2"};
    default:
      break;
  }
  // --plot gqa|mla|swa: the curves A, B, C, ...
  static const Look more[] = {{"#d95f02", "8 4"}, {"#2ca02c", "2 3"}, {"#d62728", "10 3 2 3"},
                              {"#7b3fa0", "5 2"}, {"#8c564b", "1 3"}, {"#17becf", "6 2 1 2"}};
  return more[static_cast<size_t>(mark >= 'A' && mark <= 'Z' ? mark - 'A' : 0) % 6];
}

std::string esc(const std::string& text) { return html_escape(text); }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string without_colon(std::string s) {
  for (const std::string colon : {":", "\uff1a"})
    if (s.size() >= colon.size() && s.compare(s.size() - colon.size(), colon.size(), colon) == 0)
      s.resize(s.size() - colon.size());
  return s;
}

double gb_of(const Series& s, const KvMemoryTotals& t) { return static_cast<double>(*s.value(t)) / 1e9; }

std::string table(const KvMemoryEstimate& e, const std::vector<Series>& series, Lang lang) {
  std::string out = "<div class=\"table-box\">\n<table class=\"kv-memory\">\n<thead><tr><th>" +
                    esc(ui("kvmem.context", lang)) + "</th>";
  for (const Series& s : series) out += "<th>" + esc(s.label) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const KvMemoryTotals& t : e.by_context) {
    out += t.context_length == e.config.context_length ? "<tr class=\"current\">" : "<tr>";
    out += "<td>" + std::to_string(t.context_length) + "</td>";
    for (const Series& s : series) out += "<td>" + esc(grouped_2f(gb_of(s, t))) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n</div>\n";
}

// The y axis: 0 to a round top in steps of 1, 2 or 5 times a power of ten, about five of them.
struct Ticks {
  double step = 1, top = 1;
  int decimals = 0;
};
Ticks y_ticks(double largest) {
  Ticks t;
  if (!(largest > 0)) return t;
  const double raw = largest / 5, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  t.step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
  t.top = std::ceil(largest / t.step - 1e-9) * t.step;
  t.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(t.step) + 1e-9)));
  return t;
}

std::string chart(const KvMemoryEstimate& e, const std::vector<kv_text::PlotCurve>& series, Lang lang) {
  using Curve = kv_text::PlotCurve;
  auto gb_at = [](const Curve& s, size_t i) { return static_cast<double>(s.bytes[i]) / 1e9; };
  const double x0 = std::log2(static_cast<double>(e.by_context.front().context_length));
  const double x1 = std::log2(static_cast<double>(e.by_context.back().context_length));
  double largest = 0;
  for (const Curve& s : series)
    for (size_t i = 0; i < s.bytes.size(); ++i) largest = std::max(largest, gb_at(s, i));
  const Ticks ticks = y_ticks(largest);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](int64_t n) {
    return kLeft + (x1 > x0 ? (std::log2(static_cast<double>(n)) - x0) / (x1 - x0) : 0.5) * plot_w;
  };
  auto py = [&](double gb) { return kTop + plot_h - gb / ticks.top * plot_h; };

  std::string labels;
  for (const Curve& s : series) labels += (labels.empty() ? "" : ", ") + s.label;
  std::string out =
      "<figure class=\"kv-chart\">\n<svg class=\"kv-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
      num(kWidth) + " " + num(kHeight) + "\" role=\"img\" aria-label=\"" +
      esc(ui("kvmem.html.chart-label", lang, {labels})) + "\">\n<title>" + esc(ui("kvmem.html.chart", lang)) +
      "</title>\n";
  // The y grid, ticks and labels.
  out += "<g class=\"y-axis\">\n";
  for (int i = 0; i * ticks.step <= ticks.top * (1 + 1e-9); ++i) {
    const double gb = i * ticks.step, y = py(gb);
    out += "<line class=\"grid\" x1=\"" + num(kLeft) + "\" y1=\"" + num(y) + "\" x2=\"" + num(kWidth - kRight) +
           "\" y2=\"" + num(y) + "\"/><text x=\"" + num(kLeft - 8) + "\" y=\"" + num(y + 4) +
           "\" text-anchor=\"end\">" + fixed(gb, ticks.decimals) + "</text>\n";
  }
  out += "</g>\n<g class=\"x-axis\">\n";
  for (const KvMemoryTotals& t : e.by_context) {
    const double x = px(t.context_length);
    out += "<line class=\"axis\" x1=\"" + num(x) + "\" y1=\"" + num(kTop + plot_h) + "\" x2=\"" + num(x) + "\" y2=\"" +
           num(kTop + plot_h + 5) + "\"/><text x=\"" + num(x) + "\" y=\"" + num(kTop + plot_h + 19) +
           "\" text-anchor=\"middle\">" + esc(kv_text::short_length(t.context_length)) + "</text>\n";
  }
  out += "</g>\n<line class=\"axis\" x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop + plot_h) + "\" x2=\"" +
         num(kWidth - kRight) + "\" y2=\"" + num(kTop + plot_h) + "\"/>\n<line class=\"axis\" x1=\"" + num(kLeft) +
         "\" y1=\"" + num(kTop) + "\" x2=\"" + num(kLeft) + "\" y2=\"" + num(kTop + plot_h) + "\"/>\n";
  out += "<text class=\"axis-title x-title\" x=\"" + num(kLeft + plot_w / 2) + "\" y=\"" + num(kHeight - 14) +
         "\" text-anchor=\"middle\">" + esc(ui("kvmem.html.x-axis", lang)) + "</text>\n";
  out += "<text class=\"axis-title y-title\" transform=\"translate(16 " + num(kTop + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + esc(ui("kvmem.html.y-axis", lang)) + "</text>\n";
  // The learner's context length.
  const double xc = px(e.config.context_length);
  out += "<line class=\"current\" x1=\"" + num(xc) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(xc) + "\" y2=\"" +
         num(kTop + plot_h) + "\"><title>" +
         esc(ui("kvmem.html.current", lang, {std::to_string(e.config.context_length)})) + "</title></line>\n";
  // One line per estimator, a circle per point.
  for (const Curve& s : series) {
    const Look look = look_of(s.mark);
    std::string points;
    for (size_t i = 0; i < e.by_context.size(); ++i)
      points += (points.empty() ? "" : " ") + num(px(e.by_context[i].context_length)) + "," + num(py(gb_at(s, i)));
    out += "<g class=\"series\" data-series=\"" + esc(s.label) + "\">\n<polyline points=\"" + points + "\" stroke=\"" +
           look.colour + "\"" + (*look.dash ? std::string(" stroke-dasharray=\"") + look.dash + "\"" : "") + "/>\n";
    for (size_t i = 0; i < e.by_context.size(); ++i) {
      const KvMemoryTotals& t = e.by_context[i];
      const double gb = gb_at(s, i);
      out += "<circle cx=\"" + num(px(t.context_length)) + "\" cy=\"" + num(py(gb)) + "\" r=\"3.5\" fill=\"" +
             look.colour + "\" data-x=\"" + std::to_string(t.context_length) + "\" data-y=\"" + fixed(gb, 2) +
             "\" data-bytes=\"" + std::to_string(s.bytes[i]) + "\"><title>" +
             esc(ui("kvmem.html.point", lang, {s.label, grouped_2f(gb), std::to_string(t.context_length)})) +
             "</title></circle>\n";
    }
    out += "</g>\n";
  }
  // The legend, top left (where the lines are lowest).
  out += "<g class=\"legend\">\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const Look look = look_of(series[i].mark);
    const double y = kTop + 14 + 18 * static_cast<double>(i);
    out += "<line x1=\"" + num(kLeft + 12) + "\" y1=\"" + num(y) + "\" x2=\"" + num(kLeft + 40) + "\" y2=\"" + num(y) +
           "\" stroke=\"" + look.colour + "\" stroke-width=\"2\"" +
           (*look.dash ? std::string(" stroke-dasharray=\"") + look.dash + "\"" : "") + "/><text x=\"" +
           num(kLeft + 46) + "\" y=\"" + num(y + 4) + "\">" + esc(series[i].label) + "</text>\n";
  }
  out += "</g>\n</svg>\n<figcaption>" + esc(ui("kvmem.html.caption", lang)) + "</figcaption>\n</figure>\n";
  return out;
}

}  // namespace

std::string kv_memory_html(const KvMemoryEstimate& e, Lang lang) {
  std::string blocks;
  kv_text::config_block(blocks, e, lang);
  kv_text::totals_block(blocks, e, lang);
  kv_text::formula_block(blocks, e, lang);
  const std::vector<Series> series = kv_text::series_of(e);
  std::string body = "<main class=\"kv-memory\">\n<h1>" + esc(ui("kvmem.title", lang)) +
                     "</h1>\n<pre class=\"estimate\">" + esc(blocks) + "</pre>\n";
  body += "<h2>" + esc(without_colon(ui("kvmem.by-context", lang))) + "</h2>\n" + table(e, series, lang);
  const kv_text::PlotCurves curves = kv_text::plot_curves(e, lang);
  body += "<h2>" + esc(ui("kvmem.html.chart", lang)) + "</h2>\n" + chart(e, curves.curves, lang);
  if (!curves.note.empty()) body += "<p class=\"note\">" + esc(curves.note) + "</p>\n";
  return html_document(lang, ui("kvmem.title", lang), kKvStyle, body + "</main>\n");
}

}  // namespace attn
