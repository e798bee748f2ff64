#pragma once
// What a lesson will cost before it runs: its peak memory and its run time, estimated from the
// options (the causal masks it builds, the weights it draws, the tensors it exports), so options
// inside the documented ranges cannot take minutes and gigabytes. Calibrated with /usr/bin/time
// on the lessons' largest settings (see cost_model.cpp).
#include <string>
#include <vector>

#include "core/usage_error.h"
#include "lessons/lesson.h"

namespace attn {

struct LessonCost {
  double bytes = 0;                // peak memory, estimated
  double seconds = 0;              // run time on a small machine, estimated
  ErrorText biggest;               // what dominates, e.g. "8 causal masks of 4096 x 4096" (lessons/errors.txt)
  std::vector<std::string> knobs;  // the options that make it big: "context_length", "num_heads"
};

// What a lesson does that grows with its options, counted from the options before it runs; each
// lesson has one function that fills it (its entry in cost_model.cpp's table; a test fails for a lesson
// without one).
struct LessonWork {
  double masks_built = 0, masks_alive = 0, context = 0;  // context x context float masks
  double weights = 0, bytes_per_weight = 16;              // weights drawn and used, with their copies
  double recorded = 0;   // elements of the tensors the notebook records, rendered by --json and --html
  double macs = 0;       // multiply-adds of the modules' projections (a call also reads all its weights)
  double streamed = 0;   // cached keys x d_out that decoding steps go through (cat, transposes, scores)
  double head_keys = 0;  // cached keys x heads that decoding steps' per-head softmaxes go through
  double calls = 0, cached = 0;  // for the message: forward calls, and the most tokens the cache holds
  double extra_seconds = 0, extra_bytes = 0;  // fixed work beside the options' (mha --gpt2)
  std::vector<std::string> mask_knobs, weight_knobs, mac_knobs, step_knobs;
};

constexpr double kMaxLessonBytes = 768.0 * 1024 * 1024;
constexpr double kMaxLessonSeconds = 6.0;

// `lesson` is a lesson's name or "all"; `exporting`: --json or --html renders every tensor too.
LessonCost estimate_lesson_cost(const std::string& lesson, const LessonOptions& opt, bool exporting);
// The work a lesson does with `opt`; std::logic_error for a lesson without an entry in the table.
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
