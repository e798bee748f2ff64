#pragma once
// A learner's "attn-tutor/1" document, as tools/export_pytorch.py (or attn-tutor --json) writes it.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"

namespace attn {

struct LearnerTensor {
  std::string name;
  Tensor tensor;  // float32 values; bool as 0/1; "inf", "-inf", "nan" read back as such
  std::optional<int> cell;  // "cell": the lesson's In [n] whose value this is (else the point its order implies)
};

struct LearnerExport {
  std::string source;  // the file name, for messages
  std::string lesson;
  nlohmann::json config = nlohmann::json::object();
  std::vector<std::string> tokens;
  std::vector<LearnerTensor> tensors;  // in the file's order: the order the learner's program computed them
};

// Throws UsageError with one line naming the file, the problem and the fix: not JSON, another schema,
// no lesson, no tensors, a tensor whose data does not fit its shape or holds something else than numbers.
LearnerExport parse_export(const std::string& text, const std::string& source);
LearnerExport load_export(const std::string& path);

}  // namespace attn
