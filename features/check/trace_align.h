#pragma once
// Where a traced program's values sit in a lesson's timeline (features/check/trace_check.cpp): the
// program's order kept, the most of its values placed where they equal the lesson's.
#include <vector>

#include "features/check/learner_export.h"
#include "notebook/notebook.h"

namespace attn {

// For each of `values` (in the program's order) with `use[i]`, the timeline entry of its name it equals,
// chosen so that the places go strictly forward with the program's order (an entry places one value: a loop
// repeating an earlier step's value is not that step again) and as many values as possible have one
// (of chains equally long, the one placing each value earliest); -1 for a value without a place.
// `min_entry` (when given): the first entry each value may take.
std::vector<int> chain_places(const std::vector<Binding>& timeline, const std::vector<LearnerTensor>& values,
                              const std::vector<char>& use, const std::vector<int>* min_entry = nullptr);

}  // namespace attn
