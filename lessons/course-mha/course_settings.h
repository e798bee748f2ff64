#pragma once
// The course's own hyperparameters (--preset post; --preset small keeps them where the chapter's sizes
// allow): one place for the lesson's cells and the cost model (lessons/cost_model.cpp). Its dropout
// rate is the lesson's default, in its registry row.
#include <cstdint>

namespace attn::course {

constexpr int64_t kContextLength = 128, kDModel = 512, kNumHeads = 8;

// --preset small: the largest of 3, 2, 1 heads that divides d_model (d_in = 3 gives 3 heads of size 1).
constexpr int64_t small_num_heads(int64_t d_model) { return d_model % 3 == 0 ? 3 : d_model % 2 == 0 ? 2 : 1; }

}  // namespace attn::course
