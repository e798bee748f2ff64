#include "core/atomic_file.h"

#include "core/output_file.h"
#include "core/usage_error.h"

namespace attn {

ErrorText write_file_atomically(const std::string& path, const std::string& content) {
  try {
    OutputSet output;
    output.add_file("file", path, content);
    output.commit();
    return {};
  } catch (const UsageError& e) {
    return e.text();
  }
}

}  // namespace attn
