#include "lessons/lesson_docs.h"

#include "lessons/lesson.h"
#include "lessons/lesson_file.h"

namespace attn {

std::string readme_lesson_rows() {
  std::string out = "| subcommand | book section | what it replays |\n|---|---|---|\n";
  for (const LessonInfo& l : lessons()) {
    const LessonFile f = lesson_file(l.name);
    out += "| `" + l.name + "` | " + f.readme_section + " | " + f.readme + " |\n";
  }
  return out;
}

std::string man_lesson_entries() {
  std::string out;
  for (const LessonInfo& l : lessons()) {
    out += ".TP\n.B " + l.name + "\n";
    for (const std::string& line : lesson_file(l.name).man) out += line + "\n";
  }
  return out;
}

}  // namespace attn
