#include "lessons/lesson_docs.h"

#include <sstream>
#include <stdexcept>
#include <vector>

#include "lessons/embedded_texts.h"
#include "lessons/lesson.h"

namespace attn {
namespace {

struct LessonDocs {
  std::string section;           // README's "book section" column: "3.5.1", "bonus ch04/03"
  std::string readme;            // README's "what it replays" column
  std::vector<std::string> man;  // the man page's lines under `.B NAME`
};

// lessons/NAME/docs.txt: `section = `, `readme = ` and `man = ` lines (one per man line), # comments.
LessonDocs docs_of(const std::string& lesson) {
  const std::string file = lesson + "/docs.txt";
  for (const auto& [name, source] : embedded_text_tables()) {
    if (name != file) continue;
    LessonDocs d;
    std::istringstream text(source);
    for (std::string line; std::getline(text, line);) {
      if (line.empty() || line[0] == '#') continue;
      const size_t eq = line.find(" = ");
      if (eq == std::string::npos) throw std::logic_error("lessons/" + file + ": not 'field = value': " + line);
      const std::string field = line.substr(0, eq), value = line.substr(eq + 3);
      if (field == "section")
        d.section = value;
      else if (field == "readme")
        d.readme = value;
      else if (field == "man")
        d.man.push_back(value);
      else
        throw std::logic_error("lessons/" + file + ": unknown field '" + field + "'");
    }
    if (d.section.empty() || d.readme.empty() || d.man.empty())
      throw std::logic_error("lessons/" + file + ": section, readme and man are each needed");
    return d;
  }
  throw std::logic_error("no lessons/" + file + " compiled in");
}

}  // namespace

std::string readme_lesson_rows() {
  std::string out = "| subcommand | book section | what it replays |\n|---|---|---|\n";
  for (const LessonInfo& l : lessons()) {
    const LessonDocs d = docs_of(l.name);
    out += "| `" + l.name + "` | " + d.section + " | " + d.readme + " |\n";
  }
  return out;
}

std::string man_lesson_entries() {
  std::string out;
  for (const LessonInfo& l : lessons()) {
    out += ".TP\n.B " + l.name + "\n";
    for (const std::string& line : docs_of(l.name).man) out += line + "\n";
  }
  return out;
}

}  // namespace attn
