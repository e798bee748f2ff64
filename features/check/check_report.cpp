#include "features/check/check_report.h"

#include "notebook/text_width.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "notebook/json_export.h"
#include "core/tensor_print.h"

namespace attn {

namespace {

struct Style {
  bool on;
  std::string paint(const std::string& code, const std::string& s) const {
    return on ? "\033[" + code + "m" + s + "\033[0m" : s;
  }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t columns(const std::string& s) { return display_width(s); }

std::string two_columns(const std::string& left, const std::string& right) {
  const std::vector<std::string> a = lines_of(left), b = lines_of(right);
  size_t width = 0;
  for (const std::string& line : a) width = std::max(width, columns(line));
  std::string out;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    std::string line = i < a.size() ? a[i] : "";
    if (i < b.size()) line += std::string(width - columns(line) + 4, ' ') + b[i];
    out += line + "\n";
  }
  return out;
}

// Words wrapped at `width` columns, every line after the first indented by `indent`.
std::string wrap(const std::string& text, size_t width, const std::string& indent) {
  std::string out, line;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    if (!line.empty() && columns(line) + 1 + columns(word) > width) {
      out += line + "\n" + indent;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
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
std::string where_map(const Tensor& yours, const Tensor& tool) {
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
      out += "    " + label + "  the same\n";
      continue;
    }
    previous = pattern;
    const std::vector<std::string> lines = lines_of(pattern);
    for (size_t i = 0; i < lines.size(); ++i)
      out += "    " + (i == 0 ? label : std::string(columns(label), ' ')) + (label.empty() ? "" : "  ") + lines[i] + "\n";
  }
  return out;
}

std::string shape_of(const Tensor& t) { return shape_text(t.shape()); }

std::string in_cell(int cell) { return "In [" + std::to_string(cell) + "]"; }

std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  for (const std::string& line : lines_of(text)) out += indent + line + "\n";
  return out;
}

// One tensor's line of the list.
std::string tensor_line(const CheckReport& r, size_t i, const Style& st, const std::string& head) {
  using V = TensorCheck::Verdict;
  using E = TensorCheck::Elsewhere;
  const TensorCheck& c = r.checks[i];
  const LearnerTensor& y = r.yours[i];
  if (c.verdict == V::NotInLesson) return "? " + head + "not a tensor of lesson " + r.lesson + ", not checked";
  const Binding& t = r.tool[c.expected];
  if (c.verdict == V::Match) {
    const std::string mark = st.paint("32", "\u2713") + " " + head;
    if (c.elsewhere == E::Earlier) {
      // "taken before" the step that follows, unless that step starts the name over (another head's)
      bool restart = false;
      for (int j = 0; j <= c.other; ++j) restart = restart || (r.tool[j].name == t.name && r.tool[j].code == t.code);
      return mark + "= " + in_cell(r.tool[c.other].cell) + ", its value after `" + r.tool[c.other].code + "`" +
             (restart ? "" : ", taken before `" + t.code + "`") + " (what you exported after it matches)";
    }
    if (c.elsewhere == E::Later) return mark + "= " + in_cell(r.tool[c.other].cell) + ", a later value than its place in your file";
    return mark + "= " + in_cell(t.cell);
  }
  std::string line = st.paint("31", "\u2717") + " " + head + "differs from " + in_cell(t.cell) + ": ";
  if (c.elsewhere == E::Stale || c.elsewhere == E::Unsure)
    return line + "it is still its value before `" + t.code + "`";
  if (y.tensor.shape() != t.tensor.shape()) return line + "its shape is " + shape_of(t.tensor);
  return line + std::to_string(c.differing) + " of " + std::to_string(y.tensor.numel()) + " values, max |diff| " +
         diff_text(c.max_diff);
}

std::string diagnosis_text(const CheckReport& r, const Diagnosis& d, const Style& st, const std::string& label) {
  std::string out = st.paint("1;33", label + d.mistake->title) + "\n";
  out += "  " + wrap("Recomputed with this mistake, the lesson gives exactly your numbers" +
                         (d.detail.empty() ? "." : ": " + d.detail + "."), 100, "  ") + "\n";
  out += "  " + wrap(d.mistake->explanation, 100, "  ") + "\n";
  std::string fix;
  for (const std::string& line : lines_of(d.mistake->fix)) fix += (fix.empty() ? "" : "\n       ") + line;
  out += "  Fix: " + fix + "\n";
  (void)r;
  return out;
}

}  // namespace

