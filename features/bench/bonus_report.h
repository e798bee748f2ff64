#pragma once
// bench's comparison with the book's bonus notebook (bonus_timings.h): which row each form is, its
// time and the notebook's M3 CPU time as ratios to the chapter's MultiHeadAttention, and notes on
// where the two orderings differ and why. Also the table layout both of bench's tables use.
#include <string>
#include <vector>

#include "features/bench/attention_bench.h"
#include "notebook/notebook.h"

namespace attn {

// A column of a text table: its heading, whether it is aligned left, and how long it is kept when
// the table is wider than the terminal (columns with the lowest `keep` are left out first).
struct TableColumn {
  std::string head;
  bool left = false;
  int keep = 0;
};
// The table with every column as wide as its widest cell, one space apart, fitted to `columns`
// terminal columns by leaving out the columns kept least (never the first).
std::string fit_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                      size_t width);

// A ratio as the comparison prints it: two decimals ("1.08").
std::string ratio_text(double ratio);

// The section "against the book's bonus notebook": table, FlexAttention's row, the forms' notes and
// the ordering; notes wrapped to `width` columns.
std::string render_bonus_section(const BenchResult& r, Lang lang, size_t width);

}  // namespace attn
