#pragma once
// The mistakes of the lessons after the chapter (kv-cache, gqa, mla, swa) that are variants of the bonus
// modules' forwards (lib/nn/bonus_*.cpp), as reruns for `attn-tutor check`'s diagnosis; and the chapter's
// mistakes that may change a tensor's shape (tried also when the first difference is one of shape).
// features/check/mistake_replay.cpp calls them.
#include <string>
#include <vector>

#include "lessons/lesson.h"
#include "notebook/notebook.h"

namespace attn {

struct BonusMistakeRerun {
  std::string mistake;  // a known_mistakes() id
  Prose detail;         // check.detail.* of features/check/mistakes.txt
  LessonOptions opt;    // the lesson's options with the mistake's variant
};

// The reruns for a lesson after the chapter: only those that change its numbers with these settings
// (none for another lesson).
std::vector<BonusMistakeRerun> bonus_mistake_reruns(const std::string& lesson, const LessonOptions& opt);

// Chapter mistakes that may give tensors of other shapes than the lesson's (wrapper: the heads concatenated
// along the tokens; causal-mask: the weights normalised by one sum, row_sums then one number): tried
// whether the first difference is one of shape or not.
std::vector<BonusMistakeRerun> chapter_mistake_reruns(const std::string& lesson, const LessonOptions& opt);

}  // namespace attn
