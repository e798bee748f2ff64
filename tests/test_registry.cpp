// The registry is the one place a lesson is declared: walk it and the option table, and fail when a
// lesson or an option is missing its text (en and zh), its completion entry, its man-page row or its
// README row. docs/architecture.md says how to add a lesson or an option.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lessons/lesson.h"
#include "lessons/options.h"
#include "notebook/json_export.h"
#include "notebook/prose.h"
#include "run_cli.h"

using namespace attn;

namespace {

// The words of a bash completion variable: local NAME="a b c".
std::vector<std::string> completion_words(const std::string& script, const std::string& name) {
  const std::string start = "local " + name + "=\"";
  const size_t at = script.find(start);
  REQUIRE_MESSAGE(at != std::string::npos, "no " << name << " in the completion");
  const size_t end = script.find('"', at + start.size());
  std::istringstream words(script.substr(at + start.size(), end - at - start.size()));
  std::vector<std::string> out;
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string man_escape(std::string s) {
  std::string out;
  for (char c : s) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

// A row of the man page: ".B name", ".BI name ..." or ".BR name ..." on a line of its own.
bool man_has_row(const std::string& man, const std::string& name) {
  for (const std::string& n : {name, man_escape(name)})
    for (const std::string head : {".B ", ".BI ", ".BR "}) {
      const std::string line = "\n" + head + n;
      for (size_t at = man.find(line); at != std::string::npos; at = man.find(line, at + 1)) {
        const char after = man[at + line.size()];
        if (after == '\n' || after == ' ') return true;
      }
    }
  return false;
}

}  // namespace

TEST_CASE("registry: every lesson has its folder's text in both languages, completion, man row and README row") {
  const std::string completion = source_file("completions/attn-tutor.bash");
  const std::string man = source_file("man/attn-tutor.1");
  const std::string readme = source_file("README.md");
  const std::vector<std::string> words = completion_words(completion, "lessons");
  REQUIRE(lessons().size() >= 9);
  for (const LessonInfo& lesson : lessons()) {
    CAPTURE(lesson.name);
    const TextTable& text = lesson_text(lesson.name);
    CHECK(text.incomplete().empty());
    CHECK(text.has("lesson.title"));
    CHECK(text.has("lesson.summary"));
    CHECK(static_cast<bool>(lesson.run));
    CHECK_FALSE(lesson.sections.empty());
    CHECK_MESSAGE(contains(words, lesson.name), "completions/attn-tutor.bash: add " << lesson.name << " to lessons=");
    CHECK_MESSAGE(man_has_row(man, lesson.name), "man/attn-tutor.1: add a .TP/.B " << lesson.name << " row");
    CHECK_MESSAGE(readme.find("| `" + lesson.name + "` |") != std::string::npos,
                  "README.md: add a row | `" << lesson.name << "` | to the lessons table");
    for (const std::string& flag : lesson.options) CHECK_NOTHROW(option_row(flag));
    for (const OptionDefault& d : lesson.defaults) CHECK_NOTHROW(option_row(d.flag));
  }
  for (const std::string command : {"all", "verify", "check", "bench", "kv-memory", "lessons"})
    CHECK(contains(words, command));
  CHECK(man_has_row(man, "kv-memory"));
  CHECK(readme.find("| `kv-memory` |") != std::string::npos);
  CHECK(man_has_row(man, "lessons"));
  CHECK(readme.find("| `lessons [--json]` |") != std::string::npos);
}

TEST_CASE("registry: every option has help in both languages, completion, man row and README row") {
  const std::string completion = source_file("completions/attn-tutor.bash");
  const std::string man = source_file("man/attn-tutor.1");
  const std::string readme = source_file("README.md");
  const std::vector<std::string> words = completion_words(completion, "options");
  for (const OptionRow& row : option_table()) {
    CAPTURE(row.flag);
    CHECK_FALSE(row.help_en.empty());
    CHECK_FALSE(row.help_zh.empty());
    CHECK(row.help_en != row.help_zh);
    CHECK_MESSAGE(contains(words, row.flag), "completions/attn-tutor.bash: add " << row.flag << " to options=");
    if (row.kind == OptionKind::Choice) {
      std::string choices;
      for (const std::string& c : row.choices) choices += (choices.empty() ? "" : " ") + c;
      CHECK_MESSAGE(completion.find(row.flag + ") COMPREPLY=($(compgen -W \"" + choices + "\"") != std::string::npos,
                    "completions/attn-tutor.bash: complete " << row.flag << " with \"" << choices << "\"");
    }
    CHECK_MESSAGE(man_has_row(man, row.flag), "man/attn-tutor.1: add a row for " << row.flag);
    CHECK_MESSAGE(readme.find("| `" + row.flag) != std::string::npos, "README.md: add a row for " << row.flag);
    bool taken = row.common;
    for (const LessonInfo& lesson : lessons()) taken = taken || lesson.takes(row);
    CHECK_MESSAGE(taken, row.flag << " is taken by no lesson");
  }
}

TEST_CASE("registry: every lesson's exports are the tensor names of its --json export with the default options") {
  for (const LessonInfo& lesson : lessons()) {
    CAPTURE(lesson.name);
    const nlohmann::json doc = nlohmann::json::parse(export_json(lesson.run(LessonOptions{}), "test"));
    std::vector<std::string> names;  // each once, in order of first appearance
    for (const auto& t : doc.at("tensors"))
      if (!contains(names, t.at("name").get<std::string>())) names.push_back(t.at("name").get<std::string>());
    REQUIRE_FALSE(names.empty());
    CHECK(lesson.exports.list() == names);
    CHECK(&lesson.exports.list() == &lesson.exports.list());  // computed once
  }
  // A copy asks its lesson again (or shares what was computed), never another lesson's.
  LessonInfo copy = *find_lesson("gqa");
  CHECK(copy.exports.list() == find_lesson("gqa")->exports.list());
  CHECK(copy.exports.list() != find_lesson("mla")->exports.list());
  // Not bound to a lesson: a logic error, not an empty list.
  CHECK_THROWS_AS(ExportNames{}.list(), std::logic_error);
}

TEST_CASE("registry: a lesson's --help ends with its exports, in English and in Chinese") {
  for (const char* name : {"wrapper", "gqa"}) {
    const LessonInfo* lesson = find_lesson(name);
    REQUIRE(lesson != nullptr);
    CAPTURE(name);
    const CliResult en = run_cli(std::string(name) + " --help --lang en");
    const CliResult zh = run_cli(std::string(name) + " --help --lang zh");
    CHECK(en.exit_code == 0);
    CHECK(zh.exit_code == 0);
    std::string list;
    for (const std::string& n : lesson->exports.list()) list += (list.empty() ? "" : ", ") + n;
    CHECK(en.out.find("Exports (--json, default options): " + list) != std::string::npos);
    CHECK(zh.out.find("\u5bfc\u51fa\u7684\u5f20\u91cf\uff08--json\uff0c\u9ed8\u8ba4\u9009\u9879\uff09\uff1a" + list) !=
          std::string::npos);
  }
}

TEST_CASE("registry: check names the descriptor's exports when none of a learner's names is the lesson's") {
  const std::string file = write_file(temp_dir(), "unknown-names.json",
                                      "{\"schema\": \"attn-tutor/1\", \"lesson\": \"wrapper\", "
                                      "\"tensors\": [{\"name\": \"my_output\", \"data\": [1.0]}]}");
  const CliResult r = run_cli("check " + file);
  CHECK(r.exit_code == 2);
  std::string list;
  for (const std::string& n : find_lesson("wrapper")->exports.list()) list += (list.empty() ? "\"" : ", \"") + n + "\"";
  CHECK_MESSAGE(r.err.find("name them as the lesson does: " + list + " (") != std::string::npos, r.err);
}

namespace {

// The long options of `attn-tutor ARGS --help`, --help included, sorted.
std::vector<std::string> help_options(const std::string& args) {
  const CliResult r = run_cli(args + " --help --lang en");
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find("--");
    if (line.rfind("  -", 0) != 0 || at == std::string::npos) continue;
    const size_t end = line.find_first_of(" :", at);
    out.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The options the completion offers after `attn-tutor COMMAND`: the words in its branch's compgen -W lists.
std::vector<std::string> completed_options(const std::string& script, const std::string& command) {
  const std::string branch = "[[ ${COMP_WORDS[1]} == " + command + " ]]; then";
  const size_t at = script.find(branch);
  REQUIRE_MESSAGE(at != std::string::npos, "completions/attn-tutor.bash: no branch for " << command);
  const size_t end = std::min(script.find("\n  elif", at), script.find("\n  else", at));
  std::istringstream words(script.substr(at + branch.size(), end - at - branch.size()));
  std::vector<std::string> out;
  for (std::string w; words >> w;) {
    w.erase(std::remove(w.begin(), w.end(), '"'), w.end());
    if (w.rfind("--", 0) == 0 && w != "--" && !contains(out, w)) out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

TEST_CASE("completion: each command completes exactly the options its --help lists") {
  const std::string completion = source_file("completions/attn-tutor.bash");
  for (const std::string command : {"bench", "kv-memory", "check", "verify", "lessons"}) {
    CAPTURE(command);
    CHECK(joined(completed_options(completion, command)) == joined(help_options(command)));
  }
  const std::vector<std::string> words = completion_words(completion, "options");
  for (const LessonInfo& lesson : lessons()) {
    CAPTURE(lesson.name);
    for (const std::string& flag : help_options(lesson.name))
      CHECK_MESSAGE(contains(words, flag), "completions/attn-tutor.bash: add " << flag << " to options=");
  }
}

TEST_CASE("registry: README's option table names the lessons that take each option, as the registry does") {
  const std::string readme = source_file("README.md");
  for (const OptionRow& row : option_table()) {
    CAPTURE(row.flag);
    const size_t at = readme.find("\n| `" + row.flag);
    REQUIRE(at != std::string::npos);
    const size_t from = readme.find(" | ", at + 3) + 3, to = readme.find(" | ", from);
    const std::string listed = readme.substr(from, to - from);
    std::string expected;
    for (const LessonInfo& lesson : lessons())
      if (lesson.takes(row)) expected += (expected.empty() ? "" : ", ") + lesson.name;
    CHECK(listed == (row.common ? std::string("all") : expected));
  }
}
