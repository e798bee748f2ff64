#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// What a lesson does that grows with its options, counted from the options before it runs: each
// lesson's row in lessons/registry.cpp names the function that fills it (lessons/NAME/cost.cpp;
// tests/test_hostile_cost.cpp fails for a lesson without one). lessons/cost_model.cpp turns it into
// seconds and bytes.
struct LessonWork {
  double masks_built = 0, masks_alive = 0, context = 0;  // context x context float masks
  double weights = 0, bytes_per_weight = 16;             // weights drawn and used, with their copies
  double recorded = 0;           // elements of the tensors the notebook records, rendered by --json and --html
  double macs = 0;               // multiply-adds of the modules' projections (a call also reads all its weights)
  double streamed = 0;           // cached keys x d_out that decoding steps go through (cat, transposes, scores)
  double head_keys = 0;          // cached keys x heads that decoding steps' per-head softmaxes go through
  double calls = 0, cached = 0;  // for the message: forward calls, and the most tokens the cache holds
  double more_weights = 0, more_mask_elements = 0;  // fixed work beside the options' (mha --gpt2), not exported
  std::vector<std::string> mask_knobs, weight_knobs, mac_knobs, step_knobs;
};

// A size as the counts above take it.
inline double work_count(int64_t v) { return static_cast<double>(v); }

}  // namespace attn
