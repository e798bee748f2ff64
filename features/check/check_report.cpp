#include "features/check/check_report.h"

#include "notebook/text_width.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "notebook/json_export.h"
#include "notebook/notebook_text.h"
#include "core/safe_text.h"
#include "core/tensor_print.h"
#include "lessons/ui_text.h"
#include "features/check/check_report_parts.h"

namespace attn {

namespace check_text {

std::string shown_name(const std::string& name) { return echo(name, kNameColumns); }

std::vector<char> listed_tensors(const CheckReport& r) {
  std::vector<char> listed(r.checks.size(), 0);
  size_t lines = 0;
  if (r.first_divergence >= 0) {
    listed[static_cast<size_t>(r.first_divergence)] = 1;
    ++lines;
  }
  for (size_t i = 0; i < r.checks.size() && lines < kMaxTensorLines; ++i)
    if (!listed[i]) {
      listed[i] = 1;
      ++lines;
    }
  return listed;
}

// A line of the lesson's code (which can quote the export's tokens); the lessons' longest has 118 characters.
// A line of the lesson's code without its trailing comment (a `#` outside a string), as a step is quoted.
std::string without_comment(const std::string& line) {
  const size_t i = python_comment_start(line);
  if (i == std::string::npos || i == 0) return line;
  const size_t end = line.find_last_not_of(' ', i - 1);
  return end == std::string::npos ? line : line.substr(0, end + 1);
}

std::string code_text(const std::string& code) {
  std::string out;
  for (size_t from = 0;;) {
    const size_t end = code.find('\n', from);
    out += echo(code.substr(from, end == std::string::npos ? std::string::npos : end - from), kCodeColumns);
    if (end == std::string::npos) return out;
    out += '\n';
    from = end + 1;
  }
}

std::string step_text(const std::string& code) {
  std::string bare;
  for (const std::string& line : lines_of(code)) bare += (bare.empty() ? "" : "\n") + without_comment(line);
  return code_text(bare);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t columns(const std::string& s) { return display_width(s); }

std::string two_columns(const std::string& left, const std::string& right, size_t page_width) {
  const std::vector<std::string> a = lines_of(left), b = lines_of(right);
  size_t width = 0, right_width = 0;
  for (const std::string& line : a) width = std::max(width, columns(line));
  for (const std::string& line : b) right_width = std::max(right_width, columns(line));
  if (width + kColumnGap + right_width > page_width) return left + "\n\n" + right + "\n";  // one above the other
  std::string out;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    std::string line = i < a.size() ? a[i] : "";
    if (i < b.size()) line += std::string(width - columns(line) + kColumnGap, ' ') + b[i];
    out += line + "\n";
  }
  return out;
}

bool traced(const CheckReport& r) {
  return std::any_of(r.yours.begin(), r.yours.end(), [](const LearnerTensor& t) { return t.origin.has_value(); });
}

int equal_under_other_name(const CheckReport& r) {
  if (r.ok()) return -1;
  const LearnerTensor& y = r.yours[r.first_divergence];
  // Only a computed value tells: a mask of ones and zeros, or a constant, equals many a step.
  std::set<float> distinct;
  for (float v : y.tensor.values())
    if (std::isfinite(v) && distinct.size() < 3) distinct.insert(v);
  if (distinct.size() < 3) return -1;
  const int point = r.checks[r.first_divergence].expected;
  int best = -1;
  for (int j = 0; j < static_cast<int>(r.tool.size()); ++j) {
    const Binding& b = r.tool[j];
    if (b.name == y.name || b.tensor.shape() != y.tensor.shape() || !tensors_close(y.tensor, b.tensor, 1e-6)) continue;
    if (best < 0 || std::abs(j - point) < std::abs(best - point)) best = j;
  }
  return best;
}

std::string other_name_text(const CheckReport& r, int entry, Lang lang) {
  const Binding& b = r.tool[entry];
  return ui("check.equals-other", lang,
            {shown_name(r.yours[r.first_divergence].name), shown_name(b.name), step_text(b.code), in_cell(b.cell)});
}

size_t prose_width(size_t page_width) {
  return std::max<size_t>(kMinProseColumns, std::min<size_t>(100, page_width - std::min<size_t>(page_width, 2)));
}

// Text wrapped at `width` columns (text_width.h: no word, number or Chinese word split), every line
// after the first indented by `indent`.
std::string wrap(const std::string& text, size_t width, const std::string& indent) {
  // "In [5]" kept on one line: its space made a no-break space for the wrapping, then given back.
  const std::string nbsp = "\xC2\xA0";
  std::string kept = text;
  for (size_t at = kept.find("In ["); at != std::string::npos; at = kept.find("In [", at + 4))
    kept.replace(at + 2, 1, nbsp);
  std::string out = wrap_text(kept, indent, width + columns(indent));
  for (size_t at = out.find("In" + nbsp + "["); at != std::string::npos; at = out.find("In" + nbsp + "[", at + 3))
    out.replace(at + 2, nbsp.size(), " ");
  if (!out.empty()) out.pop_back();
  return out.substr(std::min(out.size(), indent.size()));
}

std::string plain_repr(const Tensor& t) {
  PrintSpec spec = print_spec(t);
  spec.autograd.reset();
  spec.parameter = false;
  return repr(spec);
}

std::string value_text(float v) {
  std::string s = json_float(v);
  if (!s.empty() && s.front() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<int64_t> multi_index(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

std::string index_text(int64_t flat, const Shape& shape) {
  const std::vector<int64_t> idx = multi_index(flat, shape);
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

std::string diff_text(double d) {
  if (std::isinf(d)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", d);
  return buf;
}

// A map of the differing entries, one character per value ('x' differs, '.' matches), matrix by matrix.
std::string values_summary(const TensorCheck& c, const Tensor& yours, const Tensor& tool, Lang lang, bool* all) {
  const std::vector<float> a = yours.values(), b = tool.values();
  const bool every = c.differing == static_cast<int64_t>(a.size());
  if (all) *all = every;
  const std::string how_many =
      every ? ui("check.all-values", lang, {std::to_string(a.size())})
            : ui("check.some-values", lang, {std::to_string(c.differing), std::to_string(a.size())});
  return ui("check.values-summary", lang,
            {how_many, diff_text(c.max_diff), index_text(c.first_diff, tool.shape()), value_text(a[c.first_diff]),
             value_text(b[c.first_diff])});
}

std::string where_map(const Tensor& yours, const Tensor& tool, Lang lang) {
  const Shape& shape = tool.shape();
  const std::vector<float> a = yours.values(), b = tool.values();
  const int64_t cols = shape.empty() ? 1 : shape.back();
  const int64_t rows = shape.size() < 2 ? 1 : shape[shape.size() - 2];
  const int64_t blocks = static_cast<int64_t>(a.size()) / std::max<int64_t>(1, rows * cols);
  std::string out, previous;
  for (int64_t k = 0; k < blocks; ++k) {
    std::string label;
    if (shape.size() > 2) {  // "[k, :, :]"
      const std::vector<int64_t> idx = multi_index(k * rows * cols, shape);
      label = "[";
      for (size_t d = 0; d + 2 < shape.size(); ++d) label += std::to_string(idx[d]) + ", ";
      label += ":, :]";
    }
    std::string pattern;
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const size_t at = static_cast<size_t>((k * rows + i) * cols + j);
        pattern += (j ? " " : "") + std::string(values_close(a[at], b[at]) ? "." : "x");
      }
      pattern += "\n";
    }
    if (k > 0 && pattern == previous) {  // a batch of identical texts: say so once
      out += "    " + label + "  " + ui("check.same", lang) + "\n";
      continue;
    }
    previous = pattern;
    const std::vector<std::string> lines = lines_of(pattern);
    for (size_t i = 0; i < lines.size(); ++i)
      out +=
          "    " + (i == 0 ? label : std::string(columns(label), ' ')) + (label.empty() ? "" : "  ") + lines[i] + "\n";
  }
  return out;
}

std::string shape_of(const Tensor& t) { return shape_text(t.shape()); }

std::string in_cell(int cell) { return "In [" + std::to_string(cell) + "]"; }

std::string later_differ(const CheckReport& r, Lang lang) {
  std::string names;
  size_t listed = 0;
  for (int i : r.not_reproduced) {
    if (listed == kMaxTensorLines) {
      names += ", " + ui("check.and-more", lang, {std::to_string(r.not_reproduced.size() - listed)});
      break;
    }
    names += (listed++ ? ", " : "") + shown_name(r.yours[i].name);
  }
  return ui("check.later-differ", lang, {names});
}

// The lesson's cell (which can quote the export's tokens), each line escaped and shortened.
std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  for (const std::string& line : lines_of(text)) out += indent + code_text(line) + "\n";
  return out;
}

std::string origin_text(const LearnerTensor& y, Lang lang) {
  if (!y.origin) return "";
  const TensorOrigin& o = *y.origin;
  const std::string file = echo(o.file, kSourceColumns), code = echo(o.code, 80);
  return o.cell > 0 ? ui("check.origin.cell", lang, {std::to_string(o.cell), std::to_string(o.line), file, code})
                    : ui("check.origin.line", lang, {std::to_string(o.line), file, code});
}

// One tensor's line of the list.
std::string tensor_line(const CheckReport& r, size_t i, const Style& st, const std::string& head, Lang lang) {
  using V = TensorCheck::Verdict;
  using E = TensorCheck::Elsewhere;
  const TensorCheck& c = r.checks[i];
  const LearnerTensor& y = r.yours[i];
  if (c.verdict == V::NotInLesson) return "? " + head + ui("check.not-in-lesson", lang, {r.lesson});
  const Binding& t = r.tool[c.expected];
  if (c.verdict == V::Match) {
    const std::string mark = st.paint("32", "\u2713") + " " + head;
    if (c.elsewhere == E::Earlier) {
      // "taken before" the step that follows it (the next entry of its name), unless that step starts the
      // name over (another head's) or is a line the lesson prints at
      int step = c.expected;
      for (int j = c.other + 1; j < c.expected; ++j)
        if (r.tool[j].name == t.name) {
          step = j;
          break;
        }
      const std::string& code = r.tool[step].code;
      bool restart = is_print_line(code);
      for (int j = 0; j <= c.other; ++j) restart = restart || (r.tool[j].name == t.name && r.tool[j].code == code);
      const Binding& o = r.tool[c.other];
      if (is_print_line(o.code))  // recorded at a print line: no step to name
        return mark + "= " +
               ui(c.nothing_after ? "check.match-earlier-in-last" : "check.match-earlier-in", lang, {in_cell(o.cell)});
      return mark + "= " +
             ui(c.nothing_after ? "check.match-earlier-last" : "check.match-earlier", lang,
                {in_cell(o.cell), step_text(o.code), restart ? "" : ui("check.taken-before", lang, {step_text(code)})});
    }
    if (c.elsewhere == E::Later) return mark + "= " + ui("check.match-later", lang, {in_cell(r.tool[c.other].cell)});
    if (c.form != Form::Same) return mark + "= " + in_cell(t.cell) + ui(form_key(c.form), lang);
    return mark + "= " + in_cell(t.cell);
  }
  std::string line = st.paint("31", "\u2717") + " " + head + ui("check.differs", lang, {in_cell(t.cell)});
  if (c.elsewhere == E::Stale || c.elsewhere == E::Unsure)
    return line + ui("check.still-before", lang, {step_text(t.code)});
  if (y.tensor.shape() != t.tensor.shape()) return line + ui("check.shape-is", lang, {shape_of(t.tensor)});
  return line + ui("check.values-differ", lang,
                   {std::to_string(c.differing), std::to_string(y.tensor.numel()), diff_text(c.max_diff)});
}

std::string diagnosis_text(const Diagnosis& d, const Style& st, const std::string& label, Lang lang, size_t width) {
  std::string out = st.paint("1;33", label + d.mistake->title(lang)) + "\n";
  out += "  " +
         wrap(d.detail.key.empty() ? ui("check.recomputed", lang) : ui("check.recomputed-detail", lang, {d.detail}),
              width, "  ") +
         "\n";
  out += "  " + wrap(d.mistake->explanation(lang), width, "  ") + "\n";
  const std::string label_fix = ui("check.fix", lang);
  std::string fix;
  for (const std::string& line : lines_of(d.mistake->fix(lang)))
    fix += (fix.empty() ? "" : "\n  " + std::string(columns(label_fix), ' ')) + line;
  out += "  " + label_fix + fix + "\n";
  return out;
}

}  // namespace check_text

namespace {

using V = TensorCheck::Verdict;
using E = TensorCheck::Elsewhere;

struct Counts {
  int matched = 0, differing = 0, unknown = 0;
};

// One listed tensor's line (its verdict on the lines below when wider than the page: an 80-column
// terminal), and its origin's.
std::string tensor_text(const CheckReport& r, size_t i, const check_text::Style& st, const std::string& head, Lang lang,
                        size_t page_width) {
  using namespace check_text;
  std::string out;
  const std::string line = "  " + tensor_line(r, i, st, head, lang);
  const size_t after_head = line.find(head) + head.size();
  if (visible_width(line) > page_width && after_head < line.size())
    out += line.substr(0, line.find_last_not_of(' ', after_head - 1) + 1) + "\n      " +
           wrap(line.substr(after_head), page_width > 14 ? page_width - 8 : 6, "      ") + "\n";
  else
    out += line + "\n";
  if (r.yours[i].origin) out += "      " + origin_text(r.yours[i], lang) + "\n";
  return out;
}

// The tensors that get a line (the first difference, then the file's first ones, in the file's order),
// appended to `out`; the others in one line, where the first of them is. Counts every verdict.
void list_tensors(const CheckReport& r, const check_text::Style& st, Lang lang, size_t page_width, std::string& out,
                  Counts& n) {
  using namespace check_text;
  const std::vector<char> listed = listed_tensors(r);
  size_t lines = 0;
  for (char l : listed) lines += l;
  std::vector<std::string> names(r.checks.size());
  size_t width = 0, shape_width = 0;
  for (size_t i = 0; i < r.checks.size(); ++i) {
    if (!listed[i]) continue;
    names[i] = shown_name(r.yours[i].name);
    width = std::max(width, columns(names[i]));
    shape_width = std::max(shape_width, shape_of(r.yours[i].tensor).size());
  }
  Counts more;
  std::vector<size_t> line_end = {out.size()};  // where the k-th listed line ends (0: the header)
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const V v = r.checks[i].verdict;
    n.matched += v == V::Match;
    n.differing += v == V::Differs;
    n.unknown += v == V::NotInLesson;
    if (!listed[i]) {
      more.matched += v == V::Match;
      more.differing += v == V::Differs;
      more.unknown += v == V::NotInLesson;
      continue;
    }
    const std::string shape = shape_of(r.yours[i].tensor);
    const std::string head = names[i] + std::string(width - columns(names[i]), ' ') + "  " + shape +
                             std::string(shape_width - shape.size(), ' ') + "  ";
    out += tensor_text(r, i, st, head, lang, page_width);
    line_end.push_back(out.size());
  }
  if (r.checks.size() <= lines) return;
  size_t first_unlisted = 0;
  while (listed[first_unlisted]) ++first_unlisted;
  out.insert(line_end[first_unlisted], "  " +
                                           ui("check.more", lang,
                                              {std::to_string(r.checks.size() - lines), std::to_string(more.matched),
                                               std::to_string(more.differing), std::to_string(more.unknown)}) +
                                           "\n");
}

// The first difference: where the program bound it, the lesson's step and cell, both tensors, and how
// their values differ.
std::string first_difference_text(const CheckReport& r, const check_text::Style& st, Lang lang, size_t page_width) {
  using namespace check_text;
  const size_t prose = prose_width(page_width);
  const LearnerTensor& y = r.yours[r.first_divergence];
  const TensorCheck& c = r.checks[r.first_divergence];
  const Binding& t = r.tool[c.expected];
  const std::string name = shown_name(y.name);
  // (Wrapped at the page: the remark after the name, a long origin or step on the lines below.)
  const std::string first = ui("check.first-difference", lang, {name}), in_order = ui("check.first-in-order", lang);
  const size_t remark = std::min(in_order.find_first_not_of(' '), in_order.size());  // its leading space dropped
  std::string out =
      "\n" + st.paint("1", first) +
      (visible_width(first + in_order) > page_width ? "\n  " + wrap(in_order.substr(remark), prose, "  ") : in_order) +
      "\n";
  // (These two quote code: wrapped only where the page ends, not at the prose's measure.)
  const size_t page = std::max<size_t>(page_width, kMinProseColumns + 2) - 2;
  if (y.origin)
    out += wrap(ui("check.origin.differs", lang, {origin_text(y, lang), in_cell(t.cell)}), page, "  ") + "\n";
  const bool printed = is_print_line(t.code);
  out += wrap(printed ? ui("check.lesson-value", lang, {name, in_cell(t.cell)})
                      : ui("check.lesson-value-after", lang, {name, step_text(t.code), in_cell(t.cell)}),
              page, "  ") +
         "\n";
  if (t.cell > 0 && t.cell < static_cast<int>(r.cells.size())) out += indented(r.cells[t.cell], "    ");
  out += "\n" + two_columns(ui("check.yours", lang) + "\n" + plain_repr(y.tensor),
                            ui("check.attn-tutor", lang) + "\n" + plain_repr(t.tensor), page_width);
  if (y.tensor.shape() != t.tensor.shape()) {
    out += "\n" + ui("check.your-shape", lang, {shape_of(y.tensor), shape_of(t.tensor)}) + "\n";
  } else {
    bool all = false;
    out += "\n" + wrap(values_summary(c, y.tensor, t.tensor, lang, &all), prose, "  ") + "\n";
    if (!all && t.tensor.dim() > 0 && t.tensor.numel() <= 1024)
      out += ui("check.where", lang) + "\n" + where_map(y.tensor, t.tensor, lang);
  }
  return out;
}

// What explains the first difference: a step that never reached it, the known mistakes that give it, or
// none (with the lesson's tensor it equals under another name).
std::string explanation_text(const CheckReport& r, const check_text::Style& st, Lang lang, size_t prose) {
  using namespace check_text;
  const TensorCheck& c = r.checks[r.first_divergence];
  const Binding& t = r.tool[c.expected];
  const std::string name = shown_name(r.yours[r.first_divergence].name);
  std::string out = "\n";
  if (c.elsewhere == E::Stale || c.elsewhere == E::Unsure) {
    const Binding& o = r.tool[c.other];
    const std::string step = step_text(t.code);
    out += wrap(ui("check.stale", lang, {name, in_cell(o.cell), step_text(o.code), step}) +
                    (c.elsewhere == E::Stale ? ui("check.stale-sure", lang, {name})
                                             : ui("check.stale-unsure", lang, {name, std::to_string(o.cell)})),
                prose, "") +
           "\n\n";
  }
  if (c.elsewhere == E::Unsure && !r.diagnoses.empty()) {
    out += ui("check.never-reached-mistakes", lang) + "\n";
    for (const Diagnosis& d : r.diagnoses)
      out += "  - " + ui("check.title-detail", lang, {d.mistake->title(lang), d.detail}) + "\n";
  } else if (r.diagnoses.size() == 1) {
    out += diagnosis_text(r.diagnoses[0], st, ui("check.diagnosis", lang), lang, prose);
  } else if (r.diagnoses.size() > 1) {
    out += ui("check.several", lang, {std::to_string(r.diagnoses.size())}) + "\n";
    for (const Diagnosis& d : r.diagnoses)
      out += diagnosis_text(d, st, ui("check.possible-diagnosis", lang), lang, prose);
  } else {
    out += ui(traced(r) ? "check.no-mistake-program" : "check.no-mistake", lang, {r.lesson, in_cell(t.cell)}) + "\n";
    if (const int other = equal_under_other_name(r); other >= 0)
      out += wrap(other_name_text(r, other, lang), prose, "  ") + "\n";
  }
  if (!r.diagnoses.empty() && !r.not_reproduced.empty() && c.elsewhere != E::Unsure)
    out += "  " + later_differ(r, lang) + "\n";
  return out;
}

}  // namespace

std::string render_report(const CheckReport& r, bool color, Lang lang, size_t page_width) {
  using namespace check_text;
  const size_t prose = prose_width(page_width);
  const Style st{color};
  std::string out = ui(r.yours.size() == 1 ? "check.header.one" : "check.header.many", lang,
                       {echo(r.source, kSourceColumns), r.lesson, std::to_string(r.yours.size())}) +
                    "\n";
  for (const Prose& note : r.notes) out += "  " + wrap(ui(note.key, lang, note.args), prose - 2, "    ") + "\n";
  Counts n;
  list_tensors(r, st, lang, page_width, out, n);
  if (r.ok())
    return out + "\n" + st.paint("32", ui("check.all-match", lang, {std::to_string(n.matched)})) +
           (n.unknown ? ui("check.all-match-unchecked", lang, {std::to_string(n.unknown)}) : "") + "\n";
  out += first_difference_text(r, st, lang, page_width) + explanation_text(r, st, lang, prose);
  return out + "\n" +
         ui(n.unknown ? "check.count-unchecked" : "check.count", lang,
            {std::to_string(n.matched), std::to_string(n.differing), std::to_string(n.unknown)}) +
         "\n";
}

}  // namespace attn
