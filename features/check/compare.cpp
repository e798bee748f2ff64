#include "features/check/compare.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace attn {

namespace {

using V = TensorCheck::Verdict;
using E = TensorCheck::Elsewhere;

// One tensor against the lesson's value at its point (c.expected set).
void compare_one(const CheckReport& r, size_t i, const NameIndex& index, TensorCheck& c) {
  if (fill_difference(r.yours[i].tensor, r.tool[c.expected].tensor, c)) {
    c.verdict = V::Match;
    return;
  }
  c.form = equivalent_form(r.yours[i].tensor, r.tool[c.expected].tensor);
  if (c.form != Form::Same) {  // the step written another way: the tensors after it decide
    c.verdict = V::Match;
    c.differing = 0;
    c.first_diff = -1;
    c.max_diff = 0.0;
    return;
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

// previous_point[i]: the latest point of the tensors of i's name before it in the file (-1: none).
std::vector<int> previous_points(const CheckReport& r) {
  std::vector<int> previous_point(r.checks.size(), -1);
  std::unordered_map<std::string, int> latest_point;
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const auto inserted = latest_point.emplace(r.yours[i].name, -1);
    previous_point[i] = inserted.first->second;
    inserted.first->second = std::max(inserted.first->second, r.checks[i].expected);
  }
  return previous_point;
}

}  // namespace

bool compare_at_points(CheckReport& r, const std::vector<int>& points, const NameIndex& index) {
  r.checks.resize(r.yours.size());
  bool known = false;
  for (size_t i = 0; i < r.yours.size(); ++i) {
    TensorCheck& c = r.checks[i];
    c.expected = points[i];
    if (c.expected < 0) continue;
    known = true;
    compare_one(r, i, index, c);
  }
  return known;
}

std::vector<size_t> in_compute_order(const CheckReport& r) {
  std::vector<size_t> order;
  for (size_t i = 0; i < r.checks.size(); ++i)
    if (r.checks[i].expected >= 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return r.checks[a].expected < r.checks[b].expected; });
  return order;
}

void settle_earlier_values(CheckReport& r, const std::vector<size_t>& order) {
  const std::vector<int> previous_point = previous_points(r);
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
}

}  // namespace attn
