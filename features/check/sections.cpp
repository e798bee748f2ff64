#include "features/check/sections.h"

#include <algorithm>

#include "features/check/check.h"

namespace attn {

namespace {

// The weights of the chain: a placement's by what it shares with the entry, and a change of lesson's cost.
constexpr int kEqual = 8;
constexpr int kSameShape = 2;
constexpr int kNewLesson = 3;

// A placed value, and the chain it ends.
struct Node {
  size_t value = 0;
  int entry = 0;
  int score = 0;
  int parent = -1;  // the node before it (-1: the chain starts here)
};

// The span each timeline entry is in.
std::vector<int> span_of_entries(size_t entries, const std::vector<LessonSpan>& spans) {
  std::vector<int> of(entries, -1);
  for (size_t s = 0; s < spans.size(); ++s)
    for (int j = spans[s].begin; j < spans[s].end && j < static_cast<int>(entries); ++j) of[j] = static_cast<int>(s);
  return of;
}

// What `t` shares with the entry `b`: kEqual, kSameShape or 0.
int weight(const LearnerTensor& t, const Binding& b) {
  if (b.name != t.name || b.tensor.shape() != t.tensor.shape()) return 0;
  return tensors_close(t.tensor, b.tensor) ? kEqual : kSameShape;
}

// The heaviest chain of placements going forward in both the program's order and the timeline's.
std::vector<int> heaviest_chain(const std::vector<Binding>& timeline, const std::vector<int>& span,
                                const std::vector<LearnerTensor>& values) {
  std::vector<Node> nodes;
  std::vector<int> best_end(timeline.size(), -1);  // the best node placed at each entry so far
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<std::pair<int, Node>> found;  // 1. this value's placements, each after the best chain before it
    for (int j = 0; j < static_cast<int>(timeline.size()); ++j) {
      const int w = weight(values[i], timeline[j]);
      if (w == 0) continue;
      Node n{i, j, w, -1};
      for (int k = 0; k < j; ++k) {
        if (best_end[k] < 0) continue;
        const int s = nodes[best_end[k]].score + w - (span[k] == span[j] ? 0 : kNewLesson);
        if (s > n.score) n.score = s, n.parent = best_end[k];
      }
      found.push_back({j, n});
    }
    for (const auto& [j, n] : found)  // 2. kept where they improve their entry's best
      if (best_end[j] < 0 || n.score > nodes[best_end[j]].score) {
        nodes.push_back(n);
        best_end[j] = static_cast<int>(nodes.size()) - 1;
      }
  }
  int last = -1;
  for (int b : best_end)
    if (b >= 0 && (last < 0 || nodes[b].score > nodes[last].score)) last = b;
  std::vector<int> entry(values.size(), -1);
  for (int n = last; n >= 0; n = nodes[n].parent) entry[nodes[n].value] = nodes[n].entry;
  return entry;
}

// Whether each entry's value is new in the chapter: no earlier lesson's entry has its name and value (a
// lesson recomputing the one before's scores is no evidence of itself).
std::vector<char> novel_entries(const std::vector<Binding>& timeline, const std::vector<int>& span) {
  std::vector<char> novel(timeline.size(), 1);
  for (size_t j = 0; j < timeline.size(); ++j)
    for (size_t k = 0; k < j && span[k] != span[j] && novel[j]; ++k)
      if (timeline[k].name == timeline[j].name && timeline[k].tensor.shape() == timeline[j].tensor.shape() &&
          tensors_close(timeline[j].tensor, timeline[k].tensor))
        novel[j] = 0;
  return novel;
}

}  // namespace

bool is_given_input(const std::string& name) { return name == "inputs" || name == "batch"; }

int SectionPlan::evidenced() const {
  return static_cast<int>(
      std::count_if(sections.begin(), sections.end(), [](const Section& s) { return s.evidenced(); }));
}

SectionPlan find_sections(const std::vector<Binding>& timeline, const std::vector<LessonSpan>& spans,
                          const std::vector<LearnerTensor>& values) {
  const std::vector<int> span = span_of_entries(timeline.size(), spans);
  SectionPlan plan;
  plan.entry = heaviest_chain(timeline, span, values);
  const std::vector<char> novel = novel_entries(timeline, span);
  plan.section_of.assign(values.size(), -1);
  for (size_t i = 0; i < values.size(); ++i) {
    const int e = plan.entry[i];
    if (e >= 0 && span[e] >= 0 && (plan.sections.empty() || plan.sections.back().span != static_cast<size_t>(span[e])))
      plan.sections.push_back(Section{static_cast<size_t>(span[e]), {}, 0, 0, 0, 0});
    if (plan.sections.empty()) continue;  // before the first placed value: no section
    Section& s = plan.sections.back();
    plan.section_of[i] = static_cast<int>(plan.sections.size()) - 1;
    s.values.push_back(i);
    if (e < 0) continue;
    // (A step inside a call the program made is the call's: its section is the module-level values'.)
    const bool equal = weight(values[i], timeline[e]) == kEqual && !values[i].in_call;
    const bool step = !is_given_input(values[i].name) && !values[i].in_call && novel[e];
    s.placed += 1;
    s.placed_steps += step && !values[i].in_call;
    s.equal += equal;
    s.equal_steps += equal && step;
  }
  return plan;
}

}  // namespace attn
