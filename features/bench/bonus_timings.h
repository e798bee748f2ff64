#pragma once
// The book's bonus notebook (ch03/02_bonus_efficient-multihead-attention, mha-implementations.ipynb):
// its nine forms and the CPU timings it printed (%timeit on an Apple M3 MacBook Air, PyTorch 2.4.0).
// Reference data, printed beside the bench's own times; nothing is computed from them but the
// ratios to its row 2 (the chapter's MultiHeadAttention) that the report prints.
#include <optional>
#include <string>
#include <vector>

namespace attn {

struct BonusRow {
  int row;                      // 1 .. 9, the notebook's numbering
  std::string label;            // short, for the table: "2 Ch03_MHA"
  std::string bonus_class;      // the notebook's class and setting
  std::string form;             // the bench form that does its work ("" for none)
  std::optional<double> m3_ms;  // the notebook's M3 CPU time, ms (none: not run on the CPU)
};

// Rows 1 to 9, in the notebook's order.
const std::vector<BonusRow>& bonus_rows();
// The row a bench form stands for, or nullptr.
const BonusRow* bonus_row_of(const std::string& form);
// Where the figures come from, as a learner knows it.
constexpr const char* kBonusSource = "the book's bonus notebook, ch03/02_bonus, on an Apple M3 CPU (PyTorch 2.4.0)";

}  // namespace attn
