#pragma once
// The pieces of `attn-tutor check`'s text report (features/check/check_report.cpp) that its HTML
// rendering (check_html.cpp) shows too, so both say the same words about the same tensors.
#include <string>
#include <vector>

#include "features/check/check.h"

namespace attn {
namespace check_text {

// The report's size does not grow with the export's: at most kMaxTensorLines tensors get their own line
// (the first difference always among them; a lesson's whole --json export, 43 tensors at most, fits),
// the rest are counted in one line; every name is shown escaped (echo) and at most kNameColumns
// characters long (the lessons' longest is 53), a line of the lesson's cell at most kCodeColumns.
constexpr size_t kMaxTensorLines = 64;
constexpr size_t kNameColumns = 60;
constexpr size_t kCodeColumns = 200;
constexpr size_t kSourceColumns = 120;
// The text report's layout: the spaces between the two tensors side by side, the narrowest prose wrap.
constexpr size_t kColumnGap = 4;
constexpr size_t kMinProseColumns = 40;

struct Style {
  bool on;
  std::string paint(const std::string& code, const std::string& s) const {
    return on ? "\033[" + code + "m" + s + "\033[0m" : s;
  }
};

// Whether the report is of a traced program (its tensors carry where the program bound them), not an export.
bool traced(const CheckReport& r);
// The lesson's entry under another name whose value the first differing tensor has exactly (a copy-paste
// slip: queries = W_key(inputs)), the nearest to its point; -1 when none.
int equal_under_other_name(const CheckReport& r);
// The sentence that says so for that entry.
std::string other_name_text(const CheckReport& r, int entry, Lang lang);
// The learner's tensor name as the report shows it (echo, at most kNameColumns characters).
std::string shown_name(const std::string& name);
// Which tensors get their own line (1): the first difference, then the file's first ones.
std::vector<char> listed_tensors(const CheckReport& r);
// A line of the lesson's code (which can quote the export's tokens), escaped and shortened.
std::string code_text(const std::string& code);
std::string step_text(const std::string& code);  // code_text of a quoted step, its trailing comments left out
std::vector<std::string> lines_of(const std::string& text);
// Two blocks of lines side by side (kColumnGap apart) when both fit in `page_width` columns (display
// width: a Chinese character takes two), else `left`, a blank line, then `right`.
std::string two_columns(const std::string& left, const std::string& right, size_t page_width);
// The columns the report's prose wraps at on a page `page_width` wide: at most 100, at least kMinProseColumns.
size_t prose_width(size_t page_width);
// print(t) without the autograd suffix or the Parameter prefix: what both sides of the report show.
std::string plain_repr(const Tensor& t);
std::string value_text(float v);
std::string index_text(int64_t flat, const Shape& shape);
std::string diff_text(double d);
// The sentence on the first differing tensor's values (same shape): how many differ, the largest difference,
// the first differing index with both values. `all` (when given): whether every value differs.
std::string values_summary(const TensorCheck& c, const Tensor& yours, const Tensor& tool, Lang lang,
                           bool* all = nullptr);
// The map of differing entries ('x' differs, '.' matches), matrix by matrix.
std::string where_map(const Tensor& yours, const Tensor& tool, Lang lang);
std::string shape_of(const Tensor& t);
std::string in_cell(int cell);
// The sentence naming the tensors that differ although the diagnosis reproduces the first difference:
// at most kMaxTensorLines names, then how many more.
std::string later_differ(const CheckReport& r, Lang lang);
// Where a traced program bound the tensor: "line 42 of my_attention.py (`attn_scores = ...`)", or "cell 5,
// line 3 of ch03.ipynb (...)"; "" for an export's tensor. The learner's file name and code through echo().
std::string origin_text(const LearnerTensor& y, Lang lang);
// One tensor's line of the list: its mark (✓ ✗ ?), `head`, then what the check found.
std::string tensor_line(const CheckReport& r, size_t i, const Style& st, const std::string& head, Lang lang);

}  // namespace check_text
}  // namespace attn
