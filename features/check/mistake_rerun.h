#pragma once
// A known mistake as a rerun of the lesson, for `attn-tutor check`'s diagnosis: the lesson's options with
// the mistake's variant (lib/nn/variant.h) or the settings it amounts to. mistake_replay.cpp lists the
// chapter's, bonus_mistakes.cpp and cache_mistakes.cpp those after it.
#include <string>

#include "lessons/lesson.h"
#include "notebook/notebook.h"

namespace attn {

struct MistakeRerun {
  std::string mistake;  // a known_mistakes() id
  Prose detail;         // check.detail.* of features/check/mistakes.txt
  LessonOptions opt;    // the lesson's options with the mistake's variant
};

}  // namespace attn
