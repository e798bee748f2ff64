#include "lessons/lesson_docs.h"

#include <stdexcept>
#include <vector>

#include "lessons/field_file.h"
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
  LessonDocs d;
  for (const FieldLine& l : field_lines(embedded_text(file), "lessons/" + file)) {
    if (l.field == "section")
      d.section = l.value;
    else if (l.field == "readme")
      d.readme = l.value;
    else if (l.field == "man")
      d.man.push_back(l.value);
    else
      throw std::logic_error("lessons/" + file + ": unknown field '" + l.field + "'");
  }
  if (d.section.empty() || d.readme.empty() || d.man.empty())
    throw std::logic_error("lessons/" + file + ": section, readme and man are each needed");
  return d;
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
