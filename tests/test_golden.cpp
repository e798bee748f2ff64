// Every tensor the book prints in §3.3-3.4 appears in the lesson's output as the very same text.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "features/verify/book_reference.h"
#include "run_cli.h"

namespace {

std::vector<attn::ReferenceEntry> reference() {
  return attn::parse_reference(read_text_file(std::string(ATTN_REFERENCE_FILE)));
}

void check_lesson(const std::string& lesson) {
  std::map<std::string, std::vector<attn::ReferenceEntry>> by_options;
  for (const auto& e : reference())
    if (e.lesson == lesson) by_options[e.options].push_back(e);
  REQUIRE_FALSE(by_options.empty());
  int checked = 0;
  for (const auto& kv : by_options) {
    const std::string& options = kv.first;  // not a structured binding: clang 14 cannot capture one (CAPTURE)
    const auto& entries = kv.second;
    const CliResult r = run_cli(lesson + " --color never " + options);
    REQUIRE(r.exit_code == 0);
    for (const auto& e : entries) {
      CAPTURE(e.name);
      CAPTURE(options);
      CHECK_MESSAGE(r.out.find(e.text) != std::string::npos, "missing from the output:\n" << e.text);
      ++checked;
    }
  }
  CHECK(checked == static_cast<int>([&] {
          size_t n = 0;
          for (const auto& kv : by_options) n += kv.second.size();
          return n;
        }()));
}

}  // namespace

TEST_CASE("golden: the reference file has entries for every lesson of 3.3-3.4") {
  std::set<std::string> lessons;
  for (const auto& e : reference()) lessons.insert(e.lesson);
  CHECK(lessons.count("naive-scores") == 1);
  CHECK(lessons.count("softmax") == 1);
  CHECK(lessons.count("trainable") == 1);
}

TEST_CASE("golden: naive-scores prints the book's tensors") { check_lesson("naive-scores"); }
TEST_CASE("golden: softmax prints the book's tensors") { check_lesson("softmax"); }
TEST_CASE("golden: trainable prints the book's tensors and the reader's randn seed 42 run") {
  check_lesson("trainable");
}

TEST_CASE("golden: a wrong digit in a reference text is caught") {
  const CliResult r = run_cli("trainable --color never");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("tensor([0.4306, 1.4551])") != std::string::npos);
  CHECK(r.out.find("tensor([0.4306, 1.4552])") == std::string::npos);
}

TEST_CASE("golden: verify covers the four lessons after the chapter with real PyTorch's text") {
  std::map<std::string, int> entries;
  for (const auto& e : reference()) ++entries[e.lesson];
  for (const std::string lesson : {"kv-cache", "gqa", "mla", "swa"}) {
    CAPTURE(lesson);
    REQUIRE(entries[lesson] >= 3);
    const CliResult r = run_cli("verify " + lesson);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(std::to_string(entries[lesson]) + " passed, 0 failed") != std::string::npos);
    CHECK(r.out.find("the book's bonus material, ch04/0") != std::string::npos);
  }
}
