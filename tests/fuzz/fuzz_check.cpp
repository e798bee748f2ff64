// libFuzzer target: the check FILE parser (make fuzz). Any input either parses or throws UsageError
// with a message that is already one clean line; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/usage_error.h"
#include "features/check/learner_export.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const attn::LearnerExport ex = attn::parse_export(text, "fuzz.json");
    for (const attn::LearnerTensor& t : ex.tensors)
      if (static_cast<int64_t>(t.tensor.values().size()) != t.tensor.numel()) std::abort();
  } catch (const attn::UsageError& e) {
    const std::string message = e.what();
    for (const char c : message)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) std::abort();  // raw control character
    if (message.size() > 2000) std::abort();
  }
  return 0;
}
