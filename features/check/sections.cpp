#include "features/check/sections.h"

#include <algorithm>

#include "core/safe_text.h"
#include "features/check/check.h"
#include "lessons/lesson.h"

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

// The chapter's values in sections by the cell export_for placed them in: a value placed in a lesson's cell
// starts (or continues) that lesson's section, the values without a place belong to the section they are in;
// a value under a name its section's lesson does not have is not that lesson's (a class's `context_vec` in
// 3.4.2 is not 3.5's).
std::vector<LearnerTensor> by_cell_sections(const std::vector<LearnerTensor>& tensors,
                                            const std::vector<int>& base_cell,
                                            const std::vector<std::set<std::string>>& names_of, int& unlisted) {
  std::vector<LearnerTensor> kept;
  size_t k = 0;
  for (const LearnerTensor& t : tensors) {
    if (t.cell) {
      size_t at = 0;
      while (at + 1 < base_cell.size() && base_cell[at + 1] < *t.cell) ++at;
      k = at;
    }
    if (names_of[k].count(t.name))
      kept.push_back(t);
    else
      ++unlisted;
  }
  return kept;
}

// The lesson whose span holds the timeline entry `entry` ("" : none).
std::string lesson_at(const std::vector<LessonSpan>& spans, int entry) {
  for (const LessonSpan& s : spans)
    if (entry >= s.begin && entry < s.end) return s.lesson;
  return "";
}

// "naive-scores (§3.3.1, 3.3.2), trainable (§3.4.1, 3.4.2)": the plan's sections the program computes
// (`evidenced`) or those it does not.
std::string sections_text(const SectionPlan& plan, const std::vector<LessonSpan>& spans, bool evidenced) {
  std::string out;
  for (const Section& s : plan.sections) {
    if (s.evidenced() != evidenced) continue;
    const LessonInfo* l = find_lesson(spans[s.span].lesson);
    std::string where;
    for (const std::string& sec : l->sections) where += (where.empty() ? "§" : ", ") + sec;
    out += (out.empty() ? "" : ", ") + l->name + (where.empty() ? "" : " (" + where + ")");
  }
  return out;
}

// The chapter's values by the plan's sections: each where the plan placed it (its entry, its cell), kept when
// its section is one the program computes and its lesson has its name; the sections found but not computed
// told in `notes` with the names they hold.
std::vector<LearnerTensor> section_tensors(const std::vector<LearnerTensor>& tensors, const SectionPlan& plan,
                                           const std::vector<LessonSpan>& spans,
                                           const std::vector<std::set<std::string>>& names_of,
                                           const std::vector<Binding>& timeline, int& unlisted,
                                           std::vector<Prose>& notes) {
  std::vector<LearnerTensor> kept;
  std::vector<std::set<std::string>> unchecked(plan.sections.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const int s = plan.section_of[i];
    if (s < 0 || !names_of[plan.sections[s].span].count(tensors[i].name)) {
      ++unlisted;
      continue;
    }
    if (!plan.sections[s].evidenced()) {
      if (unchecked[s].size() < 6) unchecked[s].insert(echo(tensors[i].name));
      continue;
    }
    kept.push_back(tensors[i]);
    if (plan.entry[i] >= 0) {
      kept.back().point = plan.entry[i];
      kept.back().cell = timeline[plan.entry[i]].cell;
    }
  }
  for (size_t s = 0; s < plan.sections.size(); ++s) {
    if (plan.sections[s].evidenced() || unchecked[s].empty()) continue;
    std::string names;
    for (const std::string& n : unchecked[s]) names += (names.empty() ? "" : ", ") + n;
    notes.push_back(text("check.traced.section-unchecked", {spans[plan.sections[s].span].lesson, names}));
  }
  return kept;
}

}  // namespace attn
