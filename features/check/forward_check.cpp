#include "features/check/forward_check.h"

#include <map>
#include <set>
#include <tuple>

namespace attn {

namespace {

std::string step_name(const Binding& step, const LessonForward& f) { return step.name + " in " + f.output; }

// Where each forward's steps go in the merged timeline: step_at[f][s], and each old entry's new index.
struct Merge {
  std::vector<Binding> timeline;
  std::vector<std::vector<int>> step_at;
  std::vector<int> moved;
};

Merge merge(const std::vector<Binding>& timeline, const std::vector<LessonForward>& forwards) {
  Merge m;
  m.step_at.resize(forwards.size());
  std::vector<size_t> before(forwards.size(), timeline.size());  // the old entry each forward goes in before
  for (size_t f = 0; f < forwards.size(); ++f)
    for (size_t i = 0; i < timeline.size() && before[f] == timeline.size(); ++i)
      if (timeline[i].cell >= forwards[f].cell) before[f] = i;
  for (size_t i = 0; i <= timeline.size(); ++i) {
    for (size_t f = 0; f < forwards.size(); ++f) {
      if (before[f] != i) continue;
      for (const Binding& s : forwards[f].steps) {
        m.step_at[f].push_back(static_cast<int>(m.timeline.size()));
        m.timeline.push_back(s);
        m.timeline.back().name = step_name(s, forwards[f]);
        m.timeline.back().traced = false;
      }
    }
    if (i == timeline.size()) break;
    m.moved.push_back(static_cast<int>(m.timeline.size()));
    m.timeline.push_back(timeline[i]);
  }
  return m;
}

// One call of the program's `forward`: its locals, in the order bound, with their values.
struct Call {
  std::vector<const TraceEvent*> events;
  std::vector<Tensor> values;
};

std::vector<Call> forward_calls(const TraceDocument& trace, const std::string& source) {
  std::map<int, size_t> index;  // call -> its place in `calls`
  std::vector<Call> calls;
  for (const TraceEvent& e : trace.events) {
    if (e.scope != "local" || e.function != "forward" || e.entry.is_null()) continue;
    const auto it = index.emplace(e.call, calls.size()).first;
    if (it->second == calls.size()) calls.emplace_back();
    calls[it->second].events.push_back(&e);
    calls[it->second].values.push_back(read_export_tensor(e.entry, e.name, source));
  }
  return calls;
}

// The call's local that is the step: one of its value (the step's own name first); else the step's name
// bound once (a value that differs); else none (-1).
int local_for(const Call& call, const Binding& step, const std::set<int>& used) {
  int named = -1, named_count = 0, equal = -1;
  for (size_t i = 0; i < call.events.size(); ++i) {
    if (used.count(static_cast<int>(i))) continue;
    const bool same_name = call.events[i]->name == step.name;
    if (tensors_close(call.values[i], step.tensor) && (equal < 0 || same_name)) equal = static_cast<int>(i);
    if (same_name) named = static_cast<int>(i), ++named_count;
  }
  return equal >= 0 ? equal : named_count == 1 ? named : -1;
}

// The call computes forward f: every one of keys, queries and values that f has is a value of the call.
bool computes(const Call& call, const LessonForward& f) {
  int inputs = 0;
  for (const Binding& s : f.steps) {
    if (s.name != "keys" && s.name != "queries" && s.name != "values") continue;
    bool found = false;
    for (const Tensor& v : call.values) found = found || tensors_close(v, s.tensor);
    if (!found) return false;
    ++inputs;
  }
  return inputs > 0;
}

}  // namespace

std::vector<LessonForward> lesson_forwards(const std::vector<Binding>& timeline, const std::vector<Binding>& inside) {
  std::vector<LessonForward> out;
  for (const Binding& b : inside) {
    if (out.empty() || out.back().cell != b.cell) {
      out.push_back({b.cell, "forward", {}});
      for (const Binding& t : timeline)
        if (t.cell == b.cell) {
          out.back().output = t.name;
          break;
        }
    }
    out.back().steps.push_back(b);
  }
  return out;
}

std::vector<Binding> with_forward_steps(const std::vector<Binding>& timeline,
                                        const std::vector<LessonForward>& forwards, std::vector<int>* moved) {
  Merge m = merge(timeline, forwards);
  if (moved) *moved = m.moved;
  return std::move(m.timeline);
}

ForwardMatch forward_tensors(const TraceDocument& trace, const std::string& source,
                             const std::vector<Binding>& timeline, const std::vector<LessonForward>& forwards) {
  const Merge m = merge(timeline, forwards);
  ForwardMatch out;
  size_t next = 0;  // the first forward a call may be
  for (const Call& call : forward_calls(trace, source)) {
    size_t f = next;
    while (f < forwards.size() && !computes(call, forwards[f])) ++f;
    if (f == forwards.size()) continue;
    next = f + 1;
    for (const TraceEvent* e : call.events) out.locals.push_back(e->origin);
    std::set<int> used;
    for (size_t s = 0; s < forwards[f].steps.size(); ++s) {
      const int i = local_for(call, forwards[f].steps[s], used);
      if (i < 0) continue;
      used.insert(i);
      out.tensors.push_back({step_name(forwards[f].steps[s], forwards[f]), call.values[i], std::nullopt,
                             call.events[i]->origin, true, m.step_at[f][s]});
    }
  }
  return out;
}

LearnerExport with_forward_tensors(const LearnerExport& ex, const TraceDocument& trace,
                                   const std::vector<Binding>& timeline, const std::vector<LessonForward>& forwards) {
  if (forwards.empty()) return ex;
  using Place = std::tuple<std::string, int, int>;  // file, cell, line
  const auto place = [](const TensorOrigin& o) { return Place{o.file, o.cell, o.line}; };
  ForwardMatch match = forward_tensors(trace, ex.source, timeline, forwards);
  std::set<Place> claimed;
  for (const TensorOrigin& o : match.locals) claimed.insert(place(o));
  const Merge m = merge(timeline, forwards);
  LearnerExport out = ex;
  out.tensors.clear();
  for (LearnerTensor t : ex.tensors) {
    if (t.origin && claimed.count(place(*t.origin))) continue;
    if (t.point && *t.point >= 0 && *t.point < static_cast<int>(m.moved.size())) t.point = m.moved[*t.point];
    out.tensors.push_back(std::move(t));
  }
  for (LearnerTensor& f : match.tensors) {
    auto at = out.tensors.begin();  // before the first tensor placed after it
    while (at != out.tensors.end() && !(at->point && *at->point > *f.point)) ++at;
    out.tensors.insert(at, std::move(f));
  }
  return out;
}

std::vector<WhatIf> with_forward_steps(std::vector<WhatIf> what_ifs) {
  for (WhatIf& w : what_ifs) w.timeline = with_forward_steps(w.timeline, lesson_forwards(w.timeline, w.inside));
  return what_ifs;
}

}  // namespace attn
