#pragma once
// The text the registry and the option table write into files kept in the repository, between each file's
// "generated" marker lines: README.md's option table, man/attn-tutor.1's OPTIONS entries, the bash
// completion's lesson and option lists and python/export_pytorch.py's CONFIG_KEYS. tests/test_generated_docs.cpp
// compares each file's block with these and, with ATTN_WRITE_GENERATED=1, writes them.
#include <string>
#include <vector>

namespace attn {

struct GeneratedBlock {
  std::string file;   // "README.md", relative to the source tree
  std::string begin;  // the marker line before the block
  std::string end;    // the marker line after it
  std::string text;   // the lines between them, each ending in '\n'
};

std::vector<GeneratedBlock> generated_blocks();

}  // namespace attn
