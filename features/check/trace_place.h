#pragma once
// Stage "place" of a traced program's check: the program's values under a lesson's names, in the
// program's order, kept or left out (a state a loop passes through, a call the lesson does not step
// through) and each placed in the lesson's timeline, where it equals the lesson's value of its name
// (trace_align.h's chain) or at the step it stands for; the rest are left to the program's order.
#include <map>
#include <optional>
#include <vector>

#include "features/check/learner_export.h"
#include "features/check/trace_check.h"
#include "notebook/notebook.h"

namespace attn {

// The values, and what each pass decides of them (all indexed alike).
struct TracedValues {
  std::vector<const TraceEvent*> events;
  std::vector<LearnerTensor> tensors;    // under the lesson's names
  std::vector<char> keep;                // the lesson's value (not an in-between state, nor a call it does not show)
  std::vector<char> rank_ok;             // of a shape the lesson's name has somewhere
  std::vector<char> known;               // a value the lesson's name takes somewhere
  std::vector<char> chained;             // placed where it equals the lesson's (before the places by slot)
  std::vector<int> point;                // the entry it is checked at (-1: its order decides)
  std::vector<std::optional<int>> cell;  // the cell of that entry
  std::vector<std::optional<int>> hint;  // in a whole chapter: the cell an unplaced value is checked in
  std::vector<char> between;             // a call's local whose name has a value between its neighbours' cells
  std::map<int, bool> call_placed;       // a call with a local placed where it equals the lesson's
};

// The passes' fields as they are without a timeline: every value kept, none placed.
void unplaced(TracedValues& v);

// Every pass against the lesson's `timeline` (`whole_chapter`: the chapter's lessons one after the other).
void place_in_timeline(TracedValues& v, const std::vector<Binding>& timeline, bool whole_chapter);

}  // namespace attn
