#include "features/check/trace_export.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "features/check/check.h"
#include "features/check/trace_align.h"
#include "lessons/lesson.h"

namespace attn {

namespace {

// Whether `t` equals a value the lesson's timeline gives `name` anywhere.
bool some_value_of(const std::vector<Binding>& timeline, const std::string& name, const Tensor& t) {
  for (const Binding& b : timeline)
    if (b.name == name && tensors_close(t, b.tensor)) return true;
  return false;
}

// A program's value under the lesson's name it stands for.
struct Named {
  const TraceEvent* event;
  std::string name;
};

// The name `e` stands for in a lesson with `names`: its own, or for a module's attribute the lesson shows bare
// (`mha.cache_k` as the kv-cache lesson's `cache_k`); "" when the lesson has neither.
std::string lesson_name(const TraceEvent& e, const std::set<std::string>& names) {
  if (names.count(e.name)) return e.name;
  if (e.owner.empty() || e.name.size() <= e.owner.size() + 1) return "";
  const std::string bare = e.name.substr(e.owner.size() + 1);
  return names.count(bare) ? bare : "";
}

// A module's attributes a call filled, as the program holds them after the call: the call's locals of the same
// name and value are the same tensors (left out: the attribute is the one the program keeps), and the
// attributes with the line's own result are put in the lesson's order (the call ran before the line bound its
// result, but the lesson may show either first): the values the lesson has, by their entries from where the
// line before reached, then the others as the program bound them.
void attributes_in_order(std::vector<Named>& values, std::vector<LearnerTensor>& tensors_in,
                         const std::vector<Binding>& timeline) {
  std::vector<char> drop(values.size(), 0);
  std::vector<Tensor> tensors;
  for (const LearnerTensor& t : tensors_in) tensors.push_back(t.tensor);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].event->owner.empty()) continue;
    for (size_t j = i; j-- > 0;) {
      const TraceEvent& e = *values[j].event;
      if (e.scope == "module" && e.owner.empty()) break;  // the line before
      if (e.scope != "module" && values[j].name == values[i].name && tensors_close(tensors[j], tensors[i])) drop[j] = 1;
    }
  }
  std::vector<Named> kept;
  std::vector<Tensor> kept_tensors;
  std::vector<LearnerTensor> kept_in;
  for (size_t i = 0; i < values.size(); ++i)
    if (!drop[i]) {
      kept.push_back(values[i]);
      kept_tensors.push_back(tensors[i]);
      kept_in.push_back(tensors_in[i]);
    }
  int reached = 0;  // the entry after the last group's values the lesson has
  for (size_t g = 0; g < kept.size();) {
    const TraceEvent& first = *kept[g].event;
    size_t end = g + 1;
    bool owned = !first.owner.empty();
    std::set<std::string> seen = {kept[g].name};
    while (end < kept.size() && first.scope == "module" && kept[end].event->scope == "module" &&
           kept[end].event->origin.cell == first.origin.cell && kept[end].event->origin.line == first.origin.line &&
           !seen.count(kept[end].name)) {
      owned = owned || !kept[end].event->owner.empty();
      seen.insert(kept[end].name);
      ++end;
    }
    if (!owned || end - g < 2) {
      g = end;
      continue;
    }
    std::vector<std::pair<int, size_t>> order;  // (entry, or past the timeline for a value the lesson has not, index)
    int furthest = reached;
    for (size_t i = g; i < end; ++i) {
      int at = static_cast<int>(timeline.size()) + static_cast<int>(i);
      for (int j = reached; j < static_cast<int>(timeline.size()); ++j)
        if (timeline[j].name == kept[i].name && tensors_close(kept_tensors[i], timeline[j].tensor)) {
          at = j;
          furthest = std::max(furthest, j + 1);
          break;
        }
      order.push_back({at, i});
    }
    std::stable_sort(order.begin(), order.end());
    std::vector<Named> group;
    std::vector<LearnerTensor> group_in;
    for (const auto& [at, i] : order) {
      group.push_back(kept[i]);
      group_in.push_back(kept_in[i]);
    }
    std::copy(group.begin(), group.end(), kept.begin() + static_cast<std::ptrdiff_t>(g));
    std::copy(group_in.begin(), group_in.end(), kept_in.begin() + static_cast<std::ptrdiff_t>(g));
    reached = furthest;
    g = end;
  }
  values = std::move(kept);
  tensors_in = std::move(kept_in);
}

}  // namespace

