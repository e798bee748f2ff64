// kv-memory's plot (--plot): which curves it draws, as the bonus material's plot scripts draw them
// (plot_memory_estimates_gqa.py: MHA and GQA at several n_kv_groups; _mla.py: MHA and MLA at several
// latent sizes; _swa.py: MHA, GQA and their SWA versions), and the text chart of them: the terminal's
// full width, x on a log2 scale (each context length doubles), y linear in GB from 0 with ticks, a
// legend, the learner's context length marked on the x axis.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <cstdio>

#include "features/kv_memory/kv_memory.h"
#include "features/kv_memory/kv_memory_parts.h"
#include "lessons/ui_text.h"
#include "notebook/text_width.h"

namespace attn {
namespace kv_text {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

std::string one_decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The bytes of `field` of an estimate for `config` at each of e's context lengths.
template <typename Field>
std::vector<int64_t> bytes_for(const KvMemoryConfig& config, Field field) {
  KvMemoryConfig c = config;
  c.plot = "methods";
  const KvMemoryEstimate other = estimate_kv_memory(c);
  std::vector<int64_t> out;
  for (const KvMemoryTotals& t : other.by_context) out.push_back(field(t));
  return out;
}

std::vector<int64_t> series_bytes(const KvMemoryEstimate& e, const Series& s) {
  std::vector<int64_t> out;
  for (const KvMemoryTotals& t : e.by_context) out.push_back(*s.value(t));
  return out;
}

// `values` with `first` in front, each once, in that order.
template <typename T>
std::vector<T> with_first(const T& first, const std::vector<T>& values) {
  std::vector<T> out = {first};
  for (const T& v : values)
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

const char kMarks[] = "ABCDEFGHIJK";

}  // namespace

PlotCurves plot_curves(const KvMemoryEstimate& e, Lang lang) {
  const KvMemoryConfig& c = e.config;
  PlotCurves p;
  if (c.plot != "gqa" && c.plot != "mla" && c.plot != "swa") {  // "methods" (the CLI takes only these four)
    for (const Series& s : series_of(e)) p.curves.push_back({s.mark, s.label, series_bytes(e, s)});
    return p;
  }
  p.curves.push_back({'M', "MHA", series_bytes(e, series_of(e).front())});
  size_t next = 0;
  if (c.plot == "gqa") {
    std::vector<std::string> skipped;
    for (int64_t g : with_first<int64_t>(c.num_kv_groups, {4, 8, 12, 24})) {
      if (c.num_heads % g != 0) {
        skipped.push_back(str(g));
        continue;
      }
      KvMemoryConfig k = c;
      k.num_kv_groups = g;
      const std::string label = "GQA n_kv_groups=" + str(g) + " (" + one_decimal(static_cast<double>(g)) + "x)";
      p.curves.push_back({kMarks[next++], label, bytes_for(k, [](const KvMemoryTotals& t) { return t.gqa; })});
    }
    std::sort(p.curves.begin() + 1, p.curves.end(),
              [](const PlotCurve& a, const PlotCurve& b) { return a.bytes.back() > b.bytes.back(); });
    for (size_t i = 1; i < p.curves.size(); ++i) p.curves[i].mark = kMarks[i - 1];
    if (!skipped.empty()) {
      std::string list;
      for (const std::string& s : skipped) list += (list.empty() ? "" : ", ") + s;
      p.note = ui("kvmem.plot-skipped", lang, {list, str(c.num_heads)});
    }
  } else if (c.plot == "mla") {
    std::vector<int64_t> sizes = {1024, 512, 256, 64};
    if (c.latent_dim) sizes = with_first<int64_t>(*c.latent_dim, sizes);
    std::sort(sizes.begin(), sizes.end(), std::greater<int64_t>());
    for (int64_t d : sizes) {
      KvMemoryConfig k = c;
      k.latent_dim = d;
      std::vector<int64_t> b = bytes_for(k, [](const KvMemoryTotals& t) { return *t.mla; });
      const double ratio = static_cast<double>(p.curves.front().bytes.back()) / static_cast<double>(b.back());
      p.curves.push_back({kMarks[next++], "MLA latent_dim=" + str(d) + " (" + one_decimal(ratio) + "x)", b});
    }
  } else {  // swa: --window given (estimate_kv_memory checks)
    const std::string w = str(*c.window);
    p.curves.push_back({'G', "GQA", series_bytes(e, series_of(e)[1])});
    for (const std::string& ratio : with_first<std::string>(c.swa_ratio, {"1:0", "5:1", "1:1"})) {
      KvMemoryConfig k = c;
      k.swa_ratio = ratio;
      p.curves.push_back({kMarks[next++], "MHA+SWA " + ratio + " W=" + w,
                          bytes_for(k, [](const KvMemoryTotals& t) { return *t.swa; })});
    }
    p.curves.push_back({kMarks[next++], "GQA+SWA " + c.swa_ratio + " W=" + w,
                        bytes_for(c, [](const KvMemoryTotals& t) { return *t.gqa_swa; })});
  }
  return p;
}

std::vector<int64_t> plot_ticks(double largest, double& step, int& decimals) {
  step = 1;
  decimals = 0;
  std::vector<int64_t> out;
  if (!(largest > 0)) return {0, 1};
  const double raw = largest / 5, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
  decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  const int64_t n = static_cast<int64_t>(std::ceil(largest / step - 1e-9));
  for (int64_t i = 0; i <= n; ++i) out.push_back(i);
  return out;
}

void plot_text(std::string& out, const KvMemoryEstimate& e, Lang lang, size_t columns) {
  const PlotCurves p = plot_curves(e, lang);
  const size_t n = e.by_context.size();
  double largest = 0;
  for (const PlotCurve& c : p.curves)
    for (int64_t b : c.bytes) largest = std::max(largest, static_cast<double>(b) / 1e9);
  double step = 1;
  int decimals = 0;
  const std::vector<int64_t> ticks = plot_ticks(largest, step, decimals);
  const double top = static_cast<double>(ticks.back()) * step;
  auto tick_text = [&](int64_t i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, static_cast<double>(i) * step);
    return std::string(buf);
  };
  size_t label_w = 2;  // "GB"
  for (int64_t i : ticks) label_w = std::max(label_w, tick_text(i).size());
  const size_t width = std::max<size_t>(columns, 40);
  const size_t plot_w = width - label_w - 2;  // "label |" then the plot
  const int rows = 16;
  const double x0 = std::log2(static_cast<double>(e.by_context.front().context_length));
  const double x1 = std::log2(static_cast<double>(e.by_context.back().context_length));
  auto col = [&](int64_t len) {
    const double f = x1 > x0 ? (std::log2(static_cast<double>(len)) - x0) / (x1 - x0) : 0.5;
    return static_cast<size_t>(std::lround(f * static_cast<double>(plot_w - 2))) + 1;
  };
  auto row = [&](double gb) { return rows - 1 - static_cast<int>(std::lround(top > 0 ? gb / top * (rows - 1) : 0)); };
  std::vector<std::string> grid(rows, std::string(plot_w, ' '));
  std::vector<std::vector<bool>> point(rows, std::vector<bool>(plot_w, false));
  // The lines between the points first (only into empty cells), then the points over them.
  for (const PlotCurve& c : p.curves)
    for (size_t i = 0; i + 1 < n; ++i) {
      const size_t a = col(e.by_context[i].context_length), b = col(e.by_context[i + 1].context_length);
      const double ya = static_cast<double>(c.bytes[i]) / 1e9, yb = static_cast<double>(c.bytes[i + 1]) / 1e9;
      for (size_t x = a + 1; x < b; ++x) {
        const int r = row(ya + (yb - ya) * static_cast<double>(x - a) / static_cast<double>(b - a));
        char& cell = grid[static_cast<size_t>(r)][x];
        if (cell == ' ') cell = static_cast<char>(std::tolower(static_cast<unsigned char>(c.mark)));  // m between M's
      }
    }
  for (const PlotCurve& c : p.curves)
    for (size_t i = 0; i < n; ++i) {
      const size_t x = col(e.by_context[i].context_length),
                   r = static_cast<size_t>(row(static_cast<double>(c.bytes[i]) / 1e9));
      char& cell = grid[r][x];
      cell = point[r][x] && cell != c.mark ? '*' : c.mark;
      point[r][x] = true;
    }
  out += "\n" + wrap_text(ui("kvmem.plot", lang), "", width);
  out += pad_left("GB", label_w) + "\n";
  for (int r = 0; r < rows; ++r) {
    std::string label;
    for (int64_t i : ticks)
      if (row(static_cast<double>(i) * step) == r && label.empty()) label = tick_text(i);
    std::string line = pad_left(label, label_w) + (label.empty() ? " |" : " +") + grid[static_cast<size_t>(r)];
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  std::string axis = std::string(label_w + 1, ' ') + "+" + std::string(plot_w, '-');
  std::string labels(width, ' ');
  size_t free_from = 0;
  for (const KvMemoryTotals& t : e.by_context) {
    const size_t x = label_w + 2 + col(t.context_length);
    const bool current = t.context_length == e.config.context_length;
    axis[x] = current ? '^' : '+';
    const bool power = (t.context_length & (t.context_length - 1)) == 0;
    const std::string text = short_length(t.context_length);
    const size_t start =
        std::min(x >= text.size() / 2 ? x - text.size() / 2 : 0, width - text.size());  // the last at the edge
    if ((power || current) && start >= free_from && start + text.size() <= labels.size()) {
      labels.replace(start, text.size(), text);
      free_from = start + text.size() + 1;
    }
  }
  while (!labels.empty() && labels.back() == ' ') labels.pop_back();
  out += axis + "\n" + labels + "\n";
  out += wrap_text(ui("kvmem.html.x-axis", lang), std::string(label_w + 2, ' '), width);
  std::vector<std::string> pieces;
  for (const PlotCurve& c : p.curves) pieces.push_back(std::string(1, c.mark) + " " + c.label);
  pieces.push_back("* " + ui("kvmem.several", lang));
  pieces.push_back("^ " + ui("kvmem.html.current", lang, {str(e.config.context_length)}));
  std::string line;
  for (const std::string& piece : pieces) {
    if (!line.empty() && display_width(line) + 3 + display_width(piece) > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "  " : "   ") + piece;
  }
  if (!line.empty()) out += line + "\n";
  if (!p.note.empty()) out += wrap_text(p.note, "# ", width);
}

}  // namespace kv_text
}  // namespace attn
