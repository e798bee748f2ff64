#include "features/check/trace_export.h"

#include <algorithm>
#include <utility>

#include "features/check/check.h"
#include "features/check/trace_place.h"
#include "lessons/lesson.h"

namespace attn {

namespace {

// The name `e` stands for in a lesson with `names`: its own, or for a module's attribute the lesson shows bare
// (`mha.cache_k` as the kv-cache lesson's `cache_k`); "" when the lesson has neither.
std::string lesson_name(const TraceEvent& e, const std::set<std::string>& names) {
  if (names.count(e.name)) return e.name;
  if (e.owner.empty() || e.name.size() <= e.owner.size() + 1) return "";
  const std::string bare = e.name.substr(e.owner.size() + 1);
  return names.count(bare) ? bare : "";
}

// Stage "read": the program's values under the lesson's names, read as an export's tensors are.
TracedValues named_values(const TraceDocument& trace, const std::set<std::string>& names, bool module_only,
                          const std::string& source, int& unlisted) {
  TracedValues v;
  for (const TraceEvent& e : trace.events) {
    std::string name = lesson_name(e, names);
    if (e.entry.is_null() || name.empty() || v.events.size() >= kMaxExportTensors ||
        (module_only && e.scope != "module")) {
      ++unlisted;
      continue;
    }
    Tensor t = read_export_tensor(e.entry, name, source);
    v.events.push_back(&e);
    v.tensors.push_back({std::move(name), std::move(t), std::nullopt, std::nullopt, false, std::nullopt});
  }
  return v;
}

// Only the values with keep[i].
void keep_only(TracedValues& v, const std::vector<char>& keep) {
  TracedValues kept;
  for (size_t i = 0; i < v.events.size(); ++i)
    if (keep[i]) {
      kept.events.push_back(v.events[i]);
      kept.tensors.push_back(std::move(v.tensors[i]));
    }
  v = std::move(kept);
}

// A module's attributes a call filled, as the program holds them after the call: the call's locals of the
// same name and value are the same tensors (left out: the attribute is the one the program keeps).
void drop_call_copies(TracedValues& v) {
  std::vector<char> keep(v.events.size(), 1);
  for (size_t i = 0; i < v.events.size(); ++i) {
    if (v.events[i]->owner.empty()) continue;
    for (size_t j = i; j-- > 0;) {
      const TraceEvent& e = *v.events[j];
      if (e.scope == "module" && e.owner.empty()) break;  // the line before
      if (e.scope != "module" && v.tensors[j].name == v.tensors[i].name &&
          tensors_close(v.tensors[j].tensor, v.tensors[i].tensor))
        keep[j] = 0;
    }
  }
  keep_only(v, keep);
}

// The end of the group of module-level values bound at value g's line (each name once); `owned`: one
// of them is a module's attribute.
size_t line_group_end(const TracedValues& v, size_t g, bool& owned) {
  const TraceEvent& first = *v.events[g];
  size_t end = g + 1;
  owned = !first.owner.empty();
  std::set<std::string> seen = {v.tensors[g].name};
  while (end < v.events.size() && first.scope == "module" && v.events[end]->scope == "module" &&
         v.events[end]->origin.cell == first.origin.cell && v.events[end]->origin.line == first.origin.line &&
         !seen.count(v.tensors[end].name)) {
    owned = owned || !v.events[end]->owner.empty();
    seen.insert(v.tensors[end].name);
    ++end;
  }
  return end;
}

// Values [g, end) in the lesson's order: those the lesson has by their entries from `reached` on, then the
// others as the program bound them. Returns the entry after the last one the lesson has.
int order_group(TracedValues& v, size_t g, size_t end, const std::vector<Binding>& tl, int reached) {
  std::vector<std::pair<int, size_t>> order;  // (entry, or past the timeline for a value the lesson has not, index)
  int furthest = reached;
  for (size_t i = g; i < end; ++i) {
    int at = static_cast<int>(tl.size()) + static_cast<int>(i);
    for (int j = reached; j < static_cast<int>(tl.size()); ++j)
      if (tl[j].name == v.tensors[i].name && tensors_close(v.tensors[i].tensor, tl[j].tensor)) {
        at = j;
        furthest = std::max(furthest, j + 1);
        break;
      }
    order.push_back({at, i});
  }
  std::stable_sort(order.begin(), order.end());
  std::vector<const TraceEvent*> events;
  std::vector<LearnerTensor> tensors;
  for (const auto& [at, i] : order) {
    events.push_back(v.events[i]);
    tensors.push_back(std::move(v.tensors[i]));
  }
  std::move(events.begin(), events.end(), v.events.begin() + static_cast<std::ptrdiff_t>(g));
  std::move(tensors.begin(), tensors.end(), v.tensors.begin() + static_cast<std::ptrdiff_t>(g));
  return furthest;
}

// The attributes with the line's own result put in the lesson's order (the call ran before the line bound
// its result, but the lesson may show either first).
void attributes_in_order(TracedValues& v, const std::vector<Binding>& tl) {
  drop_call_copies(v);
  int reached = 0;  // the entry after the last group's values the lesson has
  for (size_t g = 0; g < v.events.size();) {
    bool owned = false;
    const size_t end = line_group_end(v, g, owned);
    if (owned && end - g >= 2) reached = order_group(v, g, end, tl, reached);
    g = end;
  }
}

}  // namespace

std::set<std::string> timeline_names(const Notebook& tool) {
  std::set<std::string> names;
  for (const Binding& b : tool.timeline()) names.insert(b.name);
  return names;
}

LearnerExport export_for(const TraceDocument& trace, const std::string& source, const std::string& lesson,
                         const std::set<std::string>& names, const nlohmann::json& config, int& unlisted,
                         const std::vector<Binding>* timeline, int* furthest, bool module_only) {
  unlisted = 0;
  TracedValues v = named_values(trace, names, module_only, source, unlisted);  // 1. read
  if (timeline) {                                                              // 2. place (trace_place.h)
    const size_t before = v.events.size();
    attributes_in_order(v, *timeline);
    unlisted += static_cast<int>(before - v.events.size());
    place_in_timeline(v, *timeline, find_lesson(lesson) == nullptr);
  } else {
    unplaced(v);
  }
  LearnerExport kept{source, lesson, config, {}, {}, true};
  for (size_t i = 0; i < v.events.size(); ++i) {
    const TraceEvent& e = *v.events[i];
    // Left out besides: the locals of a call none of which is placed (a call the lesson does not step
    // through here: swa's causal comparison, a cached step), and a call's local equal only to an earlier
    // value of the lesson's (the call recomputes what the lesson showed before: a cached step's keys).
    if (!v.keep[i] || !v.between[i] ||
        (timeline && e.scope != "module" && (!v.call_placed[e.call] || (!v.chained[i] && v.known[i])))) {
      ++unlisted;
      continue;
    }
    LearnerTensor t = std::move(v.tensors[i]);
    t.origin = e.origin;
    if (furthest && e.scope == "module" && v.rank_ok[i] && (v.chained[i] || t.name == e.name))
      *furthest = std::max(*furthest, static_cast<int>(&e - trace.events.data()));
    t.snapshot = true;
    t.in_call = e.scope != "module";
    if (v.cell[i]) t.cell = v.cell[i];
    if (v.point[i] >= 0)
      t.point = v.point[i];
    else if (v.hint[i])
      t.cell = v.hint[i];
    kept.tensors.push_back(std::move(t));
  }
  return kept;
}

}  // namespace attn
