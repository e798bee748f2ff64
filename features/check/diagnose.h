#pragma once
// Stage "diagnose": the known mistakes whose rerun gives the first differing tensor at its point (to
// 1e-6) and every tensor before it, contradict none of the later matching ones, and give the most of the
// later ones; the report's verdicts restated in the light of the one named (a stale value the mistake
// gives at its own point is the mistake's, not a step that never reached it).
#include <cstddef>
#include <vector>

#include "features/check/check.h"

namespace attn {

// Fills r.diagnoses and r.not_reproduced (r compared, r.first_divergence set; `order`: its checks in
// compute order, compare.h's in_compute_order).
void diagnose(CheckReport& r, const std::vector<size_t>& order, const std::vector<WhatIf>& what_ifs);

}  // namespace attn
