#pragma once
// "did you mean mha?" for a mistyped subcommand.
#include <string>
#include <vector>

namespace attn {

// The candidate closest to `word` by edit distance, or "" when none is close enough to suggest.
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace attn