std::string render_report(const CheckReport& r, bool color) {
  using V = TensorCheck::Verdict;
  using E = TensorCheck::Elsewhere;
  const Style st{color};
  std::string out = "attn-tutor check " + r.source + ": lesson " + r.lesson + ", " + std::to_string(r.yours.size()) +
                    (r.yours.size() == 1 ? " tensor\n" : " tensors\n");
  size_t width = 0, shape_width = 0;
  for (const LearnerTensor& y : r.yours) {
    width = std::max(width, columns(y.name));
    shape_width = std::max(shape_width, shape_of(y.tensor).size());
  }
  int matched = 0, differing = 0, unknown = 0;
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const LearnerTensor& y = r.yours[i];
    const std::string shape = shape_of(y.tensor);
    const std::string head = y.name + std::string(width - columns(y.name), ' ') + "  " + shape +
                             std::string(shape_width - shape.size(), ' ') + "  ";
    const V v = r.checks[i].verdict;
    matched += v == V::Match;
    differing += v == V::Differs;
    unknown += v == V::NotInLesson;
    out += "  " + tensor_line(r, i, st, head) + "\n";
  }

  if (r.ok()) {
    out += "\n" + st.paint("32", "All " + std::to_string(matched) + " checked tensors match the lesson.") +
           (unknown ? " " + std::to_string(unknown) + " not checked." : "") + "\n";
    return out;
  }

  const LearnerTensor& y = r.yours[r.first_divergence];
  const TensorCheck& c = r.checks[r.first_divergence];
  const Binding& t = r.tool[c.expected];
  out += "\n" + st.paint("1", "First difference: " + y.name) + " (the first in the order the lesson computes them)\n";
  const bool printed = t.code.rfind("print(", 0) == 0 || t.code.find('\n') != std::string::npos;
  out += "The lesson's " + y.name + (printed ? "" : " after `" + t.code + "`") + ", " + in_cell(t.cell) + ":\n";
  if (t.cell > 0 && t.cell < static_cast<int>(r.cells.size())) out += indented(r.cells[t.cell], "    ");
  out += "\n" + two_columns("yours:\n" + plain_repr(y.tensor), "attn-tutor:\n" + plain_repr(t.tensor));
  if (y.tensor.shape() != t.tensor.shape()) {
    out += "\nYour shape is " + shape_of(y.tensor) + ", the lesson's " + shape_of(t.tensor) + ".\n";
  } else {
    const std::vector<float> a = y.tensor.values(), b = t.tensor.values();
    const bool all = c.differing == static_cast<int64_t>(a.size());
    out += "\n" + (all ? "All " + std::to_string(a.size()) : std::to_string(c.differing) + " of " + std::to_string(a.size())) +
           " values differ (max |diff| " + diff_text(c.max_diff) + "); the first at " +
           index_text(c.first_diff, t.tensor.shape()) + ": yours " + value_text(a[c.first_diff]) + ", attn-tutor " +
           value_text(b[c.first_diff]) + "\n";
    if (!all && t.tensor.dim() > 0 && a.size() <= 1024) out += "where (x: differs, .: matches):\n" + where_map(y.tensor, t.tensor);
  }

  out += "\n";
  if (c.elsewhere == E::Stale || c.elsewhere == E::Unsure) {
    const Binding& o = r.tool[c.other];
    const std::string step = t.code;
    out += wrap("Your " + y.name + " is the value it has at " + in_cell(o.cell) + " (`" + o.code + "`), before `" + step +
                    "`. " +
                    (c.elsewhere == E::Stale
                         ? "What you exported after it differs as well: that step never reached your " + y.name + "."
                         : "What you exported after it does not tell whether you took it there on purpose (then say "
                           "so: export(..., cells={\"" + y.name + "\": " + std::to_string(o.cell) +
                           "})) or that step never reached it."),
                100, "") + "\n\n";
  }
  if (c.elsewhere == E::Unsure && !r.diagnoses.empty()) {
    out += "If that step never reached it, known mistakes that give your numbers:\n";
    for (const Diagnosis& d : r.diagnoses) out += "  - " + d.mistake->title + ": " + d.detail + "\n";
  } else if (r.diagnoses.size() == 1) {
    out += diagnosis_text(r, r.diagnoses[0], st, "Diagnosis: ");
  } else if (r.diagnoses.size() > 1) {
    out += std::to_string(r.diagnoses.size()) + " known mistakes give exactly your numbers; one of them is yours:\n";
    for (const Diagnosis& d : r.diagnoses) out += diagnosis_text(r, d, st, "Possible diagnosis: ");
  } else {
    out += "No known mistake gives your numbers. Compare your code with the lesson's cell (attn-tutor " + r.lesson +
           " shows " + in_cell(t.cell) + ") and check the settings you exported with.\n";
  }
  if (!r.diagnoses.empty() && !r.not_reproduced.empty() && c.elsewhere != E::Unsure) {
    std::string names;
    for (int i : r.not_reproduced) names += (names.empty() ? "" : ", ") + r.yours[i].name;
    out += "  With this mistake your later " + names + " still differ: another mistake follows.\n";
  }
  out += "\n" + std::to_string(matched) + " match, " + std::to_string(differing) + " differ" +
         (unknown ? ", " + std::to_string(unknown) + " not checked" : "") + ".\n";
  return out;
}

}  // namespace attn
