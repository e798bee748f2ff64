#pragma once
// A learner's "attn-tutor/1" document, as python/export_pytorch.py (or attn-tutor --json) writes it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded_read.h"
#include "core/tensor.h"

namespace attn {

// The largest export read: an export of the largest lesson (course-mha --preset post with 16 tokens) is
// under 6 MB. (The page hands check at most one byte more of a file, app/lessons_command.cpp.)
constexpr std::size_t kMaxExportBytes = 8 * kMiB;
// Other limits of an export: a lesson's own --json export holds at
// most a few hundred tensors, and its longest name ("attn_weights_2", "sa_v2(inputs)") is far below
// the name limit. What is beyond them is refused with one line naming the limit.
constexpr std::size_t kMaxExportTensors = 4096;
constexpr std::size_t kMaxTensorNameBytes = 200;
constexpr std::size_t kMaxExportTokens = 16;  // the lessons take 2-16 tokens
// each token: kMaxTokenChars characters, as --tokens and --inputs take (core/inputs.h)

// Where a traced program (check FILE.py / FILE.ipynb) bound a tensor: its file, the notebook's code cell
// (0 in a script), the line (in the cell) and that line's code.
struct TensorOrigin {
  std::string file;
  int cell = 0;
  int line = 0;
  std::string code;
};

struct LearnerTensor {
  std::string name;
  Tensor tensor;            // float32 values; bool as 0/1; "inf", "-inf", "nan" read back as such
  std::optional<int> cell;  // "cell": the lesson's In [n] whose value this is (else the point its order implies)
  std::optional<TensorOrigin> origin;  // a traced program's tensor: where the learner's code bound it
  // A traced program's tensor is a copy of the value at its line (an in-place change after it is another
  // tensor of the trace), not a reference that sees later in-place changes as an export's does.
  bool snapshot = false;
  // A traced program's tensor placed where it equals the lesson's value (features/check/trace_place.h):
  // that timeline entry is its point (used when the timeline checked has its name there).
  std::optional<int> point;
  bool in_call = false;  // a traced program's tensor bound inside a function it called (a forward's step)
};

struct LearnerExport {
  std::string source;  // the file name, for messages
  std::string lesson;
  nlohmann::json config = nlohmann::json::object();
  std::vector<std::string> tokens;
  std::vector<LearnerTensor> tensors;  // in the file's order: the order the learner's program computed them
  bool traced = false;  // the settings a traced program used (its modules' arguments), not an export's config
};

// Throws UsageError with one line naming the file, the problem and the fix: not JSON, another schema,
// no lesson, no tensors, a tensor whose data does not fit its shape or holds something else than numbers,
// a "dtype" that is not a PyTorch dtype or disagrees with the data, more than kMaxExportTensors tensors, a
// name longer than kMaxTensorNameBytes, "tokens" that are not up to kMaxExportTokens printable words of
// at most kMaxTokenBytes.
LearnerExport parse_export(const std::string& text, const std::string& source);
// One tensor's entry ({"shape", "dtype", "data"}) read as parse_export reads it, its errors naming `name`.
Tensor read_export_tensor(const nlohmann::json& entry, const std::string& name, const std::string& source);
LearnerExport load_export(const std::string& path);

}  // namespace attn
