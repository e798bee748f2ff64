#include "lessons/lesson_file.h"

#include <algorithm>
#include <stdexcept>

#include "lessons/field_file.h"

namespace attn {

namespace {

// "a, b, c" -> {"a", "b", "c"}; `where` names the line for an empty item.
std::vector<std::string> items(const std::string& value, const std::string& where) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= value.size();) {
    const size_t end = std::min(value.find(", ", at), value.size());
    out.push_back(value.substr(at, end - at));
    if (out.back().empty()) throw std::logic_error(where + "an empty item in '" + value + "'");
    at = end + 2;
  }
  return out;
}

}  // namespace

LessonFile lesson_file(const std::string& name) {
  return parse_lesson_file(embedded_text(name + "/lesson.txt"), "lessons/" + name + "/lesson.txt");
}

LessonFile parse_lesson_file(const std::string& text, const std::string& file) {
  LessonFile f;
  for (const FieldLine& l : field_lines(text, file)) {
    const std::string where = file + ":" + std::to_string(l.number) + ": ";
    if (l.field == "sections") {
      f.sections = items(l.value, where);
    } else if (l.field == "options") {
      f.options = items(l.value, where);
    } else if (l.field == "defaults") {
      for (const std::string& item : items(l.value, where)) {
        const size_t space = item.find(' ');
        f.defaults.push_back({item.substr(0, space), space == std::string::npos ? "" : item.substr(space + 1)});
      }
    } else if (l.field == "eval_unless_dropout") {
      if (l.value != "yes") throw std::logic_error(where + "eval_unless_dropout is 'yes' or absent");
      f.eval_unless_dropout = true;
    } else if (l.field == "readme_section") {
      f.readme_section = l.value;
    } else if (l.field == "readme") {
      f.readme = l.value;
    } else if (l.field == "man") {
      f.man.push_back(l.value);
    } else {
      throw std::logic_error(where + "unknown field '" + l.field + "'");
    }
  }
  if (f.sections.empty() || f.readme_section.empty() || f.readme.empty() || f.man.empty())
    throw std::logic_error(file + ": sections, readme_section, readme and man are each needed");
  return f;
}

}  // namespace attn
