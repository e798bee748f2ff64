#pragma once
// The mistakes of the lessons after the chapter (kv-cache, gqa, mla, swa) that are variants of the bonus
// modules' forwards (lib/nn/bonus_*.cpp), as reruns for `attn-tutor check`'s diagnosis; and the chapter's
// mistakes that may change a tensor's shape (tried also when the first difference is one of shape).
// features/check/mistake_replay.cpp calls them.
#include <string>
#include <vector>

#include "features/check/mistake_rerun.h"

namespace attn {

// The reruns for a lesson after the chapter: only those that change its numbers with these settings
// (none for another lesson).
std::vector<MistakeRerun> bonus_mistake_reruns(const std::string& lesson, const LessonOptions& opt);

// Chapter mistakes that may give tensors of other shapes than the lesson's (wrapper: the heads concatenated
// along the tokens; causal-mask: the weights normalised by one sum, row_sums then one number): tried
// whether the first difference is one of shape or not.
std::vector<MistakeRerun> chapter_mistake_reruns(const std::string& lesson, const LessonOptions& opt);

}  // namespace attn
