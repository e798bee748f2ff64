// libFuzzer target: the --inputs parser (make fuzz). Any input either parses or throws UsageError
// with a message that is already one clean line; anything else (a crash, another exception, a
// sanitizer report, a hang, runaway memory) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/inputs.h"
#include "core/usage_error.h"

namespace {

void require_clean(const std::string& message) {
  for (const char c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) std::abort();  // raw control character
  if (message.size() > 2000) std::abort();                                // a message echoing the file whole
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const attn::Inputs in = attn::parse_inputs(text, "fuzz.json");
    if (in.embeddings.size(0) != static_cast<int64_t>(in.tokens.size())) std::abort();
  } catch (const attn::UsageError& e) {
    require_clean(e.what());
  }
  return 0;
}
