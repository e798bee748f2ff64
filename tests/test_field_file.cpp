// The "field = value" files compiled in (lessons/options.txt, lessons/NAME/lesson.txt), read by one reader.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "lessons/field_file.h"
#include "lessons/lesson_file.h"

TEST_CASE("field file: sections, fields and comments, each line numbered") {
  const auto lines = attn::field_lines("# a comment\nsection = 3.5.1\n\n[--seed]\nkind = text\nen = a = b\n", "f.txt");
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].number == 2);
  CHECK(lines[0].section.empty());
  CHECK(lines[0].field == "section");
  CHECK(lines[0].value == "3.5.1");
  CHECK(lines[1].section == "--seed");
  CHECK(lines[2].field == "en");
  CHECK(lines[2].value == "a = b");  // split at the first " = " only
  CHECK(lines[2].number == 6);
}

TEST_CASE("field file: a line that is neither a field nor a section, or a file not compiled in, is refused") {
  CHECK_THROWS_WITH_AS(attn::field_lines("kind = text\nno equals sign\n", "f.txt"),
                       "f.txt:2: expected [section] or 'field = value'", std::logic_error);
  CHECK_THROWS_WITH_AS(attn::embedded_text("nowhere/lesson.txt"), "lessons/nowhere/lesson.txt is not compiled in",
                       std::logic_error);
  CHECK(attn::embedded_text("mha/lesson.txt").find("readme = ") != std::string::npos);
}

TEST_CASE("lesson file: a descriptor's lists, defaults and switches, and every registry row is its file") {
  const attn::LessonFile f = attn::parse_lesson_file(
      "# c\nsections = d2l 11.5, 3.5.1\noptions = --num-heads, --dropout\ndefaults = --num-heads, --dropout 0.5\n"
      "eval_unless_dropout = yes\nreadme_section = x\nreadme = y\nman = m1\nman = m2\n",
      "t.txt");
  CHECK(f.sections == std::vector<std::string>{"d2l 11.5", "3.5.1"});
  CHECK(f.options == std::vector<std::string>{"--num-heads", "--dropout"});
  REQUIRE(f.defaults.size() == 2);
  CHECK(f.defaults[0].flag == "--num-heads");
  CHECK(f.defaults[0].value.empty());  // it follows from other options
  CHECK(f.defaults[1].value == "0.5");
  CHECK(f.eval_unless_dropout);
  CHECK(f.man == std::vector<std::string>{"m1", "m2"});
  for (const attn::LessonInfo& l : attn::lessons()) {
    CAPTURE(l.name);
    const attn::LessonFile g = attn::lesson_file(l.name);
    CHECK(l.sections == g.sections);
    CHECK(l.options == g.options);
    CHECK(l.defaults.size() == g.defaults.size());
    CHECK(l.eval_unless_dropout == g.eval_unless_dropout);
  }
}

TEST_CASE("lesson file: an unknown field, an empty item, a bad switch or a missing field is refused") {
  const std::string rest = "readme_section = x\nreadme = y\nman = m\n";
  CHECK_THROWS_WITH_AS(attn::parse_lesson_file("sections = 3.5.1\nsection = 3\n" + rest, "t.txt"),
                       "t.txt:2: unknown field 'section'", std::logic_error);
  CHECK_THROWS_WITH_AS(attn::parse_lesson_file("sections = 3.5.1, \n" + rest, "t.txt"),
                       "t.txt:1: an empty item in '3.5.1, '", std::logic_error);
  CHECK_THROWS_WITH_AS(attn::parse_lesson_file("sections = 3.5.1\neval_unless_dropout = no\n" + rest, "t.txt"),
                       "t.txt:2: eval_unless_dropout is 'yes' or absent", std::logic_error);
  CHECK_THROWS_WITH_AS(attn::parse_lesson_file(rest, "t.txt"),
                       "t.txt: sections, readme_section, readme and man are each needed", std::logic_error);
}
