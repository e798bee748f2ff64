#include "did_you_mean.h"

#include <algorithm>

namespace attn {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbouring
// letters ("mah" for "mha") each count one; three rows, so a long word costs no more memory than a short one.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> before(b.size() + 1), above(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) above[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({above[j] + 1, row[j - 1] + 1, above[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, above);
    std::swap(above, row);
  }
  return above[b.size()];
}

}  // namespace

std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (best.empty() || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  // Close enough: a few edits, and fewer than half the letters of the word.
  if (best.empty() || best_distance > 3 || best_distance * 2 > word.size()) return "";
  return best;
}

}  // namespace attn
