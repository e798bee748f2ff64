#include "features/check/check.h"

#include <algorithm>
#include <set>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "core/safe_text.h"
#include "core/usage_error.h"
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

// Fills the difference fields of `c`; true when everything is close.
bool compare(const Tensor& yours, const Tensor& tool, TensorCheck& c) {
  c.differing = 0;
  c.first_diff = -1;
  c.max_diff = 0.0;
  if (yours.shape() != tool.shape()) {
    c.differing = yours.numel();
    c.max_diff = std::numeric_limits<double>::infinity();
    return false;
  }
  const std::vector<float> a = yours.values(), b = tool.values();
  for (size_t i = 0; i < a.size(); ++i) {
    if (values_close(a[i], b[i])) continue;
    if (c.first_diff < 0) c.first_diff = static_cast<int64_t>(i);
    ++c.differing;
    const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    c.max_diff = std::max(c.max_diff, std::isnan(d) ? std::numeric_limits<double>::infinity() : d);
  }
  return c.differing == 0;
}

// The timeline's entries by name, each name's in compute order: every lookup of a learner tensor's name
// visits that name's entries only, so the work grows with the export's size, not with its number of
// tensors times the timeline's length.
class NameIndex {
 public:
  explicit NameIndex(const std::vector<Binding>& tl) {
    for (size_t i = 0; i < tl.size(); ++i) entries_[tl[i].name].push_back(static_cast<int>(i));
  }
  const std::vector<int>& of(const std::string& name) const {
    static const std::vector<int> none;
    const auto it = entries_.find(name);
    return it == entries_.end() ? none : it->second;
  }

 private:
  std::unordered_map<std::string, std::vector<int>> entries_;
};

// owner[i]: the binding whose object entry i changes (itself for a binding).
std::vector<int> owners(const std::vector<Binding>& tl) {
  std::vector<int> owner(tl.size());
  std::unordered_map<std::string, int> binding;  // each name's latest binding so far
  for (size_t i = 0; i < tl.size(); ++i) {
    owner[i] = static_cast<int>(i);
    if (!tl[i].in_place) {
      binding[tl[i].name] = static_cast<int>(i);
      continue;
    }
    const auto it = binding.find(tl[i].name);
    if (it != binding.end()) owner[i] = it->second;
  }
  return owner;
}

// The entry of `name` equal to `t` nearest before `expected` (else the first after it), -1 if none.
int equal_elsewhere(const std::vector<Binding>& tl, const NameIndex& index, const std::string& name, const Tensor& t,
                    int expected) {
  int before = -1, after = -1;
  for (int i : index.of(name)) {
    if (i == expected || !tensors_close(t, tl[i].tensor)) continue;
    if (i < expected)
      before = i;
    else if (after < 0)
      after = i;
  }
  return before >= 0 ? before : after;
}

// Whether every tensor of `yours` in `which` has, in `tl` at its point (or anywhere under its name),
// its value within `tol`.
bool reproduces(const std::vector<LearnerTensor>& yours, const std::vector<int>& which, const std::vector<Binding>& tl,
                const NameIndex& index, const std::vector<int>& points, double tol, bool only_at_point) {
  for (int i : which) {
    if (points[i] < 0) return false;
    if (tensors_close(yours[i].tensor, tl[points[i]].tensor, tol)) continue;
    if (only_at_point) return false;
    bool found = false;
    for (int j : index.of(yours[i].name)) found = found || tensors_close(yours[i].tensor, tl[j].tensor, tol);
    if (!found) return false;
  }
  return true;
}

// The entry of yours[fd]'s name in `tl` equal to it (to 1e-6) nearest before `point`, after the points of
// the other tensors of that name exported before it; -1 if none.
int earlier_in_rerun(const std::vector<LearnerTensor>& yours, int fd, const std::vector<Binding>& tl,
                     const NameIndex& index, const std::vector<int>& points, int point) {
  int floor = -1;
  for (size_t j = 0; j < static_cast<size_t>(fd); ++j)
    if (yours[j].name == yours[fd].name) floor = std::max(floor, points[j]);
  int at = -1;
  for (int i : index.of(yours[fd].name))
    if (i > floor && i < point && tensors_close(yours[fd].tensor, tl[i].tensor, 1e-6)) at = i;
  return at;
}

// Entry i's rank among the entries of its name, and the entry of that rank in another timeline.
int rank_of(const std::vector<Binding>& tl, int i) {
  int k = 0;
  for (int j = 0; j < i; ++j) k += tl[j].name == tl[i].name;
  return k;
}