std::set<std::string> timeline_names(const Notebook& tool) {
  std::set<std::string> names;
  for (const Binding& b : tool.timeline()) names.insert(b.name);
  return names;
}

// The program's tensors the lesson has names for, as an export of `lesson`, each with its origin. With the
// lesson's timeline, two kinds of the program's values are not the lesson's and are left out: the states a
// tensor passes through before its last one (a loop filling it in place: `attn_scores_2[i] = ...` from
// torch.empty) unless the lesson has that state too, and the locals of a call none of whose tensors is a
// value the lesson has (a class or a call the lesson does not step through).
LearnerExport export_for(const TraceDocument& trace, const std::string& source, const std::string& lesson,
                         const std::set<std::string>& names, const nlohmann::json& config, int& unlisted,
                         const std::vector<Binding>* timeline, int* furthest, bool module_only) {
  using nlohmann::json;
  json doc = {{"schema", "attn-tutor/1"}, {"lesson", lesson}, {"config", config}, {"tensors", json::array()}};
  std::vector<Named> values;
  unlisted = 0;
  for (const TraceEvent& e : trace.events) {
    std::string name = lesson_name(e, names);
    if (e.entry.is_null() || name.empty() || values.size() >= kMaxExportTensors ||
        (module_only && e.scope != "module")) {
      ++unlisted;
      continue;
    }
    values.push_back({&e, std::move(name)});
  }
  for (const Named& v : values) {
    json entry = v.event->entry;
    entry["name"] = v.name;
    doc["tensors"].push_back(std::move(entry));
  }
  LearnerExport ex = parse_export(doc.dump(), source);
  if (timeline) {
    const size_t before = values.size();
    attributes_in_order(values, ex.tensors, *timeline);
    unlisted += static_cast<int>(before - values.size());
  }
  std::vector<const TraceEvent*> events;
  for (const Named& v : values) events.push_back(v.event);
  std::vector<char> keep(ex.tensors.size(), 1);
  std::vector<char> rank_ok(ex.tensors.size(), 1);  // of a shape the lesson's name has somewhere
  std::vector<char> known(events.size(), 0);        // a value the lesson's name takes somewhere
  if (timeline) {
    // Each object's chain of states: a binding, then the in-place changes of the same name in the same function.
    std::map<std::string, size_t> latest;  // name, scope, function -> its chain's latest event
    std::vector<char> last_state(events.size(), 1);
    for (size_t i = 0; i < events.size(); ++i) {
      const std::string key = events[i]->name + "\n" + events[i]->scope + "\n" + events[i]->function_key;
      const auto it = latest.find(key);
      if (events[i]->kind == "in_place" && it != latest.end()) last_state[it->second] = 0;
      latest[key] = i;
    }
    std::map<int, bool> call_known;  // a call of a function whose locals the lesson has
    for (size_t i = 0; i < events.size(); ++i) {
      known[i] = some_value_of(*timeline, ex.tensors[i].name, ex.tensors[i].tensor);
      if (events[i]->scope != "module") call_known[events[i]->call] |= known[i] != 0;
    }
    // A value of another shape than all the lesson's of its name, when another of the program's has one of
    // theirs (the unbatched `keys` of an earlier cell beside the module's batched ones, a cached step's).
    auto lesson_rank = [&](size_t i) {
      for (const Binding& b : *timeline)
        if (b.name == ex.tensors[i].name && b.tensor.shape() == ex.tensors[i].tensor.shape()) return true;
      return false;
    };
    std::set<std::string> some_rank;  // names of which the program has a value of a shape the lesson has
    for (size_t i = 0; i < events.size(); ++i)
      if ((rank_ok[i] = lesson_rank(i))) some_rank.insert(ex.tensors[i].name);
    for (size_t i = 0; i < events.size(); ++i)
      keep[i] = (last_state[i] || known[i]) && (events[i]->scope == "module" || call_known[events[i]->call]) &&
                (rank_ok[i] || !some_rank.count(ex.tensors[i].name));
    // A value the lesson does not have, rebound under its name before any other of the lesson's names is
    // (a loop accumulating `context_vec_2 = context_vec_2 + ...`): an in-between state, as an in-place one.
    for (size_t i = 0; i + 1 < events.size(); ++i)
      if (!known[i] && events[i + 1]->name == events[i]->name && events[i + 1]->scope == events[i]->scope &&
          events[i + 1]->function_key == events[i]->function_key && events[i + 1]->call == events[i]->call)
        keep[i] = 0;
  }
  // Each kept value placed in the lesson's timeline where it equals the lesson's value of its name, the
  // most of them in the program's order (the longest chain of places going forward: a module's weights
  // the lesson shows late do not push its forward's steps out); a value off that chain keeps no place
  // (a mistake can give an earlier value: masked_fill's result discarded leaves the unmasked scores).
  std::vector<std::optional<int>> cell(events.size());
  std::vector<int> point(events.size(), -1);    // the entry
  std::map<int, bool> call_placed;              // a call with a local placed so
  std::vector<char> chained(events.size(), 0);  // placed so (before the places left to the program's order)
  if (timeline) {
    // A module-level value the lesson never has (no place) still takes its name's next entry in the lesson (its slot:
    // the program computed that step, differently): the values after it are placed past that entry, not
    // back in its section (a chapter's next section recomputing 3.5.1's values after a mistake in 3.5.1).
    std::vector<int> min_entry(events.size(), 0), place, slot;
    for (int round = 0; round < 16; ++round) {
      place = chain_places(*timeline, ex.tensors, keep, &min_entry);
      slot.assign(events.size(), -1);
      std::vector<int> next = min_entry;
      int last = -1, bound = 0;
      for (size_t i = 0; i < events.size(); ++i) {
        next[i] = std::max(next[i], bound);
        if (!keep[i]) continue;
        if (place[i] >= 0) {
          last = place[i];
          continue;
        }
        if (events[i]->scope != "module" || known[i]) continue;
        for (int j = std::max(last + 1, next[i]); j < static_cast<int>(timeline->size()); ++j)
          if ((*timeline)[j].name == ex.tensors[i].name) {
            bound = std::max(bound, j + 1);
            last = slot[i] = j;
            break;
          }
      }
      if (next == min_entry) break;
      min_entry = next;
    }
    // A call's local bound again to the value it had (`attn_weights = self.dropout(attn_weights)` in eval
    // mode) is the lesson's next step of that name, when the lesson has one before the next placed value.
    for (size_t i = 0; i < events.size(); ++i) {
      if (place[i] >= 0 || !keep[i] || !known[i] || events[i]->scope == "module") continue;
      size_t j = i;
      while (j-- > 0 && !(events[j]->call == events[i]->call && ex.tensors[j].name == ex.tensors[i].name)) {
      }
      if (j >= i || place[j] < 0 || !tensors_close(ex.tensors[j].tensor, ex.tensors[i].tensor)) continue;
      int next = static_cast<int>(timeline->size());
      for (size_t k = i + 1; k < events.size(); ++k)
        if (place[k] >= 0) {
          next = place[k];
          break;
        }
      for (int e = place[j] + 1; e < next; ++e)
        if ((*timeline)[e].name == ex.tensors[i].name) {
          place[i] = e;
          break;
        }
    }
    // A module-level value placed where its name takes another value before the next placed one's place
    // is checked as an export is, from the program's order (an earlier value left there: the mask's result discarded).
    for (size_t i = 0; i < events.size(); ++i) {
      chained[i] = place[i] >= 0;
      if (chained[i] && events[i]->scope != "module") call_placed[events[i]->call] = true;
    }
    int next_place = static_cast<int>(timeline->size());
    for (size_t i = events.size(); i-- > 0;) {
      if (place[i] < 0) continue;
      const int here = place[i];
      // (Not for another value in the same cell: one statement of the lesson's code rebinding it, which a
      // program may write inline: `torch.softmax(attn_scores.masked_fill(mask, -torch.inf), ...)`.)
      for (int j = here + 1; j < next_place && events[i]->scope == "module"; ++j)
        if ((*timeline)[j].name == ex.tensors[i].name && (*timeline)[j].cell != (*timeline)[here].cell) {
          place[i] = -1;
          break;
        }
      next_place = here;
    }
    // A module-level value the lesson never has is checked at its slot (the step the program computed
    // differently: a KV cache's mask at the step it went wrong, not the lesson's first mask).
    // So is one equal to an earlier step's value (a loop repeating it: every cached step's `out` the first's)
    // when its name has a step between the placed values around it.
    for (size_t i = 0; i < events.size(); ++i) {
      if (place[i] >= 0 || !keep[i] || !known[i] || events[i]->scope != "module") continue;
      int last = -1, next = -1;
      for (size_t j = 0; j < i; ++j) last = std::max(last, chained[j] ? place[j] : -1);
      for (size_t j = i + 1; j < events.size() && next < 0; ++j) next = chained[j] ? place[j] : -1;
      for (int e = last + 1; e < next; ++e)
        if ((*timeline)[e].name == ex.tensors[i].name) {
          slot[i] = e;
          break;
        }
    }
    // (Of the lesson's shape there: a value of another shape is left to the program's order, as an export is.)
    for (size_t i = 0; i < events.size(); ++i)
      if (place[i] < 0 && slot[i] >= 0 && (*timeline)[slot[i]].tensor.shape() == ex.tensors[i].tensor.shape())
        place[i] = slot[i];
    for (size_t i = 0; i < events.size(); ++i)
      if (place[i] >= 0) {
        cell[i] = (*timeline)[place[i]].cell;
        point[i] = place[i];
      }
  }
  // A call's local without a place is between the places of the values around it: the lesson's name must have a
  // value in a cell from the one before's to the one after's (a class's `context_vec` computed in 3.4.2,
  // beside the lesson's values of 3.5.1 that its keys equal, is no step of 3.5.3's).
  std::vector<char> between(events.size(), 1);
  std::vector<std::optional<int>> hint(events.size());
  const bool whole_chapter = find_lesson(lesson) == nullptr;
  if (timeline) {
    int before = 0;
    std::vector<int> after(events.size() + 1, std::numeric_limits<int>::max());
    for (size_t i = events.size(); i-- > 0;) after[i] = cell[i] ? *cell[i] : after[i + 1];
    for (size_t i = 0; i < events.size(); ++i) {
      if (cell[i]) {
        before = *cell[i];
        continue;
      }
      std::optional<int> in_window;
      for (const Binding& b : *timeline)
        if (b.name == ex.tensors[i].name && b.cell >= before && b.cell <= after[i + 1]) {
          in_window = b.cell;
          break;
        }
      // In a whole chapter (`all`: no one lesson's row), that cell is where it is checked (not a search back
      // over other sections).
      if (whole_chapter) hint[i] = in_window;
      if (events[i]->scope == "module") continue;  // the program's own steps: checked where they are
      between[i] = in_window.has_value();
    }
  }
  // A call's local the lesson never has, between two of the same call's values that are placed: another
  // intermediate under the lesson's name (the scores already masked where the lesson masks inside the
  // softmax's argument); a mistake there would carry into the value after it.
  if (timeline)
    for (size_t i = 0; i < events.size(); ++i) {
      if (!keep[i] || chained[i] || known[i] || events[i]->scope == "module") continue;
      size_t p = i, n = i + 1;
      while (p > 0 && !keep[p - 1]) --p;
      while (n < events.size() && !keep[n]) ++n;
      if (p > 0 && n < events.size() && chained[p - 1] && chained[n] && events[p - 1]->call == events[i]->call &&
          events[n]->call == events[i]->call)
        keep[i] = 0;
    }
  LearnerExport kept = ex;
  kept.tensors.clear();
  for (size_t i = 0; i < ex.tensors.size(); ++i) {
    if (keep[i] && !between[i]) keep[i] = 0;
    // Left out besides: the locals of a call none of which is placed (a call the lesson does not step
    // through here: swa's causal comparison, a cached step), and a call's local equal only to an earlier
    // value of the lesson's (the call recomputes what the lesson showed before: a cached step's keys).
    if (!keep[i] ||
        (timeline && events[i]->scope != "module" && (!call_placed[events[i]->call] || (!chained[i] && known[i])))) {
      ++unlisted;
      continue;
    }
    kept.tensors.push_back(ex.tensors[i]);
    kept.tensors.back().origin = events[i]->origin;
    if (furthest && events[i]->scope == "module" && rank_ok[i] && (chained[i] || ex.tensors[i].name == events[i]->name))
      *furthest = std::max(*furthest, static_cast<int>(events[i] - trace.events.data()));
    kept.tensors.back().snapshot = true;
    kept.tensors.back().in_call = events[i]->scope != "module";
    if (cell[i]) kept.tensors.back().cell = cell[i];
    if (point[i] >= 0)
      kept.tensors.back().point = point[i];
    else if (hint[i])
      kept.tensors.back().cell = hint[i];
  }
  return kept;
}

}  // namespace attn
