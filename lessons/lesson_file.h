#pragma once
// A lesson's descriptor, lessons/NAME/lesson.txt (compiled in as "NAME/lesson.txt"): the facts of its row that
// are not code, one "field = value" line each, lists with ", " between their items.
//   sections = 3.5.2, 3.5.3    the book sections it replays, else its source ("d2l 11.5", "ch04/03_kv-cache")
//   options = --d-out, ...     the options it takes beyond the common ones (lessons/options.txt); absent: none
//   defaults = --dropout 0.5   its own defaults, where the option table states none or another; a flag alone
//                              follows from other options (its text key default.NAME says how)
//   eval_unless_dropout = yes  its module runs in eval() mode unless --dropout is given
//   readme_section, readme     its row in README.md's lesson table: the "book section" and "what it replays"
//   man = ...                  a line under `.B NAME` in man/attn-tutor.1's LESSONS (the field once per line)
#include <string>
#include <vector>

#include "lessons/lesson.h"

namespace attn {

struct LessonFile {
  std::vector<std::string> sections, options;
  std::vector<OptionDefault> defaults;
  bool eval_unless_dropout = false;
  std::string readme_section, readme;
  std::vector<std::string> man;
};

// lessons/NAME/lesson.txt read; std::logic_error naming the file and line for a line it cannot read.
LessonFile lesson_file(const std::string& name);
// The same for the text of a descriptor (`file` names it in the messages).
LessonFile parse_lesson_file(const std::string& text, const std::string& file);

}  // namespace attn