int nth_of_name(const std::vector<Binding>& tl, const std::string& name, int k) {
  for (int j = 0; j < static_cast<int>(tl.size()); ++j)
    if (tl[j].name == name && k-- == 0) return j;
  return -1;
}

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
  using V = TensorCheck::Verdict;
  using E = TensorCheck::Elsewhere;
  CheckReport r;
  r.source = ex.source;
  r.lesson = ex.lesson;
  r.yours = ex.tensors;
  r.tool = timeline;
  for (const Binding& b : r.tool)
    while (static_cast<int>(r.cells.size()) <= b.cell)
      r.cells.push_back(tool.cell_code(static_cast<int>(r.cells.size())));
  // A "cell" the lesson does not have: refused, with the lesson's cells.
  int last_cell = 0;
  for (const NotebookItem& item : tool.items())
    if (item.kind == NotebookItem::Kind::Code) last_cell = std::max(last_cell, item.cell);
  for (const LearnerTensor& y : r.yours)
    if (y.cell && *y.cell > last_cell)
      throw UsageError(error_text("check.err.cell-range", {ex.source, echo(y.name), std::to_string(*y.cell), ex.lesson,
                                                           std::to_string(last_cell)}));
  const NameIndex index(r.tool);
  const std::vector<int> points = learner_points(r.yours, r.tool);
  r.checks.resize(r.yours.size());
  bool known = false;
  for (size_t i = 0; i < r.yours.size(); ++i) {
    TensorCheck& c = r.checks[i];
    c.expected = points[i];
    if (c.expected < 0) continue;
    known = true;
    if (compare(r.yours[i].tensor, r.tool[c.expected].tensor, c)) {
      c.verdict = V::Match;
      continue;
    }
    c.form = equivalent_form(r.yours[i].tensor, r.tool[c.expected].tensor);
    if (c.form != Form::Same) {  // the step written another way: the tensors after it decide
      c.verdict = V::Match;
      c.differing = 0;
      c.first_diff = -1;
      c.max_diff = 0.0;
      continue;
    }
    c.verdict = V::Differs;
    c.other = equal_elsewhere(r.tool, index, r.yours[i].name, r.yours[i].tensor, c.expected);
    if (c.other > c.expected) {  // a later value of the name: exported later than the file's order says
      c.verdict = V::Match;
      c.elsewhere = E::Later;
    } else if (c.other >= 0) {  // an earlier one: is the entry at its point the very next one of its name?
      for (int j : index.of(r.yours[i].name))
        if (j > c.other) {
          c.next_step = j == c.expected;  // else several steps lie between: none can be named as the one missed
          break;
        }
    }
  }
  if (!known) no_known_name(ex, r.tool);
  // An earlier value of its name: the tensors exported after its point tell whether it was taken there on
  // purpose (none differs) or the step after it never reached it (the next one differs). Decided from
  // the last point back, so that the evidence is decided first.
  std::vector<size_t> order;
  for (size_t i = 0; i < r.checks.size(); ++i)
    if (r.checks[i].expected >= 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return r.checks[a].expected < r.checks[b].expected; });
  // previous_point[i]: the latest point of the tensors of i's name before it in the file (-1: none).
  std::vector<int> previous_point(r.checks.size(), -1);
  std::unordered_map<std::string, int> latest_point;
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const auto inserted = latest_point.emplace(r.yours[i].name, -1);
    previous_point[i] = inserted.first->second;
    inserted.first->second = std::max(inserted.first->second, r.checks[i].expected);
  }
  // later_all_match[k]: every tensor from order[k] on matches (decided before order[k - 1] is).
  std::vector<char> later_all_match(order.size() + 1, 1);
  for (size_t k = order.size(); k-- > 0;) {
    TensorCheck& c = r.checks[order[k]];
    if (c.verdict == V::Differs && c.other >= 0) {
      // Nothing after it differing (or nothing after it): taken there. Else, with one step between the value
      // and its point: the next tensor differing, stale; matching, unsure. Else a plain difference.
      // The tensors after its point: those of `order` past the ones at the same point (it is sorted by point).
      size_t next_at = k + 1;
      while (next_at < order.size() && r.checks[order[next_at]].expected <= c.expected) ++next_at;
      const TensorCheck* next = next_at < order.size() ? &r.checks[order[next_at]] : nullptr;
      const bool all_match = later_all_match[next_at] != 0;
      // Only a step that changes the name can have missed it: the one entry between (not a print line the
      // lesson records the value at).
      const bool one_step = c.next_step && !is_print_line(r.tool[c.expected].code);
      // Not taken before the point of an earlier export of the same name (the file's order is the program's).
      // A traced program's values (snapshots) are every binding the program made, not points the learner
      // chose: an earlier value after another of its name is a later call computing it again (a module
      // called twice), not a value exported out of the program's order.
      const bool after_previous = r.yours[order[k]].snapshot || previous_point[order[k]] < c.other;
      if (after_previous && (!next || all_match)) {  // nothing exported after it says otherwise: taken there
        c.elsewhere = E::Earlier;
        c.verdict = V::Match;
        c.nothing_after = !next;
      } else if (!one_step || !next) {
        c.elsewhere = E::None;  // a plain difference: no step can be said to have missed it (or nothing to tell)
      } else {
        c.elsewhere = next->verdict != V::Match ? E::Stale : E::Unsure;
      }
    }
    later_all_match[k] = c.verdict == V::Match && later_all_match[k + 1];
  }
  for (size_t i : order)
    if (r.checks[i].verdict == V::Differs) {
      r.first_divergence = static_cast<int>(i);
      break;
    }
  if (r.ok() || !what_ifs) return r;

  // The diagnosis: the known mistakes whose rerun gives the first differing tensor at its point (to 1e-6)
  // and every tensor before it as well. (For an unsure value the report offers them as possibilities only.)
  const int fd = r.first_divergence;
  std::vector<int> before, after, after_matching;
  for (size_t i : order) {
    if (r.checks[i].expected < r.checks[fd].expected && r.checks[i].verdict == V::Match)
      before.push_back(static_cast<int>(i));
    if (r.checks[i].expected > r.checks[fd].expected && r.checks[i].verdict == V::Differs)
      after.push_back(static_cast<int>(i));
    if (r.checks[i].expected > r.checks[fd].expected && r.checks[i].verdict == V::Match)
      after_matching.push_back(static_cast<int>(i));
  }
  std::set<int> differing_points;
  for (size_t i : order)
    if (r.checks[i].verdict == V::Differs) differing_points.insert(r.checks[i].expected);
  std::vector<int> settled;  // the later matching tensors not at a differing one's point
  for (int i : after_matching)
    if (!differing_points.count(r.checks[i].expected)) settled.push_back(i);
  // Of several, those that also give the most of the later tensors (the differing ones, and the matching ones as they are).
  size_t best = 0;
  std::vector<std::pair<size_t, Diagnosis>> found;
  std::vector<std::vector<int>> missed, explained;
  std::vector<std::vector<int>> ran;  // per found: the later tensors said "stale" that it gives at their own points
  std::vector<int> earlier_of;        // per found: the rerun's earlier entry that gives the first difference (-1: none)
  for (const WhatIf& w : what_ifs(r)) {
    const Mistake* m = &mistake(w.mistake);
    const NameIndex what_if_index(w.timeline);
    std::vector<int> pts = learner_points(r.yours, w.timeline);
    // At its point in the rerun, or at the rerun's entry of the same rank among its name's (the same step
    // when the mistake leaves the steps as they are: another head's value, a state an in-place change missed).
    const int same_step = nth_of_name(w.timeline, r.yours[fd].name, rank_of(r.tool, r.checks[fd].expected));
    const bool at_point = reproduces(r.yours, {fd}, w.timeline, what_if_index, pts, 1e-6, true);
    const int point = pts[fd];
    if (!at_point && same_step >= 0) pts[fd] = same_step;
    // Else an earlier value of its name in the rerun, as a correct program's earlier value is a match: only
    // when every tensor exported after it is the rerun's as well (nothing later says otherwise).
    const int earlier_candidate = reproduces(r.yours, {fd}, w.timeline, what_if_index, pts, 1e-6, true)
                                      ? -1
                                      : earlier_in_rerun(r.yours, fd, w.timeline, what_if_index, pts, point);
    // (Only where the mistake shows: the lesson's value at that step differs. The lesson's own earlier value
    // is the stale or taken-earlier case above, not this mistake's.)
    int earlier = earlier_candidate;
    if (earlier >= 0) {
      const int step = nth_of_name(r.tool, r.yours[fd].name, rank_of(w.timeline, earlier));
      if (step < 0 || tensors_close(r.yours[fd].tensor, r.tool[step].tensor, 1e-6)) earlier = -1;
    }
    if (earlier >= 0) pts[fd] = earlier;
    if (!reproduces(r.yours, {fd}, w.timeline, what_if_index, pts, 1e-6, true) ||
        !reproduces(r.yours, before, w.timeline, what_if_index, pts, 1e-5, false))
      continue;
    std::vector<int> not_given;
    for (int i : after)
      if (!reproduces(r.yours, {i}, w.timeline, what_if_index, pts, 1e-5, false)) not_given.push_back(i);
    // Also counted: the later tensors that match and that the rerun leaves as they are (a mistake that
    // changes them is not the learner's: a wider window and a window one too wide differ in the cache).
    // A mistake that changes a later tensor that matches contradicts it: not the learner's (a window one too
    // wide changes the cache too; layers created in another order change the keys a copy-paste slip leaves).
    // Except a tensor at the point of one that differs: the program computed that step again (fixed).
    if (!reproduces(r.yours, settled, w.timeline, what_if_index, pts, 1e-5, false)) continue;
    const size_t given = after.size() - not_given.size() + after_matching.size();
    if (earlier >= 0 && given != after.size() + after_matching.size()) continue;
    if (std::any_of(found.begin(), found.end(),
                    [&](const auto& f) { return f.second.mistake == m && f.first >= given; }))
      continue;
    best = std::max(best, given);
    found.push_back({given, {m, w.detail, at_point}});
    earlier_of.push_back(earlier >= 0 ? rank_of(w.timeline, earlier) : -1);
    ran.emplace_back();
    for (int i : after)
      if ((r.checks[i].elsewhere == E::Stale || r.checks[i].elsewhere == E::Unsure) &&
          reproduces(r.yours, {i}, w.timeline, what_if_index, pts, 1e-6, true))
        ran.back().push_back(i);
    missed.push_back(not_given);
    // The later tensors matched as earlier values that this mistake gives at their own points.
    explained.emplace_back();
    for (int i : after_matching)
      if (r.checks[i].elsewhere == E::Earlier && reproduces(r.yours, {i}, w.timeline, what_if_index, pts, 1e-6, true))
        explained.back().push_back(i);
  }
  size_t chosen = 0;
  for (size_t k = 0; k < found.size(); ++k) {
    if (found[k].first != best) continue;
    if (std::any_of(r.diagnoses.begin(), r.diagnoses.end(),
                    [&](const Diagnosis& d) { return d.mistake == found[k].second.mistake; }))
      continue;
    if (r.diagnoses.empty()) {
      r.not_reproduced = missed[k];
      chosen = k;
    }
    r.diagnoses.push_back(found[k].second);
  }
  // The first difference given by the named mistake at an earlier step of its name: compared with the
  // lesson's value at that step (the learner exported it there), where the mistake shows.
  if (!r.diagnoses.empty() && earlier_of[chosen] >= 0) {
    const int step = nth_of_name(r.tool, r.yours[fd].name, earlier_of[chosen]);
    TensorCheck& c = r.checks[fd];
    if (step >= 0 && step < c.expected && !compare(r.yours[fd].tensor, r.tool[step].tensor, c)) {
      c.expected = step;
      c.elsewhere = E::None;
      c.other = -1;
    } else {
      compare(r.yours[fd].tensor, r.tool[c.expected].tensor, c);
    }
  }
  // A later tensor matched as an earlier value of its name that the one named mistake gives at its own
  // point: a consequence of the mistake (a stale cache), not a value taken there: a difference.
  if (r.diagnoses.size() == 1)
    for (int i : explained[chosen]) {
      TensorCheck& c = r.checks[i];
      c.verdict = V::Differs;
      c.elsewhere = E::None;
      compare(r.yours[i].tensor, r.tool[c.expected].tensor, c);
    }
  // An earlier value that a known mistake gives at the tensor's own point: the step ran (with the mistake)
  // and gave the same value again; "never reached" would be untrue. Unless the step is an in-place change
  // (masked_fill_): a mistake that leaves it without effect is that step not reaching it.
  TensorCheck& f = r.checks[fd];
  if ((f.elsewhere == E::Stale || f.elsewhere == E::Unsure) && !r.diagnoses.empty() && !r.tool[f.expected].in_place &&
      std::any_of(found.begin(), found.end(), [&](const auto& d) { return d.first == best && d.second.at_point; }))
    f.elsewhere = E::None;
  // The same for a later tensor said to be its value before its step: a named mistake that gives it at its
  // own point ran that step (a mask from row 0 makes a step repeat the value before it).
  for (size_t k = 0; k < found.size(); ++k)
    if (found[k].first == best)
      for (int i : ran[k])
        if (!r.tool[r.checks[i].expected].in_place) r.checks[i].elsewhere = E::None;
  // An earlier value with later tensors that differ, all of them given by one known mistake: that
  // mistake, not another export point, explains it.
  if (f.elsewhere == E::Unsure && !after.empty() && r.diagnoses.size() == 1 && r.not_reproduced.empty())
    f.elsewhere = E::Stale;
  return r;
}

}  // namespace attn
