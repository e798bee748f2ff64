#include "features/check/check.h"

#include <algorithm>
#include <set>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "core/safe_text.h"
#include "core/usage_error.h"
#include "features/check/compare.h"
#include "features/check/diagnose.h"
#include "features/check/timeline_index.h"
#include "lessons/lesson.h"

namespace attn {

bool values_close(float learner, float tool, double tolerance) {
  if (std::isnan(learner) || std::isnan(tool)) return std::isnan(learner) && std::isnan(tool);
  if (learner == tool) return true;  // equal infinities too
  if (std::isinf(learner) || std::isinf(tool)) return false;
  const double d = std::fabs(static_cast<double>(learner) - static_cast<double>(tool));
  return d <= tolerance * std::max(1.0, std::fabs(static_cast<double>(tool)));
}

namespace {

[[noreturn]] void no_known_name(const LearnerExport& ex, const std::vector<Binding>& tool) {
  auto quoted_list = [](const std::vector<std::string>& names) {
    std::string out;
    size_t shown = 0;
    for (const std::string& name : names) {
      const std::string n = echo(name);  // the learner's names: escaped and shortened
      if (out.find("\"" + n + "\"") != std::string::npos) continue;
      if (out.size() > 300) return out + ", ...";
      out += (shown++ ? ", \"" : "\"") + n + "\"";
    }
    return out;
  };
  std::vector<std::string> yours, lesson;
  for (const LearnerTensor& y : ex.tensors) {
    if (yours.size() >= 64) break;  // the message shows about 300 characters of them
    yours.push_back(y.name);
  }
  if (const LessonInfo* info = find_lesson(ex.lesson)) lesson = info->exports;  // its descriptor's names
  if (lesson.empty())
    for (const Binding& t : tool) lesson.push_back(t.name);
  throw UsageError(error_text("check.err.no-names", {ex.source, quoted_list(yours), ex.lesson, quoted_list(lesson)}));
}

// The report's frame: the export's tensors, the lesson's timeline and its cells; a "cell" the lesson does
// not have refused, with the lesson's cells.
CheckReport report_frame(const LearnerExport& ex, const Notebook& tool, const std::vector<Binding>& timeline) {
  CheckReport r;
  r.source = ex.source;
  r.lesson = ex.lesson;
  r.yours = ex.tensors;
  r.tool = timeline;
  for (const Binding& b : r.tool)
    while (static_cast<int>(r.cells.size()) <= b.cell)
      r.cells.push_back(tool.cell_code(static_cast<int>(r.cells.size())));
  int last_cell = 0;
  for (const NotebookItem& item : tool.items())
    if (item.kind == NotebookItem::Kind::Code) last_cell = std::max(last_cell, item.cell);
  for (const LearnerTensor& y : r.yours)
    if (y.cell && *y.cell > last_cell)
      throw UsageError(error_text("check.err.cell-range", {ex.source, echo(y.name), std::to_string(*y.cell), ex.lesson,
                                                           std::to_string(last_cell)}));
  return r;
}

}  // namespace

bool tensors_close(const Tensor& learner, const Tensor& tool, double tolerance) {
  if (learner.shape() != tool.shape()) return false;
  const std::vector<float> a = learner.values(), b = tool.values();
  for (size_t i = 0; i < a.size(); ++i)
    if (!values_close(a[i], b[i], tolerance)) return false;
  return true;
}

bool is_print_line(const std::string& code) {
  const size_t start = code.find_first_not_of(' ');
  return code.find('\n') != std::string::npos || (start != std::string::npos && code.compare(start, 6, "print(") == 0);
}

std::vector<int> learner_points(const std::vector<LearnerTensor>& yours, const std::vector<Binding>& tl) {
  const std::vector<int> owner = owners(tl);
  const NameIndex index(tl);
  std::vector<int> last(tl.size());  // the object's last state: its binding's last in-place change
  for (size_t i = 0; i < tl.size(); ++i) last[owner[i]] = static_cast<int>(i);
  std::vector<int> points(yours.size(), -1);
  int bound = static_cast<int>(tl.size());
  std::string bound_name;
  for (size_t f = yours.size(); f-- > 0;) {
    const LearnerTensor& y = yours[f];
    // The latest entry of y's name: within the bound, in the hinted cell or before, of y's shape, and a
    // binding (an object) unless `states` (any value it took, in-place changes included).
    // `hinted`: 0 any cell, 1 the hinted cell or before, 2 the hinted cell itself.
    auto latest = [&](bool within, int hinted, bool same_shape, bool states) {
      int at = -1;
      for (int i : index.of(y.name))
        if ((states || owner[i] == i) && (!within || i < bound || (i == bound && tl[i].name != bound_name)) &&
            (hinted == 0 || (hinted == 1 ? tl[i].cell <= *y.cell : tl[i].cell == *y.cell)) &&
            (!same_shape || tl[i].tensor.shape() == y.tensor.shape()))
          at = i;
      return at;
    };
    int at = -1;
    if (y.point && *y.point >= 0 && *y.point < static_cast<int>(tl.size()) && tl[*y.point].name == y.name)
      at = *y.point;       // a traced value placed where it equals the lesson's
    if (y.cell && at < 0)  // the learner says where: the value the name has in that cell (else just before it)
      for (int k = 0; k < 8 && at < 0; ++k) at = latest(k % 4 < 2, k < 4 ? 2 : 1, k % 2 == 0, true);
    if (at < 0) {  // else the binding its place in the file implies; an exported reference sees in-place changes
      // (a traced copy is the value at its place: any state of its name)
      for (int k = 0; k < 4 && at < 0; ++k) at = latest(k < 2, 0, k % 2 == 0, y.snapshot);
      if (at >= 0 && !y.snapshot) at = last[at];
    }
    if (at < 0) continue;
    points[f] = at;
    const int object = y.snapshot ? at : owner[at];
    if (object <= bound) {
      bound = object;
      bound_name = y.name;  // two exports of one name: the earlier is an earlier value
    }
  }
  return points;
}

CheckReport check_export(const LearnerExport& ex, const Notebook& tool,
                         const std::function<std::vector<WhatIf>(const CheckReport&)>& what_ifs) {
  return check_export(ex, tool, tool.timeline(), what_ifs);
}

CheckReport check_export(const LearnerExport& ex, const Notebook& tool, const std::vector<Binding>& timeline,
                         const std::function<std::vector<WhatIf>(const CheckReport&)>& what_ifs) {
  CheckReport r = report_frame(ex, tool, timeline);  // 1. read
  const NameIndex index(r.tool);
  if (!compare_at_points(r, learner_points(r.yours, r.tool), index)) no_known_name(ex, r.tool);  // 2. place, compare
  const std::vector<size_t> order = in_compute_order(r);
  settle_earlier_values(r, order);
  if (!r.ok() && what_ifs) diagnose(r, order, what_ifs(r));  // 3. diagnose
  return r;
}

}  // namespace attn
