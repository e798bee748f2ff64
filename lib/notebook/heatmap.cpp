#include "notebook/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "notebook/notebook_maps.h"
#include "notebook/picture_text.h"
#include "notebook/text_width.h"

namespace attn {
namespace {

const char* kShades[] = {" ", "\u2591", "\u2592", "\u2593", "\u2588"};  // " ░▒▓█"
const char* kMaskedMark = "\u00b7";                                     // "·"
const char* kDroppedMark = "\u00d7";                                    // "×"
const char* kReset = "\x1b[0m";
const char* kEighths[] = {"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589"};
constexpr size_t kWidth = 80, kMaxLabel = 10, kBarCells = 40;

// How much of each cell's value a grid shows: all four decimals, two (short_value), or none (shading).
enum class Detail { Full, Short, Shade };

size_t width(const std::string& s) { return display_width(s); }

std::string truncate(const std::string& s, size_t max) {
  std::string out;
  size_t n = 0;
  for (const auto& ch : display_characters(s)) {
    if (n + ch.second > max) break;
    out += ch.first;
    n += ch.second;
  }
  return out;
}

std::string pad_left(const std::string& s, size_t w) { return std::string(w - std::min(w, width(s)), ' ') + s; }
std::string pad_right(const std::string& s, size_t w) { return s + std::string(w - std::min(w, width(s)), ' '); }

// The xterm-256 entry nearest to c: the 6x6x6 colour cube, or for a grey (masked cells) the grey ramp
// when closer. Heat colours stay in the cube so that none of them reads as masked.
int ansi256(Rgb c) {
  auto level = [](int v) { return v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40; };
  auto value = [](int l) { return l == 0 ? 0 : 55 + 40 * l; };
  auto dist = [&c](int r, int g, int b) {
    return (c.r - r) * (c.r - r) + (c.g - g) * (c.g - g) + (c.b - b) * (c.b - b);
  };
  const int lr = level(c.r), lg = level(c.g), lb = level(c.b);
  const int grey = std::clamp(((c.r + c.g + c.b) / 3 - 8 + 5) / 10, 0, 23), gv = 8 + 10 * grey;
  const bool is_grey = c.r == c.g && c.g == c.b;
  if (is_grey && dist(gv, gv, gv) < dist(value(lr), value(lg), value(lb))) return 232 + grey;
  return 16 + 36 * lr + 6 * lg + lb;
}

std::string sgr(Rgb c, bool background, Palette p) {
  const std::string which = background ? "48" : "38";
  if (p == Palette::TrueColor)
    return "\x1b[" + which + ";2;" + std::to_string(c.r) + ";" + std::to_string(c.g) + ";" + std::to_string(c.b) + "m";
  return "\x1b[" + which + ";5;" + std::to_string(ansi256(c)) + "m";
}

std::string colored(const std::string& text, Rgb bg, Rgb fg, Palette p) {
  return sgr(bg, true, p) + sgr(fg, false, p) + text + kReset;
}

// Quarters of the scale; blank only for a 0 on the fixed 0…1 scale (a mask's False, a weight of 0).
int shade_index(double position, const HeatScale& s) {
  if (position <= 0 && s.kind == HeatScale::Kind::Fixed01) return 0;
  return std::min(4, 1 + static_cast<int>(position * 4));
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

// `pieces` joined by two spaces on lines of at most 80 columns, each starting with "# ".
std::string fill_lines(const std::vector<std::string>& pieces) {
  std::string out, line;
  for (const std::string& piece : pieces) {
    if (!line.empty() && visible_width(line) + 2 + visible_width(piece) > kWidth) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "# " : "  ") + piece;
  }
  return line.empty() ? out : out + line + "\n";
}

std::string legend(const std::string& title, const HeatScale& s, Palette p, Lang lang, Detail detail, bool bars) {
  std::string out = wrap_text(title, "# ", kWidth);
  out += wrap_text(bars ? picture_say("map.bar_scale", lang, {cell_text(s.hi, DType::Float32)}) : s.describe(lang),
                   "# ", kWidth);
  if (bars) return out;
  std::vector<std::string> pieces;
  const double lo = s.lo, hi = s.kind == HeatScale::Kind::Fixed01 ? 1 : s.hi;
  if (p == Palette::None) {
    std::string key = s.kind == HeatScale::Kind::Fixed01 ? "\u2591 >" + short_number(lo)
                                                         : kShades[1] + std::string(" \u2265") + short_number(lo);
    for (int i = 2; i < 5; ++i)
      key += std::string(" ") + kShades[i] + " \u2265" +
             short_number(s.kind == HeatScale::Kind::Quartiles ? s.cuts[static_cast<size_t>(i - 2)]
                                                               : lo + (hi - lo) * (i - 1) / 4);
    pieces.push_back(key);
    if (s.kind == HeatScale::Kind::Fixed01) pieces.push_back(picture_say("map.zero", lang));
    if (s.has_masked) pieces.push_back(std::string(kMaskedMark) + " " + picture_say("map.masked", lang));
    if (s.has_dropped) pieces.push_back(std::string(kDroppedMark) + " " + picture_say("map.dropped", lang));
  } else {
    std::string ramp = short_number(lo) + " ";
    for (int i = 0; i < 8; ++i) ramp += colored("  ", heat_color(i / 7.0), {0, 0, 0}, p);
    pieces.push_back(ramp + " " + short_number(hi));
    if (s.has_masked)
      pieces.push_back(colored(" \u00b7 ", kMaskedBg, kMaskedFg, p) + " " + picture_say("map.masked", lang));
    if (s.has_dropped)
      pieces.push_back(colored(" \u00d7 ", kDroppedBg, kDroppedFg, p) + " " + picture_say("map.dropped", lang));
  }
  out += fill_lines(pieces);
  if (detail != Detail::Full)
    out +=
        wrap_text(picture_say(detail == Detail::Short ? "map.values_short" : "map.values_omitted", lang), "# ", kWidth);
  return out;
}

// A value in at most 4 columns where it can: ".08", "-.14", "1.0", "12", "T"/"F" for a bool.
std::string short_value(float v, DType dtype) {
  if (dtype == DType::Bool) return v != 0 ? "T" : "F";
  if (!std::isfinite(v)) return cell_text(v, dtype);
  const double a = std::fabs(static_cast<double>(v));
  char buf[32];
  if (a < 0.995) {
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
    std::string t = buf;
    if (t == "0.00" || t == "-0.00") return "0";
    const size_t zero = t.find("0.");
    if (zero != std::string::npos && zero <= 1) t.erase(zero, 1);  // "0.08" -> ".08", "-0.14" -> "-.14"
    return t;
  }
  std::snprintf(buf, sizeof buf, a < 9.95 ? "%.1f" : a < 999.5 ? "%.0f" : "%.0e", static_cast<double>(v));
  return buf;
}

std::string value_text(float v, DType dtype, Detail d) {
  return d == Detail::Full ? cell_text(v, dtype) : short_value(v, dtype);
}

// One cell: its value (full or short) or two columns of shading; its glyph or colour by its mark.
std::string cell(float v, CellMark mark, const HeatScale& s, DType dtype, size_t value_w, Detail detail, Palette p) {
  const bool masked = mark == CellMark::Masked || !std::isfinite(v), dropped = mark == CellMark::Dropped;
  const double pos = masked || dropped ? 0 : s.position(v);
  const char* glyph = masked ? kMaskedMark : dropped ? kDroppedMark : kShades[shade_index(pos, s)];
  const bool shade = detail == Detail::Shade;
  if (p == Palette::None) {
    if (shade) return std::string(glyph) + glyph + " ";
    return std::string(glyph) + (detail == Detail::Full ? " " : "") + pad_left(value_text(v, dtype, detail), value_w) +
           " ";
  }
  const std::string text = shade                     ? (masked || dropped ? std::string(glyph) + glyph : "  ")
                           : detail == Detail::Short ? pad_left(value_text(v, dtype, detail), value_w)
                                                     : " " + pad_left(cell_text(v, dtype), value_w) + " ";
  const std::string gap = detail == Detail::Full ? "" : " ";
  if (masked) return colored(text, kMaskedBg, kMaskedFg, p) + gap;
  if (dropped) return colored(text, kDroppedBg, kDroppedFg, p) + gap;
  const Rgb bg = heat_color(pos);
  return colored(text, bg, dark_text_on(bg) ? Rgb{0, 0, 0} : Rgb{255, 255, 255}, p) + gap;
}

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string bars_text(const NamedTensor& t, const std::vector<std::string>& tokens, Palette p, Lang lang,
                      const std::string& title) {
  const std::vector<float> v = t.tensor.values();
  HeatScale s;
  s.kind = HeatScale::Kind::ZeroToMax;
  s.hi = 0;
  for (float x : v)
    if (std::isfinite(x)) s.hi = std::max(s.hi, x);
  std::string out = legend(title, s, p, lang, Detail::Full, true);
  const std::vector<std::string> labels = axis_labels(static_cast<int64_t>(v.size()), tokens);
  size_t label_w = 0, value_w = 0;
  for (const std::string& l : labels) label_w = std::max(label_w, std::min(kMaxLabel, width(l)));
  for (float x : v) value_w = std::max(value_w, width(cell_text(x, DType::Float32)));
  for (size_t i = 0; i < v.size(); ++i) {
    const double eighths =
        s.hi > 0 && std::isfinite(v[i]) ? std::max(0.0, static_cast<double>(v[i]) / s.hi) * kBarCells * 8 : 0;
    const int n = static_cast<int>(std::lround(eighths));
    std::string bar;
    for (int k = 0; k < n / 8; ++k) bar += kShades[4];
    bar += kEighths[n % 8];
    out += trimmed(pad_right(truncate(labels[i], label_w), label_w) + " " +
                   pad_left(cell_text(v[i], DType::Float32), value_w) + " " + bar) +
           "\n";
  }
  return out;
}

}  // namespace

Palette palette_for(bool color, const char* colorterm) {
  if (!color) return Palette::None;
  const std::string ct = colorterm ? colorterm : "";
  return ct == "truecolor" || ct == "24bit" ? Palette::TrueColor : Palette::Ansi256;
}

std::string heatmap_text(const NamedTensor& t, const std::vector<std::string>& tokens, Palette p, Lang lang,
                         const std::string& given_title, const Tensor* undropped) {
  const std::string title = given_title.empty() ? map_title({t}, lang) : given_title;
  if (is_weight_vector(t)) return bars_text(t, tokens, p, lang, title);
  HeatScale scale = heat_scale(t, undropped);
  const std::vector<AttentionGrid> before = undropped_grids(t.tensor, undropped);
  const DType dtype = t.tensor.dtype();
  const std::vector<AttentionGrid> grids = attention_grids(t.tensor);
  if (grids.empty()) return "";
  const int64_t rows = grids.front().rows, cols = grids.front().cols;
  const std::vector<std::string> row_labels = axis_labels(rows, tokens), col_labels = axis_labels(cols, tokens);

  size_t full_w = 0, short_w = 0, label_w = 0;
  for (const AttentionGrid& g : grids)
    for (float v : g.values) {
      full_w = std::max(full_w, width(cell_text(v, dtype)));
      short_w = std::max(short_w, width(short_value(v, dtype)));
    }
  for (const std::string& l : row_labels) label_w = std::max(label_w, std::min(kMaxLabel, width(l)));
  // Plain: glyph, space, value, space. Colour: space, value, space on the cell's background.
  Detail detail = label_w + cols * (full_w + (p == Palette::None ? 3 : 2)) > kWidth ? Detail::Short : Detail::Full;
  std::vector<std::string> labels = row_labels;
  if (detail != Detail::Full) {  // "3 with": the row's number, which also heads its column
    const size_t digits = std::to_string(rows - 1).size();
    label_w = 0;
    for (int64_t i = 0; i < rows; ++i) {
      labels[i] = pad_left(std::to_string(i), digits) + " " + row_labels[i];
      label_w = std::max(label_w, std::min(kMaxLabel, width(labels[i])));
    }
    // Short: glyph (plain only), the rounded value, space; else two columns of shading and a space.
    const size_t short_cell = std::max<size_t>(short_w + (p == Palette::None ? 2 : 1), 3);
    if (label_w + 1 + cols * short_cell > kWidth) detail = Detail::Shade;
  }
  size_t value_w = detail == Detail::Full ? full_w : short_w;
  if (detail == Detail::Short) value_w = std::max<size_t>(value_w, p == Palette::None ? 1 : 2);  // the column number
  const size_t cell_w = detail == Detail::Shade ? 3
                                                : value_w + (detail == Detail::Full ? (p == Palette::None ? 3 : 2)
                                                                                    : (p == Palette::None ? 2 : 1));
  // Shading alone carries the values: each shade a quarter of the values shown, not a quarter of 0…1 (a row
  // of 1/12s would all be the lightest shade on 0…1, and on the values' range most of a causal grid of many
  // tokens is still its lightest quarter).
  if (detail == Detail::Shade && scale.kind == HeatScale::Kind::Fixed01 && !scale.mask) {
    std::vector<float> shown;
    for (size_t gi = 0; gi < grids.size(); ++gi) {
      const std::vector<CellMark> marks = cell_marks(t, grids[gi], before.empty() ? nullptr : &before[gi]);
      for (size_t k = 0; k < grids[gi].values.size(); ++k)
        if (marks[k] == CellMark::None && std::isfinite(grids[gi].values[k])) shown.push_back(grids[gi].values[k]);
    }
    std::sort(shown.begin(), shown.end());
    if (shown.size() >= 4 && shown.back() > shown.front()) {
      scale.kind = HeatScale::Kind::Quartiles;
      scale.lo = shown.front();
      scale.hi = shown.back();
      scale.cuts.clear();
      for (size_t q = 1; q < 4; ++q) scale.cuts.push_back(shown[q * shown.size() / 4]);
    }
  }

  std::string out = legend(title, scale, p, lang, detail, false);
  for (size_t gi = 0; gi < grids.size(); ++gi) {
    const AttentionGrid& g = grids[gi];
    const std::string caption = grid_caption(g, lang);
    if (!caption.empty()) out += caption + ":\n";
    std::string head(label_w + 1, ' ');
    for (int64_t j = 0; j < cols; ++j)
      head += detail == Detail::Full ? pad_left(truncate(col_labels[j], cell_w - 1), cell_w - 1) + " "
                                     : pad_left(std::to_string(j), cell_w - 1) + " ";
    out += trimmed(head) + "\n";
    const std::vector<CellMark> marks = cell_marks(t, g, before.empty() ? nullptr : &before[gi]);
    for (int64_t i = 0; i < rows; ++i) {
      std::string row = pad_right(truncate(labels[i], label_w), label_w) + " ";
      for (int64_t j = 0; j < cols; ++j) {
        const size_t k = static_cast<size_t>(i * cols + j);
        row += cell(g.values[k], marks[k], scale, dtype, value_w, detail, p);
      }
      out += trimmed(row) + "\n";
    }
  }
  return out;
}

std::string output_heatmaps(const Notebook& nb, const NotebookItem& item, Palette palette, Lang lang) {
  if (nb.items().empty() || &item < &nb.items().front() || &item > &nb.items().back()) return "";
  std::string out;
  for (const MapSource& m : maps_after(nb, static_cast<size_t>(&item - &nb.items().front())))
    out += heatmap_text(m.tensor, map_tokens(nb, m), palette, lang, map_title(m, lang),
                        m.undropped ? &*m.undropped : nullptr);
  return out;
}

}  // namespace attn
