#pragma once
// Writes a whole file or nothing. Kept for callers of one file; a command with several outputs
// uses OutputSet (core/output_file.h), which this is built on: devices and FIFOs are written
// directly, symlinks kept, new files take the umask.
#include <string>

#include "core/usage_error.h"

namespace attn {

// Returns an empty ErrorText on success, else a one-line description of what failed and how to fix it.
ErrorText write_file_atomically(const std::string& path, const std::string& content);

}  // namespace attn
