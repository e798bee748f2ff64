#pragma once
// The book's printed tensors (tests/fixtures/book_reference.txt): read by `verify` and the tests only.
#include <string>
#include <vector>

namespace attn {

struct ReferenceEntry {
  std::string lesson;
  std::string name;
  std::string options;  // "" for the book's settings
  std::string
      source;  // where it comes from, for the maintainers ("a reader's run on Intel/Windows, §3.3.1"); never shown
  std::string shown;  // the source as the learner knows it: "book 3.5.1 step-1" (features/verify/verify_report.h)
  std::string text;   // exactly as PyTorch prints it
};

std::vector<ReferenceEntry> parse_reference(const std::string& file_text);

}  // namespace attn
