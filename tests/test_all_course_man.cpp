// `all` marks where each lesson starts (its section numbers repeat and its cells
// are renumbered) in the text, the HTML and the exports; course-mha says which code it replays; the man
// page's ENVIRONMENT lists environment variables only, every option under OPTIONS.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "lessons/lesson.h"
#include "lessons/options.h"
#include "run_cli.h"

namespace {

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

// The number of cells a lesson has on its own: its script's "# In [n]:" lines.
int cells_of(const std::string& lesson) {
  const std::string script = run_cli(lesson + " --py -").out;
  int n = 0;
  for (size_t at = script.find("\n# In ["); at != std::string::npos; at = script.find("\n# In [", at + 1)) ++n;
  return n;
}

// The man page's section `name`: from its .SH line to the next.
std::string man_section(const std::string& man, const std::string& name) {
  const size_t start = man.find("\n.SH " + name + "\n");
  REQUIRE_MESSAGE(start != std::string::npos, "man/attn-tutor.1 has no .SH " << name);
  const size_t end = man.find("\n.SH ", start + 1);
  return man.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("all: a heading names each lesson, its sections and where its In [1] is, in text, HTML and exports") {
  const std::string text = run_cli("all --color never").out, zh = run_cli("all --lang zh --color never").out;
  const std::string py = run_cli("all --py -").out, html = run_cli("all --html -").out;
  const std::string ipynb = run_cli("all --ipynb -").out;
  std::string markdown;
  const nlohmann::json notebook = nlohmann::json::parse(ipynb);
  for (const auto& cell : notebook["cells"])
    if (cell["cell_type"] == "markdown")
      for (const auto& line : cell["source"]) markdown += line.get<std::string>() + "\n";
  int first = 1;
  size_t previous = 0;
  for (const attn::LessonInfo& lesson : attn::lessons()) {
    if (!lesson.in_chapter()) continue;
    CAPTURE(lesson.name);
    std::string sections;
    for (const std::string& s : lesson.sections) sections += (sections.empty() ? "" : ", ") + s;
    const std::string en = "lesson " + lesson.name + "  §" + sections + "; cells numbered from " +
                           std::to_string(first) + " (from 1 alone)";
    const size_t at = text.find("\n== " + en + "\n");
    CHECK(at != std::string::npos);
    CHECK(at >= previous);  // in book order
    previous = at;
    // the lesson's first cell follows its heading (after the section's own heading)
    CHECK(text.find("In [" + std::to_string(first) + "]:", at) < text.find("\n== lesson ", at + 1));
    CHECK(has(zh, "\n== 课程 " + lesson.name + "  §" + sections + "；单元格从 " + std::to_string(first) +
                      " 起编号（单独运行时从 1 起）\n"));
    CHECK(has(py, "\n# == " + en + "\n"));
    CHECK(has(markdown, "## " + en + "\n"));
    CHECK(has(html, "\">" + en + "</h2>"));
    first += cells_of(lesson.name);
  }
  // --from takes the lesson's name and starts at its heading
  const CliResult from = run_cli("all --from wrapper --color never");
  CHECK(from.exit_code == 0);
  CHECK(from.out.rfind("\n== lesson wrapper  §3.6.1; cells numbered from ", 0) == 0);
  // a lesson on its own has no such heading
  CHECK(!has(run_cli("wrapper --color never").out, "== lesson "));
}

TEST_CASE("course-mha: its first note says it replays a course's multi-head attention, not the book's code") {
  for (const char* preset : {"small", "post"}) {
    CAPTURE(preset);
    const std::string text = run_cli(std::string("course-mha --preset ") + preset + " --color never").out;
    const size_t note = text.find("# This lesson replays a course's multi-head attention: not the book's code");
    CHECK(note != std::string::npos);
    CHECK(note < text.find("In [2]:"));  // the first cell's note
    const std::string zh = run_cli(std::string("course-mha --lang zh --preset ") + preset + " --color never").out;
    CHECK(has(zh, "# 本课重现的是一门课程中的多头注意力：不是本书的代码"));
  }
}

TEST_CASE("man page: ENVIRONMENT lists only environment variables, every option is under OPTIONS") {
  const std::string man = source_file("man/attn-tutor.1");
  const std::string env = man_section(man, "ENVIRONMENT"), options = man_section(man, "OPTIONS");
  // every row of ENVIRONMENT names variables (capitals, digits, underscores), none an option
  const std::regex row("\n\\.(B|BI|BR) ([^\n]*)");
  const std::regex variable("[A-Z][A-Z0-9_]*");
  int rows = 0;
  for (auto it = std::sregex_iterator(env.begin(), env.end(), row); it != std::sregex_iterator(); ++it) {
    ++rows;
    const std::string names = (*it)[2].str();
    CAPTURE(names);
    CHECK(!has(names, "\\-"));
    std::istringstream words(std::regex_replace(names, std::regex("\"[, ]*\""), " "));
    for (std::string w; words >> w;) CHECK(std::regex_match(w, variable));
  }
  CHECK(rows >= 5);
  // the variables the program reads are there
  std::set<std::string> read = {"LC_ALL", "LC_MESSAGES", "LANG"};  // app/language.cpp reads them in a loop
  const std::regex getenv_call("getenv\\(\"([A-Z_]+)\"\\)");
  for (const char* dir : {"app", "features", "lessons", "lib"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(ATTN_SOURCE_DIR) + "/" + dir)) {
      if (entry.path().extension() != ".cpp") continue;
      std::ifstream in(entry.path());
      std::stringstream code;
      code << in.rdbuf();
      const std::string s = code.str();
      for (auto it = std::sregex_iterator(s.begin(), s.end(), getenv_call); it != std::sregex_iterator(); ++it)
        read.insert((*it)[1].str());
    }
  for (const std::string& name : read) CHECK_MESSAGE(has(env, name), "man/attn-tutor.1 ENVIRONMENT: add " << name);
  // every lesson option's row is in OPTIONS
  for (const attn::OptionRow& option : attn::option_table()) {
    std::string escaped;
    for (char c : option.flag) escaped += c == '-' ? std::string("\\-") : std::string(1, c);
    CHECK_MESSAGE(
        std::regex_search(
            options, std::regex("\n\\.(B|BI|BR) " + std::regex_replace(escaped, std::regex("\\\\"), "\\\\") + "[ \n]")),
        "man/attn-tutor.1: " << option.flag << " belongs under OPTIONS");
  }
}
