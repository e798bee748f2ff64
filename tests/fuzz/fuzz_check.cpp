// libFuzzer target: the check FILE parsers (make fuzz), an export's and a saved trace's, and the test
// of a file's start that chooses between them. Any input either parses or throws UsageError with a
// message that is already one clean line; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/usage_error.h"
#include "features/check/learner_export.h"
#include "features/check/python_trace.h"
#include "features/check/trace_check.h"

namespace {

// A refusal's message: one clean line of bounded length, or a finding.
void check_message(const attn::UsageError& e) {
  const std::string message = e.what();
  for (const char c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) std::abort();  // raw control character
  if (message.size() > 2000) std::abort();
}

}  // namespace

// The trace parser asks whether its source is a program (features/check/python_trace.cpp, which runs
// Python and is not linked here); the fuzzed source, fuzz.json, is a saved trace.
bool attn::is_program_path(const std::string&) { return false; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const attn::LearnerExport ex = attn::parse_export(text, "fuzz.json");
    for (const attn::LearnerTensor& t : ex.tensors)
      if (static_cast<int64_t>(t.tensor.values().size()) != t.tensor.numel()) std::abort();
  } catch (const attn::UsageError& e) {
    check_message(e);
  }
  attn::is_trace_document(text);
  try {
    const attn::TraceDocument t = attn::parse_trace(text, "fuzz.json");
    if (t.events.size() > attn::kMaxTraceEvents) std::abort();
  } catch (const attn::UsageError& e) {
    check_message(e);
  }
  return 0;
}
