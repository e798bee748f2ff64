// README.md's option table, man/attn-tutor.1's OPTIONS, the bash completion's lists and
// python/export_pytorch.py's CONFIG_KEYS are written from the option table and the registry
// (lessons/option_docs.cpp): each file's block between its markers must be exactly that text. After changing
// an option or a lesson, `ATTN_WRITE_GENERATED=1 ./build/attn_tests -tc='generated*'` writes the blocks.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "lessons/lesson.h"
#include "lessons/option_docs.h"

using namespace attn;

namespace {

std::string path_of(const std::string& file) { return std::string(ATTN_SOURCE_DIR) + "/" + file; }

std::string read_text(const std::string& file) {
  std::ifstream in(path_of(file), std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("generated: each file's generated block is what the option table and the registry write") {
  const bool write = std::getenv("ATTN_WRITE_GENERATED") != nullptr;
  for (const GeneratedBlock& b : generated_blocks()) {
    CAPTURE(b.file);
    const std::string text = read_text(b.file);
    const size_t begin = text.find(b.begin + "\n");
    REQUIRE_MESSAGE(begin != std::string::npos, b.file << ": no line " << b.begin);
    CHECK(text.find(b.begin + "\n", begin + 1) == std::string::npos);
    const size_t from = begin + b.begin.size() + 1;
    const size_t end = text.find(b.end + "\n", from);
    REQUIRE_MESSAGE(end != std::string::npos, b.file << ": no line " << b.end << " after " << b.begin);
    const std::string committed = text.substr(from, end - from);
    if (write && committed != b.text) {
      const std::string tmp = path_of(b.file) + ".generated";
      std::ofstream(tmp, std::ios::binary) << text.substr(0, from) + b.text + text.substr(end);
      REQUIRE(std::rename(tmp.c_str(), path_of(b.file).c_str()) == 0);
      continue;
    }
    CHECK_MESSAGE(committed == b.text, b.file << ": its generated block is out of date; ATTN_WRITE_GENERATED=1 "
                                                 "./build/attn_tests -tc='generated*' writes it");
  }
}

TEST_CASE("generated: a block follows the table (a changed row changes it)") {
  for (const GeneratedBlock& b : generated_blocks()) {
    CAPTURE(b.file);
    CHECK_FALSE(b.text.empty());
    CHECK(b.text.back() == '\n');
  }
  const std::vector<GeneratedBlock> blocks = generated_blocks();
  CHECK(blocks[0].text.find("| `--num-kv-groups G` | gqa | ") != std::string::npos);
  CHECK(blocks[1].text.find(".BR \\-\\-bernoulli \" default|mkl\"\n") != std::string::npos);
  CHECK(blocks[2].text.find("--preset) COMPREPLY=($(compgen -W \"small post\" -- \"$cur\")); return ;;") !=
        std::string::npos);
  CHECK(blocks[3].text.find("\"num_kv_groups\"") != std::string::npos);
}

TEST_CASE("generated: the lesson tables follow the registry and each lesson's lesson.txt") {
  const std::vector<GeneratedBlock> blocks = generated_blocks();
  REQUIRE(blocks.size() == 6);
  const std::string& readme = blocks[4].text;
  const std::string& man = blocks[5].text;
  CHECK(readme.rfind("| subcommand | book section | what it replays |\n|---|---|---|\n| `naive-scores` | ", 0) == 0);
  size_t last = 0;
  for (const attn::LessonInfo& l : attn::lessons()) {  // one row and one entry each, in the registry's order
    CAPTURE(l.name);
    const size_t row = readme.find("\n| `" + l.name + "` | ");
    CHECK(row != std::string::npos);
    CHECK(row > last);
    last = row;
    CHECK(man.find(".TP\n.B " + l.name + "\n") != std::string::npos);
  }
  CHECK(readme.find("| `swa` | bonus ch04/06 | sliding-window attention: ") != std::string::npos);
  CHECK(man.find(".B mha\n§3.6.2: MultiHeadAttention") != std::string::npos);
}
