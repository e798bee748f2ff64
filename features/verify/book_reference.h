#pragma once
// The book's printed tensors (tests/fixtures/book_reference.txt): read by `verify` and the tests only.
#include <string>
#include <vector>

namespace attn {

struct ReferenceEntry {
  std::string lesson;
  std::string name;
  std::string options;  // "" for the book's settings
  std::string source;
  std::string text;     // exactly as PyTorch prints it
};

std::vector<ReferenceEntry> parse_reference(const std::string& file_text);

}  // namespace attn
