#include "notebook/heatmap.h"

#include "notebook/text_width.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace attn {
namespace {

const char* kShades[] = {" ", "\u2591", "\u2592", "\u2593", "\u2588"};  // " ░▒▓█"
const char* kMaskedMark = "\u00b7";                                     // "·"
const char* kReset = "\x1b[0m";
const Rgb kMaskedBg{58, 58, 58}, kMaskedFg{188, 188, 188};

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
  auto dist = [&c](int r, int g, int b) { return (c.r - r) * (c.r - r) + (c.g - g) * (c.g - g) + (c.b - b) * (c.b - b); };
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

// Blank only at the bottom of the scale (a masked or dropped weight), then quarters.
int shade_index(double position) { return position <= 0 ? 0 : std::min(4, 1 + static_cast<int>(position * 4)); }

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

std::string legend(const NamedTensor& t, const HeatScale& s, Palette p) {
  std::string out = "# heatmap " + t.name + ", " + s.describe() + ":";
  const double lo = s.kind == HeatScale::Kind::MinMax ? s.lo : 0, hi = s.kind == HeatScale::Kind::Fixed01 ? 1 : s.hi;
  if (p == Palette::None) {
    out += std::string(" ") + kShades[1] + " >" + short_number(lo);
    for (int i = 2; i < 5; ++i) out += std::string(" ") + kShades[i] + " \u2265" + short_number(lo + (hi - lo) * (i - 1) / 4);
    if (s.has_masked) out += std::string(", ") + kMaskedMark + " -inf (masked)";
  } else {
    out += " " + short_number(lo) + " ";
    for (int i = 0; i < 8; ++i) out += colored("  ", heat_color(i / 7.0), {0, 0, 0}, p);
    out += " " + short_number(hi);
    if (s.has_masked) out += ", " + colored(" -inf ", kMaskedBg, kMaskedFg, p) + " masked";
  }
  return out + "\n";
}

}  // namespace

Palette palette_for(bool color, const char* colorterm) {
  if (!color) return Palette::None;
  const std::string ct = colorterm ? colorterm : "";
  return ct == "truecolor" || ct == "24bit" ? Palette::TrueColor : Palette::Ansi256;
}

std::string heatmap_text(const NamedTensor& t, const std::vector<std::string>& tokens, Palette p) {
  const HeatScale scale = heat_scale(t);
  const DType dtype = t.tensor.dtype();
  const std::vector<AttentionGrid> grids = attention_grids(t.tensor);
  if (grids.empty()) return "";
  const int64_t side = grids.front().side;
  const std::vector<std::string> labels = axis_labels(side, tokens);

  size_t value_w = 0, label_w = 0;
  for (const AttentionGrid& g : grids)
    for (float v : g.values) value_w = std::max(value_w, width(cell_text(v, dtype)));
  for (const std::string& l : labels) label_w = std::max(label_w, std::min<size_t>(10, width(l)));
  // Plain: shade, space, value, space. Colour: space, value, space on the cell's background.
  const size_t cell_w = value_w + (p == Palette::None ? 3 : 2);

  std::string out = legend(t, scale, p);
  for (const AttentionGrid& g : grids) {
    if (!g.caption.empty()) out += g.caption + ":\n";
    out += std::string(label_w + 1, ' ');
    for (const std::string& l : labels) out += pad_left(truncate(l, cell_w - 1), cell_w - 1) + " ";
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
    for (int64_t i = 0; i < side; ++i) {
      std::string row = pad_right(truncate(labels[i], label_w), label_w) + " ";
      for (int64_t j = 0; j < side; ++j) {
        const float v = g.values[i * side + j];
        const std::string text = pad_left(cell_text(v, dtype), value_w);
        const bool finite = std::isfinite(v);
        const double pos = finite ? scale.position(v) : 0;
        if (p == Palette::None) {
          row += std::string(finite ? kShades[shade_index(pos)] : kMaskedMark) + " " + text + " ";
        } else if (!finite) {
          row += colored(" " + text + " ", kMaskedBg, kMaskedFg, p);
        } else {
          const Rgb bg = heat_color(pos);
          row += colored(" " + text + " ", bg, dark_text_on(bg) ? Rgb{0, 0, 0} : Rgb{255, 255, 255}, p);
        }
      }
      while (!row.empty() && row.back() == ' ') row.pop_back();
      out += row + "\n";
    }
  }
  return out;
}

}  // namespace attn
