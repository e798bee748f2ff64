#pragma once
// Each lesson's rows in README.md's lesson table and man/attn-tutor.1's LESSONS, from lessons/NAME/lesson.txt
// (English, as those files are), in the registry's order: lessons/option_docs.cpp writes them there.
#include <string>

namespace attn {

std::string readme_lesson_rows();  // the table, its header first
std::string man_lesson_entries();  // .TP, .B NAME, then its man lines, for each lesson

}  // namespace attn
