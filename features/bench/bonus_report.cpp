#include "features/bench/bonus_report.h"

#include <algorithm>
#include <cstdio>

#include "features/bench/bench_report.h"
#include "features/bench/bonus_timings.h"
#include "lessons/ui_text.h"
#include "notebook/text_width.h"

namespace attn {

namespace {

std::string num(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string pad(const std::string& s, size_t width, bool left) {
  const size_t w = display_width(s);
  const std::string fill(w < width ? width - w : 0, ' ');
  return left ? s + fill : fill + s;
}

// faster than mha (-1), level with it within 5% (0), slower (1)
int side(double ratio) { return ratio < 0.95 ? -1 : ratio > 1.05 ? 1 : 0; }

}  // namespace

std::string ratio_text(double ratio) { return num("%.2f", ratio); }

std::string fit_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                      size_t width) {
  std::vector<size_t> widths(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    widths[c] = display_width(columns[c].head);
    for (const auto& row : rows)
      if (c < row.size()) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::vector<bool> shown(columns.size(), true);
  auto total = [&] {
    size_t n = 0, count = 0;
    for (size_t c = 0; c < columns.size(); ++c)
      if (shown[c]) n += widths[c], ++count;
    return n + (count ? count - 1 : 0);
  };
  while (total() > width) {
    size_t drop = 0;  // the shown column kept least, leftmost among equals; never the first
    for (size_t c = 1; c < columns.size(); ++c)
      if (shown[c] && (drop == 0 || columns[c].keep < columns[drop].keep)) drop = c;
    if (drop == 0) break;
    shown[drop] = false;
  }
  auto line = [&](auto cell) {
    std::string out;
    for (size_t c = 0; c < columns.size(); ++c) {
      if (!shown[c]) continue;
      if (!out.empty()) out += ' ';
      out += pad(cell(c), widths[c], columns[c].left);
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  };
  std::string out = line([&](size_t c) { return columns[c].head; });
  for (const auto& row : rows) out += line([&](size_t c) { return c < row.size() ? row[c] : std::string(); });
  return out;
}

std::string render_bonus_section(const BenchResult& r, Lang lang, size_t width) {
  auto note = [&](const std::string& text) { return wrap_text(text, "# ", width) + "\n"; };
  const FormResult& M = *r.form("mha");
  const BonusRow& m3_mha = *bonus_row_of("mha");
  auto ours = [&](const FormResult& f) { return f.median_ms / M.median_ms; };
  auto m3 = [&](const BonusRow& row) { return *row.m3_ms / *m3_mha.m3_ms; };
  std::string out = wrap_text(ui("bench.bonus.title", lang), "", width);
  const std::vector<TableColumn> columns = {
      {ui("bench.col.form", lang), true, 9},        {ui("bench.col.bonus", lang), true, 6},
      {ui("bench.col.ours-ms", lang), false, 1},    {ui("bench.col.m3-ms", lang), false, 5},
      {ui("bench.col.ours-ratio", lang), false, 7}, {ui("bench.col.m3-ratio", lang), false, 7},
      {ui("bench.col.diff-short", lang), false, 3}};
  std::vector<std::vector<std::string>> rows;
  std::string same, differs;
  for (const BonusRow& row : bonus_rows()) {
    const FormResult* f = r.form(row.form);
    if (!f || !row.m3_ms) continue;
    rows.push_back(
        {f->name, row.label, ms_text(f->median_ms), num("%g", *row.m3_ms), ratio_text(ours(*f)), ratio_text(m3(row)),
         f == &M ? ui("bench.reference", lang) : (f->max_abs_diff == 0 ? "0" : num("%.1e", f->max_abs_diff))});
    if (f == &M) continue;
    // Ours is level with mha also where the two timings' min–max ranges overlap: no difference measured.
    const int our_side = ranges_overlap(*f, M) ? 0 : side(ours(*f));
    std::string& list = our_side == side(m3(row)) ? same : differs;
    list += (list.empty() ? "" : ", ") + f->name;
  }
  out += fit_table(columns, rows, width);
  out += "\n" + note(ui("bench.bonus.ratios", lang));
  out += note(ui("bench.bonus.flex", lang));
  const FormResult* E = r.form("einsum");
  const FormResult* S = r.form("sdpa-mask");
  const FormResult* N = r.form("torch-mha");
  const FormResult* NW = r.form("torch-mha-weights");
  enum { P = Workspace::kProjections, A = Workspace::kAttention };
  if (E)
    out += note(ui("bench.einsum", lang,
                   {ms_text(E->phase_median_ms[P]), ms_text(M.phase_median_ms[P]), ratio_text(ours(*E)),
                    ratio_text(m3(*bonus_row_of("einsum")))}));
  if (S)
    out += note(
        ui("bench.sdpa-mask", lang,
           {ratio_text(ours(*S)), ratio_text(m3(*bonus_row_of("flash"))), ratio_text(m3(*bonus_row_of("sdpa-mask")))}));
  if (N || NW)
    out += note(ui("bench.torch-mha", lang,
                   {ratio_text(m3(*bonus_row_of("torch-mha"))), ratio_text(m3(*bonus_row_of("torch-mha-weights")))}) +
                (N && NW ? ui("bench.torch-mha.averaging", lang,
                              {ms_text(NW->phase_median_ms[A]), ms_text(N->phase_median_ms[A]),
                               ratio_text(NW->median_ms / N->median_ms)})
                         : std::string()));
  if (rows.size() > 1)
    out += note(differs.empty() ? ui("bench.order.same", lang)
                                : ui("bench.order.differs", lang, {same.empty() ? "—" : same, differs}));
  return out;
}

}  // namespace attn
