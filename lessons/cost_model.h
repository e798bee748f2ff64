#pragma once
// What a lesson will cost before it runs: its peak memory and its run time, estimated from the
// options (the causal masks it builds, the weights it draws, the tensors it exports), so options
// inside the documented ranges cannot take minutes and gigabytes. Calibrated with /usr/bin/time
// on the lessons' largest settings (see cost_model.cpp); each lesson's work comes from its row.
#include <string>
#include <vector>

#include "core/usage_error.h"
#include "lessons/lesson.h"
#include "lessons/lesson_work.h"

namespace attn {

struct LessonCost {
  double bytes = 0;                // peak memory, estimated
  double seconds = 0;              // run time on a small machine, estimated
  double kept_bytes = 0;           // what a run's recorded tensors keep (check keeps each rerun's)
  ErrorText biggest;               // what dominates, e.g. "8 causal masks of 4096 x 4096" (lessons/errors.txt)
  std::vector<std::string> knobs;  // the options that make it big: "context_length", "num_heads"
};

constexpr double kMaxLessonBytes = 768.0 * 1024 * 1024;
constexpr double kMaxLessonSeconds = 6.0;

// `lesson` is a lesson's name or "all"; `exporting`: --json or --html renders every tensor too.
LessonCost estimate_lesson_cost(const std::string& lesson, const LessonOptions& opt, bool exporting);
// The work a lesson does with `opt` (its row's `work`); std::logic_error for a lesson without one.
LessonWork lesson_work(const std::string& lesson, const LessonOptions& opt);
bool has_cost_entry(const std::string& lesson);

// Throws UsageError naming the limit and the options to lower when the estimate is above
// kMaxLessonBytes or kMaxLessonSeconds. `knob_prefix` spells the options: "--" for the command line
// (--context-length), "config." for check (config.context_length). `runs`: how many times the
// lesson runs (check replays it once per known mistake). Returns `opt` for use in one expression.
const LessonOptions& require_affordable(const std::string& lesson, const LessonOptions& opt, bool exporting,
                                        const std::string& knob_prefix = "--", double runs = 1,
                                        const std::string& source = "");

}  // namespace attn
