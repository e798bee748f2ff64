#pragma once
// Stage "compare": each learner tensor against the lesson's value at its point (check.h's
// learner_points), a step written another way (equivalent_forms.h) a match; then each tensor equal to
// another value of its name, decided by the tensors after it (taken there, stale or unsure), and the
// first difference in compute order.
#include <cstddef>
#include <vector>

#include "features/check/check.h"
#include "features/check/timeline_index.h"

namespace attn {

// Fills r.checks (r.yours and r.tool set) from each tensor's point; false when no tensor has one.
bool compare_at_points(CheckReport& r, const std::vector<int>& points, const NameIndex& index);

// The checks that have a point, in compute order (the file's order among those at one point).
std::vector<size_t> in_compute_order(const CheckReport& r);

// Each difference equal to an earlier value of its name decided from the tensors after its point, from
// the last point back (so that the evidence is decided first); then r.first_divergence.
void settle_earlier_values(CheckReport& r, const std::vector<size_t>& order);

}  // namespace attn
