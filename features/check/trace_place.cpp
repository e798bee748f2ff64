#include "features/check/trace_place.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>

#include "features/check/check.h"
#include "features/check/trace_align.h"

namespace attn {

namespace {

// Whether `t` equals a value the lesson's timeline gives `name` anywhere.
bool some_value_of(const std::vector<Binding>& timeline, const std::string& name, const Tensor& t) {
  for (const Binding& b : timeline)
    if (b.name == name && tensors_close(t, b.tensor)) return true;
  return false;
}

// Whether the lesson's name of value i has a value of its shape somewhere.
bool lesson_rank(const TracedValues& v, size_t i, const std::vector<Binding>& tl) {
  for (const Binding& b : tl)
    if (b.name == v.tensors[i].name && b.tensor.shape() == v.tensors[i].tensor.shape()) return true;
  return false;
}

// last_state[i]: no in-place change of the same name in the same function follows (each object's chain
// of states: a binding, then those changes).
std::vector<char> last_states(const TracedValues& v) {
  std::map<std::string, size_t> latest;  // name, scope, function -> its chain's latest event
  std::vector<char> last_state(v.events.size(), 1);
  for (size_t i = 0; i < v.events.size(); ++i) {
    const TraceEvent& e = *v.events[i];
    const std::string key = e.name + "\n" + e.scope + "\n" + e.function_key;
    const auto it = latest.find(key);
    if (e.kind == "in_place" && it != latest.end()) last_state[it->second] = 0;
    latest[key] = i;
  }
  return last_state;
}

// Pass 1: which values are the lesson's. Left out: the states a tensor passes through before its last one
// (a loop filling it in place) unless the lesson has that state too, the locals of a call none of whose
// tensors is a value the lesson has, and a value of another shape than all the lesson's of its name when
// another of the program's has one of theirs (the unbatched `keys` of an earlier cell beside the module's).
void keep_lessons_values(TracedValues& v, const std::vector<Binding>& tl) {
  const size_t n = v.events.size();
  const std::vector<char> last_state = last_states(v);
  std::map<int, bool> call_known;  // a call of a function whose locals the lesson has
  for (size_t i = 0; i < n; ++i) {
    v.known[i] = some_value_of(tl, v.tensors[i].name, v.tensors[i].tensor);
    if (v.events[i]->scope != "module") call_known[v.events[i]->call] |= v.known[i] != 0;
  }
  std::set<std::string> some_rank;  // names of which the program has a value of a shape the lesson has
  for (size_t i = 0; i < n; ++i)
    if ((v.rank_ok[i] = lesson_rank(v, i, tl))) some_rank.insert(v.tensors[i].name);
  for (size_t i = 0; i < n; ++i)
    v.keep[i] = (last_state[i] || v.known[i]) && (v.events[i]->scope == "module" || call_known[v.events[i]->call]) &&
                (v.rank_ok[i] || !some_rank.count(v.tensors[i].name));
  // A value the lesson does not have, rebound under its name before any other of the lesson's names is
  // (a loop accumulating `context_vec_2 = context_vec_2 + ...`): an in-between state, as an in-place one.
  // Not when it is bound again to the same value (a dropout of 0, or in eval()): that value's own step
  // (the softmax) is where it was computed, and where a difference shows.
  for (size_t i = 0; i + 1 < n; ++i) {
    const TraceEvent &e = *v.events[i], &next = *v.events[i + 1];
    if (!v.known[i] && next.name == e.name && next.scope == e.scope && next.function_key == e.function_key &&
        next.call == e.call && !tensors_close(v.tensors[i].tensor, v.tensors[i + 1].tensor, 0.0))
      v.keep[i] = 0;
  }
}

// Pass 2: each kept value placed where it equals the lesson's value of its name, the most of them in the
// program's order (trace_align.h: a module's weights the lesson shows late do not push its forward's steps
// out). A module-level value the lesson never has still takes its name's next entry (its slot: the program
// computed that step, differently): the values after it are placed past that entry, not back in its section
// (a chapter's next section recomputing 3.5.1's values after a mistake in 3.5.1). Returns the slots.
std::vector<int> chain_with_slots(const TracedValues& v, const std::vector<Binding>& tl, std::vector<int>& place) {
  const size_t n = v.events.size();
  std::vector<int> min_entry(n, 0), slot;
  for (int round = 0; round < 16; ++round) {
    place = chain_places(tl, v.tensors, v.keep, &min_entry);
    slot.assign(n, -1);
    std::vector<int> next = min_entry;
    int last = -1, bound = 0;
    for (size_t i = 0; i < n; ++i) {
      next[i] = std::max(next[i], bound);
      if (!v.keep[i]) continue;
      if (place[i] >= 0) {
        last = place[i];
        continue;
      }
      if (v.events[i]->scope != "module" || v.known[i]) continue;
      for (int j = std::max(last + 1, next[i]); j < static_cast<int>(tl.size()); ++j)
        if (tl[j].name == v.tensors[i].name) {
          bound = std::max(bound, j + 1);
          last = slot[i] = j;
          break;
        }
    }
    if (next == min_entry) break;
    min_entry = next;
  }
  return slot;
}

// A call's local bound again to the value it had (`attn_weights = self.dropout(attn_weights)` in eval
// mode) is the lesson's next step of that name, when the lesson has one before the next placed value.
void place_rebound_locals(const TracedValues& v, const std::vector<Binding>& tl, std::vector<int>& place) {
  for (size_t i = 0; i < v.events.size(); ++i) {
    if (place[i] >= 0 || !v.keep[i] || !v.known[i] || v.events[i]->scope == "module") continue;
    size_t j = i;
    while (j-- > 0 && !(v.events[j]->call == v.events[i]->call && v.tensors[j].name == v.tensors[i].name)) {
    }
    if (j >= i || place[j] < 0 || !tensors_close(v.tensors[j].tensor, v.tensors[i].tensor)) continue;
    int next = static_cast<int>(tl.size());
    for (size_t k = i + 1; k < v.events.size(); ++k)
      if (place[k] >= 0) {
        next = place[k];
        break;
      }
    for (int e = place[j] + 1; e < next; ++e)
      if (tl[e].name == v.tensors[i].name) {
        place[i] = e;
        break;
      }
  }
}

// A module-level value placed where its name takes another value before the next placed one's place is
// checked as an export is, from the program's order (an earlier value left there: the mask's result
// discarded). Not for another value in the same cell: one statement of the lesson's code rebinding it,
// which a program may write inline (`torch.softmax(attn_scores.masked_fill(mask, -torch.inf), ...)`).
void unplace_overwritten(const TracedValues& v, const std::vector<Binding>& tl, std::vector<int>& place) {
  int next_place = static_cast<int>(tl.size());
  for (size_t i = v.events.size(); i-- > 0;) {
    if (place[i] < 0) continue;
    const int here = place[i];
    for (int j = here + 1; j < next_place && v.events[i]->scope == "module"; ++j)
      if (tl[j].name == v.tensors[i].name && tl[j].cell != tl[here].cell) {
        place[i] = -1;
        break;
      }
    next_place = here;
  }
}

// A module-level value equal to an earlier step's value (a loop repeating it: every cached step's `out`
// the first's) takes its name's step between the chained values around it as its slot.
void slot_repeated_values(const TracedValues& v, const std::vector<Binding>& tl, const std::vector<int>& place,
                          std::vector<int>& slot) {
  for (size_t i = 0; i < v.events.size(); ++i) {
    if (place[i] >= 0 || !v.keep[i] || !v.known[i] || v.events[i]->scope != "module") continue;
    int last = -1, next = -1;
    for (size_t j = 0; j < i; ++j) last = std::max(last, v.chained[j] ? place[j] : -1);
    for (size_t j = i + 1; j < v.events.size() && next < 0; ++j) next = v.chained[j] ? place[j] : -1;
    for (int e = last + 1; e < next; ++e)
      if (tl[e].name == v.tensors[i].name) {
        slot[i] = e;
        break;
      }
  }
}

void place_values(TracedValues& v, const std::vector<Binding>& tl) {
  std::vector<int> place;
  std::vector<int> slot = chain_with_slots(v, tl, place);
  place_rebound_locals(v, tl, place);
  for (size_t i = 0; i < v.events.size(); ++i) {
    v.chained[i] = place[i] >= 0;
    if (v.chained[i] && v.events[i]->scope != "module") v.call_placed[v.events[i]->call] = true;
  }
  unplace_overwritten(v, tl, place);
  slot_repeated_values(v, tl, place, slot);
  // A module-level value the lesson never has is checked at its slot (the step the program computed
  // differently: a KV cache's mask at the step it went wrong, not the lesson's first mask), when it has
  // the lesson's shape there (a value of another shape is left to the program's order, as an export is).
  for (size_t i = 0; i < v.events.size(); ++i)
    if (place[i] < 0 && slot[i] >= 0 && tl[slot[i]].tensor.shape() == v.tensors[i].tensor.shape()) place[i] = slot[i];
  for (size_t i = 0; i < v.events.size(); ++i)
    if (place[i] >= 0) {
      v.cell[i] = tl[place[i]].cell;
      v.point[i] = place[i];
    }
}

// Pass 3: a call's local without a place is between the places of the values around it: the lesson's name
// must have a value in a cell from the one before's to the one after's (a class's `context_vec` computed in
// 3.4.2, beside the lesson's values of 3.5.1 that its keys equal, is no step of 3.5.3's). In a whole chapter
// (`all`: no one lesson's row), that cell is where an unplaced value is checked (not a search back over
// other sections).
void window_cells(TracedValues& v, const std::vector<Binding>& tl, bool whole_chapter) {
  const size_t n = v.events.size();
  int before = 0;
  std::vector<int> after(n + 1, std::numeric_limits<int>::max());
  for (size_t i = n; i-- > 0;) after[i] = v.cell[i] ? *v.cell[i] : after[i + 1];
  for (size_t i = 0; i < n; ++i) {
    if (v.cell[i]) {
      before = *v.cell[i];
      continue;
    }
    // (A next place in an earlier cell: the lesson shows the call's result before it steps through the
    // call, as mha shows `context_vecs = mha(batch)` first; the window then runs on to the lesson's end.)
    const int last = after[i + 1] < before ? std::numeric_limits<int>::max() : after[i + 1];
    std::optional<int> in_window;
    for (const Binding& b : tl)
      if (b.name == v.tensors[i].name && b.cell >= before && b.cell <= last) {
        in_window = b.cell;
        break;
      }
    if (whole_chapter) v.hint[i] = in_window;
    if (v.events[i]->scope == "module") continue;  // the program's own steps: checked where they are
    v.between[i] = in_window.has_value();
  }
}

// Pass 4: a call's local the lesson never has, between two of the same call's values that are placed:
// another intermediate under the lesson's name (the scores already masked where the lesson masks inside the
// softmax's argument); a mistake there would carry into the value after it.
void drop_inner_intermediates(TracedValues& v) {
  const size_t n = v.events.size();
  for (size_t i = 0; i < n; ++i) {
    if (!v.keep[i] || v.chained[i] || v.known[i] || v.events[i]->scope == "module") continue;
    size_t p = i, q = i + 1;
    while (p > 0 && !v.keep[p - 1]) --p;
    while (q < n && !v.keep[q]) ++q;
    if (p > 0 && q < n && v.chained[p - 1] && v.chained[q] && v.events[p - 1]->call == v.events[i]->call &&
        v.events[q]->call == v.events[i]->call)
      v.keep[i] = 0;
  }
}

}  // namespace

void unplaced(TracedValues& v) {
  const size_t n = v.events.size();
  v.keep.assign(n, 1);
  v.rank_ok.assign(n, 1);
  v.known.assign(n, 0);
  v.chained.assign(n, 0);
  v.point.assign(n, -1);
  v.cell.assign(n, std::nullopt);
  v.hint.assign(n, std::nullopt);
  v.between.assign(n, 1);
  v.call_placed.clear();
}

void place_in_timeline(TracedValues& v, const std::vector<Binding>& timeline, bool whole_chapter) {
  unplaced(v);
  keep_lessons_values(v, timeline);
  place_values(v, timeline);
  window_cells(v, timeline, whole_chapter);
  drop_inner_intermediates(v);
}

}  // namespace attn
