#pragma once
// Stage "lessons" of a traced program's check: each lesson that has one of the program's names, replayed
// once with the settings the program used for it (trace_settings.h) and its tensors compared, and the one
// that explains the program best.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/usage_error.h"
#include "features/check/learner_export.h"
#include "features/check/trace_check.h"
#include "lessons/lesson.h"

namespace attn {

struct Candidate {
  const LessonInfo* lesson = nullptr;
  LearnerExport ex;  // the program's tensors under the lesson's names, with the settings it used
  int matched = 0, differing = 0, unlisted = 0;
  int reshaped = 0;   // differing tensors whose shape is not the lesson's
  int furthest = -1;  // the program's last module-level tensor the lesson places (an index into the trace's events)
};

// Every name the trace binds (an attribute also under its own name: `sa.W_query` as `W_query`).
std::set<std::string> bound_names(const TraceDocument& trace);

// The lessons (the one --lesson names, or each with one of `bound`) with the program's tensors placed;
// empty when none places any. A lesson that refuses the program's settings (its cost, a size out of its
// range) is left out, its refusal kept in `refused` (the first one), unless it is the one given: then it
// is thrown.
std::vector<Candidate> lesson_candidates(const TraceDocument& trace, const std::string& source,
                                         const TraceChoices& choices, const std::set<std::string>& bound,
                                         std::optional<UsageError>& refused);

// No candidate: one line saying what the program has instead (names bound only inside functions, no
// tensor at all, or names none of the lessons has).
[[noreturn]] void refuse_without_lesson(const TraceDocument& trace, const std::string& source,
                                        const TraceChoices& choices, const std::set<std::string>& bound);

struct ChosenLesson {
  const Candidate* best = nullptr;
  int most = 0;  // the most tensors a candidate matches
};

// The candidate that matches the most (fewer differences, fewer reshaped, then the registry's order); of
// those that match at least a third as many, the one that reaches furthest into the program.
ChosenLesson choose_lesson(const std::vector<Candidate>& candidates);

}  // namespace attn
