// Sources named as the learner knows them: no internal source ids ("seed 002", "the post", "001 In [38]",
// shared/ paths, another notebook's cell numbers) in any command's output, help, README, man page or
// completion, in either language.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lessons/lesson.h"
#include "run_cli.h"

using namespace attn;

namespace {

bool digit_or_dot(char c) { return (c >= '0' && c <= '9') || c == '.'; }

// The first internal name in `text`, or "" when there is none. `cells_as_labels`: "In [n]" may only
// start a line (the lesson's own cell label); mid-line it would be another notebook's cell.
std::string internal_name(const std::string& text, bool cells_as_labels) {
  for (const char* word : {"seed 00", "the post", "The post", "shared/", "notebook 00", "Notebook 00"})
    if (text.find(word) != std::string::npos) return word;
  for (size_t i = text.find("00"); i != std::string::npos; i = text.find("00", i + 1)) {
    // 001 ... 005 as a word of its own, not inside a number such as 0.0015 or 2005
    if (i + 2 >= text.size() || text[i + 2] < '1' || text[i + 2] > '5') continue;
    if (i > 0 && digit_or_dot(text[i - 1])) continue;
    if (i + 3 < text.size() && digit_or_dot(text[i + 3])) continue;
    return text.substr(i, 3) + " in \"" + text.substr(i > 30 ? i - 30 : 0, 60) + "\"";
  }
  if (cells_as_labels)
    for (size_t i = text.find("In ["); i != std::string::npos; i = text.find("In [", i + 1))
      if (i > 0 && text[i - 1] != '\n') return "mid-line " + text.substr(i > 30 ? i - 30 : 0, 60);
  return "";
}

void expect_learner_names(const std::string& what, const std::string& text, bool cells_as_labels) {
  CAPTURE(what);
  CHECK(!text.empty());
  CHECK(internal_name(text, cells_as_labels) == "");
}

}  // namespace

TEST_CASE("names: the rule finds internal ids and spares numbers and the lesson's own cells") {
  CHECK(internal_name("✓ x  [001 In [7]]", false) != "");
  CHECK(internal_name("as in seed 002", false) != "");
  CHECK(internal_name("see shared/seeds/README", false) != "");
  CHECK(internal_name("In [3]:\n>>> x\nlike the reader's In [45]", true) != "");
  CHECK(internal_name("tensor([0.0015, 2005, 1.003])\nIn [3]:\n>>> x = 1", true) == "");
  CHECK(internal_name("max|diff| 0.002", false) == "");
}

TEST_CASE("names: no internal source id in any command's output, in either language") {
  for (const char* lang : {"en", "zh"}) {
    const std::string l = std::string(" --lang ") + lang;
    for (const LessonInfo& lesson : lessons()) {
      const std::string args = lesson.name + l + " --explain --color never";
      expect_learner_names(args, run_cli(args).out, true);
      // help may name the lesson's own cells (--from 7 = In [7]): only the ids are checked there
      expect_learner_names(lesson.name + " --help" + l, run_cli(lesson.name + " --help" + l).out, false);
      // the HTML report also lists the settings the lesson ran with, each described in words
      expect_learner_names(lesson.name + " --html -" + l, run_cli(lesson.name + l + " --html -").out, false);
    }
    for (const std::string args : {"verify", "all --explain --color never", "course-mha --preset post --color never",
                                   "wrapper --no-reseed --color never", "dropout --bernoulli mkl --color never"})
      expect_learner_names(args + l, run_cli(args + l).out, true);
    for (const std::string sub : {"", "all", "verify", "check", "bench", "kv-memory"})
      expect_learner_names(sub + " --help" + l, run_cli(sub + " --help" + l).out, false);
    expect_learner_names("list" + l, run_cli(l).out, true);
    expect_learner_names("kv-memory" + l, run_cli("kv-memory --window 1024 --latent-dim 512" + l).out, true);
    expect_learner_names("bench" + l,
                         run_cli("bench --batch 1 --tokens 32 --d-model 64 --num-heads 2 --repeats 1" + l).out, true);
    for (const char* fixture : {"head-order", "stale-scores", "missing-reseed", "mkl-dropout", "correct-d2l-mha"}) {
      const std::string args =
          "check '" + std::string(ATTN_TEST_FIXTURE_DIR) + "/mistakes/" + fixture + ".json' --color never";
      const CliResult r = run_cli(args + l);
      expect_learner_names(args + l, r.out + r.err, false);  // check names the lesson's own cells: In [n]
    }
    for (const std::string args :
         {"mha --num-heads 3", "verify nope", "check /nonexistent.json", "kv-memory --num-kv-groups 5"})
      expect_learner_names(args + l, run_cli(args + l).err, true);
  }
}

TEST_CASE("names: README, the man page and the completion name sources as the learner knows them") {
  const std::string root = ATTN_SOURCE_DIR;
  for (const char* file : {"/README.md", "/man/attn-tutor.1", "/completions/attn-tutor.bash"})
    expect_learner_names(file, read_text_file(root + file), false);  // README quotes check's "= In [4]"
}

TEST_CASE("names: the sources, tools, docs and reference data name sources as the learner knows them") {
  int files = 0;
  for (const char* dir :
       {"app", "lib", "lessons", "features", "python", "tools", "docs", "tests/fixtures/book_reference.txt"}) {
    const std::filesystem::path root = std::filesystem::path(ATTN_SOURCE_DIR) / dir;
    std::vector<std::filesystem::path> paths;
    if (std::filesystem::is_regular_file(root))
      paths.push_back(root);
    else
      for (const auto& e : std::filesystem::recursive_directory_iterator(root))
        if (e.is_regular_file() && e.path().string().find("__pycache__") == std::string::npos)
          paths.push_back(e.path());
    for (const std::filesystem::path& p : paths) {
      const std::string ext = p.extension().string();
      if (ext != ".cpp" && ext != ".h" && ext != ".txt" && ext != ".py" && ext != ".md" && ext != ".in") continue;
      std::ifstream in(p);
      int line_number = 0;
      for (std::string line; std::getline(in, line);) {
        ++line_number;
        for (size_t i = line.find("\\u00"); i != std::string::npos; i = line.find("\\u00", i))
          line.replace(i, 4, "\\uXX");  // a JSON escape such as \u001b, not a source id
        const std::string where = p.string() + ":" + std::to_string(line_number);
        CAPTURE(where);
        CHECK(internal_name(line, false) == "");
      }
      ++files;
    }
  }
  CHECK(files > 100);
}
