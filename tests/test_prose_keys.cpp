// Prose keys say what they annotate and by which role (a cell's name, then .note, .explain,
// .confusion; heading.NAME for a heading): never cut short, never numbered, and never a fragment
// of a sentence glued together in code. A sentence with variants is one key with cases
// (en[case] = ..., notebook/prose.h, tests/test_text_cases.cpp), each a whole sentence in both languages.
#include <doctest/doctest.h>

#include <cctype>
#include <regex>
#include <string>
#include <vector>

#include "lessons/lesson.h"
#include "lessons/ui_text.h"
#include "notebook/picture_text.h"
#include "notebook/prose.h"

using namespace attn;

namespace {

// Every text table the build compiles in: each lesson's, the lessons' shared one, the commands'
// (features/*, app, lessons/errors.txt, lib/core) and the pictures'.
std::vector<const TextTable*> all_tables() {
  std::vector<const TextTable*> out;
  for (const LessonInfo& lesson : lessons()) out.push_back(&lesson_text(lesson.name));
  out.push_back(&lesson_text("common"));
  for (const TextTable* t : ui_tables()) out.push_back(t);
  out.push_back(&picture_text());
  return out;
}

// Why `key` is not a name a reader understands; empty when it is one.
std::string key_problem(const std::string& key) {
  if (key.size() > 40) return "longer than 40 characters";
  if (!key.empty() && std::isdigit(static_cast<unsigned char>(key.back()))) return "numbered (ends in a digit)";
  static const std::regex fragment("(^|[._-])(if|else)([._-]|$)|_(if|else)[0-9]*$");
  if (std::regex_search(key, fragment)) return "an _if/_else fragment";
  size_t start = 0;
  for (size_t dot = key.find('.'); start <= key.size(); dot = key.find('.', start)) {
    const size_t end = dot == std::string::npos ? key.size() : dot;
    if (end - start >= 32) return "a part of 32 characters or more (cut short)";
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return "";
}

}  // namespace

TEST_CASE("prose keys: the rule itself catches cut, numbered and fragment keys") {
  for (const char* good : {"course_out_equal.note", "heading.heads_one_by_one", "core.json.not-utf-8-text"})
    CHECK_MESSAGE(key_problem(good).empty(), good);
  for (const char* bad :
       {"i_torch_equal_out_course_out_boo.note", "dropout_example.note2", "heading.3.6.22", "attn_weights.explain_if",
        "attn_weights.explain_else", "torch_equal_z_x.note2_if", "a_name_that_is_long_enough_to_read.explain"})
    CHECK_MESSAGE(!key_problem(bad).empty(), bad);
}

TEST_CASE("prose keys: every key of every text table is a name by role, at most 40 characters") {
  const std::vector<const TextTable*> tables = all_tables();
  REQUIRE(tables.size() > 15);
  size_t keys = 0;
  for (const TextTable* t : tables) {
    for (const std::string& key : t->keys()) {
      ++keys;
      CAPTURE(t->origin());
      CAPTURE(key);
      CHECK_MESSAGE(key_problem(key).empty(), t->origin() << ": [" << key << "] is " << key_problem(key));
    }
  }
  CHECK(keys > 400);
}
