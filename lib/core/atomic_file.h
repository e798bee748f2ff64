#pragma once
// Writes a whole file or nothing: a temporary file beside the target, then rename.
#include <string>

namespace attn {

// Returns an empty string on success, else a one-line description of what failed.
std::string write_file_atomically(const std::string& path, const std::string& content);

}  // namespace attn
